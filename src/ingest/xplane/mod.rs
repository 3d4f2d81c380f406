//! JAX profiler traces: an XPlane protobuf (`*.xplane.pb`, plain or gzipped;
//! spec formats.md Part C), decoded with our own message subset ([`proto`],
//! [`hlo`]): no protoc, no xprof.
//!
//! The events follow xprof's trace-viewer export, which is what TraceLens
//! reads (§C.5): every event of every line of every plane with lines becomes a
//! complete event, with
//! * pid `n + 1` for `/device:GPU:n`, 701 for `/host:CPU`, `501 + k` for the
//!   k-th other plane with lines (`/device:CUSTOM:*`);
//! * tid `uint32(display_id or id)` of the line;
//! * ts / dur = picoseconds / 1e6 (µs);
//! * name = the event metadata's name; args = the resolved stats (the event
//!   metadata's stats under the event's own; interned strings resolved; bytes
//!   stats left out), keeping `program_id`, `kernel_details`, `hlo_op` and
//!   `correlation_id`, which xprof drops;
//! * in the export's order: pid, tid, then ts ascending, dur descending, then
//!   the order in the file. Row `i` is then TraceLens's UID on the first GPU,
//!   and everywhere but for xprof's derived lines, which are not made here.
//!
//! Kinds (§C.6): events on `Stream…` lines of GPU planes are memcpy (name
//! starting with copy/memcpy), memset, or kernels, with `device` = n and
//! `stream` = the line id; host events with a `correlation_id` stat are launch
//! calls (kind Runtime, cat `launch`) that GPU events link to by that id; every
//! other event is kind Other (cat `host`, or `Unknown` on non-stream device
//! lines).
//!
//! Beside the events: `kernel_dispatches` (exact picoseconds, the HLO key,
//! kernel_details' grid and block), `memory_copies`, `api_calls` (domain
//! `xla_launch`), `hlo_instructions` from the metadata plane's HLO protos, and
//! `trace_meta` rows (hostnames, profile start/stop, each GPU's plane stats).

pub mod hlo;
mod nesting;
pub mod proto;

#[cfg(test)]
mod tests;

use std::cmp::Reverse;

use prost::Message as _;
use serde_json::{Map, Value};

use super::kineto::decode::Event;
use super::native::{ApiCall, Dispatch, MemoryCopy, SourceFormat};
use super::trace::{EventKind, RawTrace};
use super::{source, IngestError, Problem};
use proto::{EventIn, LineIn, PlaneIn, SpaceIn, StatRef, XStat};

/// pid of the host plane in xprof's trace viewer (500 device ids + 200 custom
/// planes + 1).
pub const HOST_PID: u32 = 701;
/// pid of the first custom plane.
pub const CUSTOM_PID: u32 = 501;

/// Reads the XPlane file at `path`.
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    let bytes = source::read_all(path).map_err(fail)?;
    if bytes.is_empty() {
        return Err(fail(Problem::EmptyFile));
    }
    let space = decode_owned(bytes).map_err(|m| fail(Problem::Invalid(m)))?;
    build(path, &space).map_err(|m| fail(Problem::Invalid(m)))
}

/// Decodes an XSpace, or says in one line why `bytes` is not one.
pub fn decode(bytes: &[u8]) -> Result<SpaceIn, String> {
    decode_owned(bytes.to_vec())
}

/// [`decode`] of a file read whole: its events stay slices of it.
fn decode_owned(bytes: Vec<u8>) -> Result<SpaceIn, String> {
    nesting::check(&bytes, &proto::SPACE_IN).map_err(|e| invalid(&e))?;
    let space = SpaceIn::decode(bytes::Bytes::from(bytes)).map_err(|e| invalid(&e.to_string()))?;
    if space.planes.is_empty() {
        return Err(invalid("the XSpace holds no plane"));
    }
    let known = |p: &PlaneIn| {
        p.name.starts_with("/device:") || p.name.starts_with("/host:") || p.name == TASK_PLANE
    };
    if !space.planes.iter().any(known) {
        return Err(invalid(
            "no plane is named /device:…, /host:… or Task Environment",
        ));
    }
    Ok(space)
}

fn invalid(what: &str) -> String {
    format!("not a valid JAX XPlane file: {}", what.replace('\n', " "))
}

const TASK_PLANE: &str = "Task Environment";
const METADATA_PLANE: &str = "/host:metadata";
const HOST_PLANE: &str = "/host:CPU";
const GPU_PREFIX: &str = "/device:GPU:";

/// What a plane is, by its name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// `/device:GPU:n`.
    Gpu(i64),
    Host,
    /// Any other plane with lines (`/device:CUSTOM:*`).
    Custom,
    /// Planes whose lines make no events (metadata, task environment).
    NoEvents,
}

fn role(name: &str) -> Role {
    if let Some(n) = name.strip_prefix(GPU_PREFIX) {
        if let Ok(n) = n.parse::<i64>() {
            if (0..i64::from(CUSTOM_PID) - 1).contains(&n) {
                return Role::Gpu(n);
            }
        }
    }
    match name {
        HOST_PLANE => Role::Host,
        METADATA_PLANE | TASK_PLANE => Role::NoEvents,
        _ => Role::Custom,
    }
}

/// A stat's value as JSON: interned strings resolved; None for bytes (and a
/// stat with no value).
/// A stat's value (None for bytes, and a stat with no value): a reference to
/// an interned string is that string, or null when the plane lacks it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar<'a> {
    Text(&'a str),
    Int(i64),
    Uint(u64),
    Double(f64),
    Null,
}

fn stat_scalar<'a>(plane: &'a PlaneIn, stat: &StatRef<'a>) -> Option<Scalar<'a>> {
    if let Some(r) = stat.ref_value {
        let name = i64::try_from(r)
            .ok()
            .and_then(|r| plane.stat_metadata.get(&r));
        return Some(name.map_or(Scalar::Null, |m| Scalar::Text(&m.name)));
    }
    if let Some(s) = stat.str_value {
        return Some(Scalar::Text(s));
    }
    if let Some(v) = stat.int64_value {
        return Some(Scalar::Int(v));
    }
    if let Some(v) = stat.uint64_value {
        return Some(Scalar::Uint(v));
    }
    if let Some(v) = stat.double_value {
        return Some(Scalar::Double(v));
    }
    None
}

fn stat_name(plane: &PlaneIn, id: i64) -> std::borrow::Cow<'_, str> {
    match plane.stat_metadata.get(&id) {
        Some(m) => m.name.as_str().into(),
        None => format!("stat {id}").into(),
    }
}

/// A plane's or event's stats by name, later stats winning: what becomes an
/// event's args (JSON with its keys sorted, as serde_json writes a map).
#[derive(Default)]
struct Stats<'a> {
    /// Sorted by name, one entry per name.
    named: Vec<(std::borrow::Cow<'a, str>, Scalar<'a>)>,
}

impl<'a> Stats<'a> {
    fn new(plane: &'a PlaneIn, stats: &[StatRef<'a>]) -> Stats<'a> {
        // Later stats of an id replace earlier ones in place; then names
        // (two ids may share one) keep the value of the later id.
        let mut by_id: Vec<(i64, &StatRef<'a>)> = Vec::with_capacity(stats.len());
        for stat in stats {
            match by_id.iter_mut().find(|(id, _)| *id == stat.metadata_id) {
                Some(slot) => slot.1 = stat,
                None => by_id.push((stat.metadata_id, stat)),
            }
        }
        let mut named: Vec<_> = by_id
            .into_iter()
            .filter_map(|(id, stat)| Some((stat_name(plane, id), stat_scalar(plane, stat)?)))
            .collect();
        // Stable: among equal names the later stays last, and is kept.
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(std::borrow::Cow<'a, str>, Scalar<'a>)> =
            Vec::with_capacity(named.len());
        for entry in named {
            match kept.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => kept.push(entry),
            }
        }
        Stats { named: kept }
    }

    fn get(&self, name: &str) -> Option<Scalar<'a>> {
        let at = self
            .named
            .binary_search_by(|(n, _)| n.as_ref().cmp(name))
            .ok()?;
        Some(self.named[at].1)
    }

    /// An integer stat (correlation_id, program_id), whatever its integer type.
    fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Scalar::Int(v) => Some(v),
            Scalar::Uint(v) => Some(v as i64),
            _ => None,
        }
    }

    fn text(&self, name: &str) -> Option<&'a str> {
        match self.get(name)? {
            Scalar::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The stats as a JSON object's text, into `out`.
    fn write_json(&self, out: &mut Vec<u8>) {
        out.clear();
        out.push(b'{');
        let mut digits = itoa::Buffer::new();
        for (i, (name, value)) in self.named.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Writing a str or a number into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, name.as_ref());
            out.push(b':');
            match value {
                Scalar::Text(s) => {
                    let _ = serde_json::to_writer(&mut *out, s);
                }
                Scalar::Int(v) => out.extend_from_slice(digits.format(*v).as_bytes()),
                Scalar::Uint(v) => out.extend_from_slice(digits.format(*v).as_bytes()),
                // serde_json writes a non-finite double as null, as its Value holds one.
                Scalar::Double(v) => {
                    let _ = serde_json::to_writer(&mut *out, v);
                }
                Scalar::Null => out.extend_from_slice(b"null"),
            }
        }
        out.push(b'}');
    }
}

/// A plane's stats as a JSON object, later stats winning (trace_meta).
fn stats_object(plane: &PlaneIn, stats: &[XStat]) -> Map<String, Value> {
    let refs: Vec<StatRef> = stats.iter().map(StatRef::from).collect();
    let mut map = Map::new();
    for (name, value) in Stats::new(plane, &refs).named {
        let value = match value {
            Scalar::Text(s) => Value::from(s),
            Scalar::Int(v) => Value::from(v),
            Scalar::Uint(v) => Value::from(v),
            Scalar::Double(v) => Value::from(v),
            Scalar::Null => Value::Null,
        };
        map.insert(name.into_owned(), value);
    }
    map
}

/// One event to emit, located in the space, with its sort key.
struct Pending {
    pid: u32,
    tid: u32,
    start_ps: i64,
    dur_ps: i64,
    plane: usize,
    line: usize,
    event: usize,
}

fn tid_of(line: &LineIn) -> u32 {
    let id = if line.display_id != 0 {
        line.display_id
    } else {
        line.id
    };
    id as u32
}

fn thread_name(line: &LineIn) -> &str {
    if line.display_name.is_empty() {
        &line.name
    } else {
        &line.display_name
    }
}

/// The pid of each plane that makes events (None for the others).
fn plane_pids(space: &SpaceIn) -> Vec<Option<u32>> {
    let mut custom = 0u32;
    space
        .planes
        .iter()
        .map(|plane| match role(&plane.name) {
            Role::Gpu(n) => Some(n as u32 + 1),
            Role::Host => Some(HOST_PID),
            Role::Custom if !plane.lines.is_empty() => {
                custom += 1;
                Some(CUSTOM_PID.saturating_add(custom - 1))
            }
            Role::Custom | Role::NoEvents => None,
        })
        .collect()
}

/// The trace of a decoded space.
pub fn build(path: &str, space: &SpaceIn) -> Result<RawTrace, String> {
    let mut trace = RawTrace::new(path);
    trace.hold_all_args = true;
    trace.native.format = SourceFormat::Jax;
    let pids = plane_pids(space);
    let host = space.hostnames.first().map(String::as_str);
    let mut pending = Vec::new();
    for (p, plane) in space.planes.iter().enumerate() {
        let Some(pid) = pids[p] else { continue };
        if plane.lines.is_empty() {
            continue;
        }
        let pid_text = pid.to_string();
        let process = match host {
            Some(h) if !h.is_empty() => format!("{h} {}", plane.name),
            _ => plane.name.clone(),
        };
        let pid_id = trace.strings.intern(&pid_text);
        trace.process_names.insert(pid_id, process);
        for (l, line) in plane.lines.iter().enumerate() {
            let tid = tid_of(line);
            let tid_id = trace.strings.intern(&tid.to_string());
            // The first line of a tid names it, as xprof lists them.
            (trace.thread_names.entry((pid_id, tid_id)))
                .or_insert_with(|| thread_name(line).to_string());
            let base = line.timestamp_ns.checked_mul(1000).ok_or_else(|| {
                invalid(&format!(
                    "line {:?} of {}: timestamp_ns {} overflows",
                    line.name, plane.name, line.timestamp_ns
                ))
            })?;
            for (e, bytes) in line.events.iter().enumerate() {
                let event = EventIn::read(bytes).map_err(|m| {
                    invalid(&format!(
                        "an event of line {:?} of {}: {m}",
                        line.name, plane.name
                    ))
                })?;
                // Aggregated events have no time: not in a timeline.
                if event.num_occurrences.is_some() && event.offset_ps.is_none() {
                    continue;
                }
                let start_ps = base
                    .checked_add(event.offset_ps.unwrap_or(0))
                    .ok_or_else(|| {
                        invalid(&format!(
                            "an event of line {:?} of {}: its start overflows",
                            line.name, plane.name
                        ))
                    })?;
                pending.push(Pending {
                    pid,
                    tid,
                    start_ps,
                    dur_ps: event.duration_ps,
                    plane: p,
                    line: l,
                    event: e,
                });
            }
        }
    }
    // Stable: the file order breaks the remaining ties.
    pending.sort_by_key(|e| (e.pid, e.tid, e.start_ps, Reverse(e.dur_ps)));
    let mut scratch = Scratch::default();
    for item in &pending {
        let plane = &space.planes[item.plane];
        let line = &plane.lines[item.line];
        let event = EventIn::read(&line.events[item.event]).map_err(|m| invalid(&m))?;
        add_event(&mut trace, plane, line, &event, item, &mut scratch)?;
    }
    add_hlo(&mut trace, space)?;
    trace.metadata = metadata(space);
    trace.shrink_to_fit();
    Ok(trace)
}

/// What a GPU-plane event is (§C.6), from its line and name.
fn gpu_kind(line: &LineIn, name: &str) -> (EventKind, &'static str) {
    if !line.name.starts_with("Stream") {
        return (EventKind::Other, "Unknown");
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("copy") || lower.starts_with("memcpy") {
        (EventKind::Memcpy, "memcpy")
    } else if lower.starts_with("memset") {
        (EventKind::Memset, "memset")
    } else {
        (EventKind::Kernel, "kernel")
    }
}

/// Buffers reused from one event to the next.
#[derive(Default)]
struct Scratch {
    args: Vec<u8>,
}

fn add_event(
    trace: &mut RawTrace,
    plane: &PlaneIn,
    line: &LineIn,
    event: &EventIn,
    at: &Pending,
    scratch: &mut Scratch,
) -> Result<(), String> {
    let metadata = plane.event_metadata.get(&event.metadata_id);
    let name = metadata.map_or("", |m| m.name.as_str());
    let mut stats: Vec<StatRef> = metadata
        .map(|m| m.stats.iter().map(StatRef::from).collect())
        .unwrap_or_default();
    event.stats(&mut stats).map_err(|m| invalid(&m))?;
    let args = Stats::new(plane, &stats);
    let correlation = args.int("correlation_id");
    let gpu = match role(&plane.name) {
        Role::Gpu(n) => Some(n),
        _ => None,
    };
    let (kind, cat) = match gpu {
        Some(_) => gpu_kind(line, name),
        None if plane.name == HOST_PLANE && correlation.is_some() => (EventKind::Runtime, "launch"),
        None if plane.name == HOST_PLANE => (EventKind::Other, "host"),
        None => (EventKind::Other, "Unknown"),
    };
    args.write_json(&mut scratch.args);
    // Written from `&str`s and numbers by serde_json and itoa: UTF-8.
    let args_text = std::str::from_utf8(&scratch.args).map_err(|e| e.to_string())?;
    let (mut pid, mut tid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let (pid_text, tid_text) = (pid.format(at.pid), tid.format(at.tid));
    let on_stream = kind.is_gpu();
    let ev = Event {
        ph: Some("X".into()),
        cat: Some(cat.into()),
        name: Some(name.into()),
        pid: Some(pid_text.into()),
        tid: Some(tid_text.into()),
        ts: Some(at.start_ps as f64 / 1e6),
        dur: Some(at.dur_ps as f64 / 1e6),
        fractional_time: true,
        args: Some(args_text),
        correlation: correlation.filter(|_| on_stream || kind == EventKind::Runtime),
        device: gpu.filter(|_| on_stream),
        stream: Some(line.id).filter(|_| on_stream),
        ..Event::default()
    };
    let uid = trace.len() as u32;
    trace.push(kind, &ev, 0)?;
    let (begin_ps, end_ps) = (at.start_ps, at.start_ps.saturating_add(at.dur_ps));
    let ns = |ps: i64| Some(ps.div_euclid(1000));
    match kind {
        EventKind::Kernel => {
            let parsed = KernelDetails::parse(args.text("kernel_details").unwrap_or(""));
            let mut text = |key: &str| trace.intern(args.text(key));
            let (hlo_module, hlo_op) = (text("hlo_module"), text("hlo_op"));
            let (tf_op, name_scope) = (text("tf_op"), text("name"));
            let kernel_details = text("kernel_details");
            let agent = trace.intern(Some(&plane.name));
            let product = |v: [Option<i64>; 3]| -> Option<i64> {
                v.iter().try_fold(1i64, |acc, x| acc.checked_mul((*x)?))
            };
            trace.native.dispatches.push(Dispatch {
                uid,
                name: trace.name.get(uid as usize),
                agent,
                gpu_index: gpu,
                stream_id: Some(line.id),
                corr_id: correlation,
                begin_ns: ns(begin_ps),
                end_ns: ns(end_ps),
                begin_ps: Some(begin_ps),
                end_ps: Some(end_ps),
                grid: parsed.grid,
                block: parsed.block,
                grid_size: product(parsed.grid),
                workgroup_size: product(parsed.block),
                lds: parsed.lds,
                scratch: parsed.scratch,
                hlo_module,
                hlo_op,
                program_id: args.int("program_id"),
                tf_op,
                name_scope,
                kernel_details,
                ..Dispatch::default()
            });
        }
        EventKind::Memcpy => {
            let bytes = args.text("memcpy_details").and_then(|d| field(d, "size:"));
            trace.native.memory_copies.push(MemoryCopy {
                uid,
                name: trace.name.get(uid as usize),
                begin_ns: ns(begin_ps),
                end_ns: ns(end_ps),
                bytes: bytes.and_then(|b| b.parse().ok()),
                corr_id: correlation,
                stream_id: Some(line.id),
                ..MemoryCopy::default()
            });
        }
        EventKind::Runtime => {
            let domain = trace.intern(Some("xla_launch"));
            trace.native.api_calls.push(ApiCall {
                uid,
                domain,
                name: trace.name.get(uid as usize),
                thread_id: Some(line.id),
                begin_ns: ns(begin_ps),
                end_ns: ns(end_ps),
                corr_id: correlation,
                device_id: args.int("device_id"),
                ..ApiCall::default()
            })
        }
        _ => {}
    }
    Ok(())
}

/// The value of the first whitespace-separated `key…` token of `text`.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.split_whitespace().find_map(|t| t.strip_prefix(key))
}

/// What a kernel_details stat says: `grid:1024,1,1 block:256,1,1
/// private_mem:0 group_mem:49280 occ_pct:0` (JAX 0.8) or `regs:… static_shared:…
/// dynamic_shared:… grid:… block:…` (older). Grid is in blocks.
#[derive(Debug, Default, PartialEq)]
pub struct KernelDetails {
    pub grid: [Option<i64>; 3],
    pub block: [Option<i64>; 3],
    pub lds: Option<i64>,
    pub scratch: Option<i64>,
}

impl KernelDetails {
    pub fn parse(text: &str) -> KernelDetails {
        const KEYS: [&str; 6] = [
            "grid:",
            "block:",
            "group_mem:",
            "private_mem:",
            "static_shared:",
            "dynamic_shared:",
        ];
        // One pass over the tokens; the first token of each key counts.
        let mut found: [Option<&str>; 6] = [None; 6];
        for token in text.split_whitespace() {
            for (slot, key) in found.iter_mut().zip(KEYS) {
                if slot.is_none() {
                    if let Some(value) = token.strip_prefix(key) {
                        *slot = Some(value);
                    }
                }
            }
        }
        let [grid, block, group, private, static_shared, dynamic_shared] = found;
        let axes = |v: Option<&str>| {
            let mut out = [None; 3];
            if let Some(v) = v {
                for (slot, part) in out.iter_mut().zip(v.split(',')) {
                    *slot = part.trim().parse().ok();
                }
            }
            out
        };
        let int = |v: Option<&str>| v.and_then(|v| v.parse::<i64>().ok());
        let shared = match (int(static_shared), int(dynamic_shared)) {
            (None, None) => None,
            (s, d) => s.unwrap_or(0).checked_add(d.unwrap_or(0)),
        };
        KernelDetails {
            grid: axes(grid),
            block: axes(block),
            lds: int(group).or(shared),
            scratch: int(private),
        }
    }
}

/// `jit_forward_3d_conv(15)` → (`jit_forward_3d_conv`, 15).
pub fn module_key(name: &str) -> (&str, Option<i64>) {
    if let Some(open) = name.rfind('(') {
        if let Some(id) = name[open + 1..].strip_suffix(')') {
            if let Ok(id) = id.parse() {
                return (&name[..open], Some(id));
            }
        }
    }
    (name, None)
}

/// `hlo_instructions`: every module of the metadata plane's `Hlo Proto` stats.
fn add_hlo(trace: &mut RawTrace, space: &SpaceIn) -> Result<(), String> {
    for plane in space.planes.iter().filter(|p| p.name == METADATA_PLANE) {
        let Some(hlo_stat) = plane
            .stat_metadata
            .values()
            .find(|m| m.name == "Hlo Proto")
            .map(|m| m.id)
        else {
            continue;
        };
        let mut entries: Vec<_> = plane.event_metadata.values().collect();
        entries.sort_by_key(|m| m.id);
        for entry in entries {
            let Some(bytes) = (entry.stats.iter())
                .filter(|s| s.metadata_id == hlo_stat)
                .find_map(|s| s.bytes_value.as_deref())
            else {
                continue;
            };
            let proto = hlo::decode(bytes)
                .map_err(|e| invalid(&format!("the HLO proto of {}: {e}", entry.name)))?;
            let Some(module) = proto.hlo_module else {
                continue;
            };
            let (name, program_id) = module_key(&entry.name);
            let mut rows = hlo::instructions(&module, program_id);
            for row in &mut rows {
                row.module = name.to_string();
            }
            trace.native.hlo_instructions.extend(rows);
        }
    }
    Ok(())
}

/// `trace_meta` rows: hostnames, the profile's start and stop (ns since the
/// epoch), and each device plane's stats.
fn metadata(space: &SpaceIn) -> Vec<(String, String)> {
    let mut rows = vec![(
        "hostnames".to_string(),
        Value::from(space.hostnames.clone()).to_string(),
    )];
    for plane in &space.planes {
        let stats = stats_object(plane, &plane.stats);
        if plane.name == TASK_PLANE {
            for key in ["profile_start_time", "profile_stop_time"] {
                if let Some(v) = stats.get(key) {
                    rows.push((key.to_string(), v.to_string()));
                }
            }
            rows.push(("task_environment".into(), Value::Object(stats).to_string()));
        } else if plane.name.starts_with("/device:") {
            let key = plane.name.trim_start_matches('/').to_string();
            rows.push((key, Value::Object(stats).to_string()));
        }
    }
    for (key, list) in [("errors", &space.errors), ("warnings", &space.warnings)] {
        if !list.is_empty() {
            rows.push((key.to_string(), Value::from(list.clone()).to_string()));
        }
    }
    rows
}
