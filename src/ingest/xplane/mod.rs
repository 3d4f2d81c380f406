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
use proto::{XEvent, XLine, XPlane, XSpace, XStat};

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
    let space = decode(&bytes).map_err(|m| fail(Problem::Invalid(m)))?;
    drop(bytes);
    build(path, &space).map_err(|m| fail(Problem::Invalid(m)))
}

/// Decodes an XSpace, or says in one line why `bytes` is not one.
pub fn decode(bytes: &[u8]) -> Result<XSpace, String> {
    let space = XSpace::decode(bytes).map_err(|e| invalid(&e.to_string()))?;
    if space.planes.is_empty() {
        return Err(invalid("the XSpace holds no plane"));
    }
    let known = |p: &XPlane| {
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
fn stat_value(plane: &XPlane, stat: &XStat) -> Option<Value> {
    if let Some(r) = stat.ref_value {
        let name = i64::try_from(r)
            .ok()
            .and_then(|r| plane.stat_metadata.get(&r))
            .map(|m| m.name.clone());
        return Some(name.map_or(Value::Null, Value::from));
    }
    if let Some(s) = &stat.str_value {
        return Some(Value::from(s.as_str()));
    }
    if let Some(v) = stat.int64_value {
        return Some(Value::from(v));
    }
    if let Some(v) = stat.uint64_value {
        return Some(Value::from(v));
    }
    if let Some(v) = stat.double_value {
        return Some(Value::from(v));
    }
    None
}

fn stat_name(plane: &XPlane, id: i64) -> String {
    match plane.stat_metadata.get(&id) {
        Some(m) => m.name.clone(),
        None => format!("stat {id}"),
    }
}

/// A plane's or event's stats as a JSON object, later stats winning.
fn stats_object<'a>(
    plane: &XPlane,
    stats: impl IntoIterator<Item = &'a XStat>,
) -> Map<String, Value> {
    let mut by_id: Vec<(i64, &XStat)> = Vec::new();
    for stat in stats {
        match by_id.iter_mut().find(|(id, _)| *id == stat.metadata_id) {
            Some(slot) => slot.1 = stat,
            None => by_id.push((stat.metadata_id, stat)),
        }
    }
    let mut map = Map::new();
    for (id, stat) in by_id {
        if let Some(value) = stat_value(plane, stat) {
            map.insert(stat_name(plane, id), value);
        }
    }
    map
}

/// An integer stat (correlation_id, program_id), whatever its integer type.
fn int_of(v: Option<&Value>) -> Option<i64> {
    let v = v?;
    v.as_i64().or_else(|| v.as_u64().map(|u| u as i64))
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v?.as_str().map(str::to_string)
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

fn tid_of(line: &XLine) -> u32 {
    let id = if line.display_id != 0 {
        line.display_id
    } else {
        line.id
    };
    id as u32
}

fn thread_name(line: &XLine) -> &str {
    if line.display_name.is_empty() {
        &line.name
    } else {
        &line.display_name
    }
}

/// The pid of each plane that makes events (None for the others).
fn plane_pids(space: &XSpace) -> Vec<Option<u32>> {
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
pub fn build(path: &str, space: &XSpace) -> Result<RawTrace, String> {
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
            for (e, event) in line.events.iter().enumerate() {
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
    for item in &pending {
        let plane = &space.planes[item.plane];
        let line = &plane.lines[item.line];
        add_event(&mut trace, plane, line, &line.events[item.event], item)?;
    }
    add_hlo(&mut trace, space)?;
    trace.metadata = metadata(space);
    trace.shrink_to_fit();
    Ok(trace)
}

/// What a GPU-plane event is (§C.6), from its line and name.
fn gpu_kind(line: &XLine, name: &str) -> (EventKind, &'static str) {
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

fn add_event(
    trace: &mut RawTrace,
    plane: &XPlane,
    line: &XLine,
    event: &XEvent,
    at: &Pending,
) -> Result<(), String> {
    let metadata = plane.event_metadata.get(&event.metadata_id);
    let name = metadata.map_or("", |m| m.name.as_str());
    let meta_stats = metadata.map(|m| m.stats.as_slice()).unwrap_or_default();
    let args = stats_object(plane, meta_stats.iter().chain(&event.stats));
    let correlation = int_of(args.get("correlation_id"));
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
    let args_text = serde_json::to_string(&args).map_err(|e| e.to_string())?;
    let (pid_text, tid_text) = (at.pid.to_string(), at.tid.to_string());
    let on_stream = kind.is_gpu();
    let ev = Event {
        ph: Some("X".into()),
        cat: Some(cat.into()),
        name: Some(name.into()),
        pid: Some(pid_text.as_str().into()),
        tid: Some(tid_text.as_str().into()),
        ts: Some(at.start_ps as f64 / 1e6),
        dur: Some(at.dur_ps as f64 / 1e6),
        fractional_time: true,
        args: Some(&args_text),
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
            let details = text_of(args.get("kernel_details"));
            let parsed = KernelDetails::parse(details.as_deref().unwrap_or(""));
            let mut text = |key: &str| trace.intern(args.get(key).and_then(Value::as_str));
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
                program_id: int_of(args.get("program_id")),
                tf_op,
                name_scope,
                kernel_details,
                ..Dispatch::default()
            });
        }
        EventKind::Memcpy => {
            let details = text_of(args.get("memcpy_details"));
            let bytes = details.as_deref().and_then(|d| field(d, "size:"));
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
                device_id: int_of(args.get("device_id")),
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
        let axes = |v: Option<&str>| {
            let mut out = [None; 3];
            if let Some(v) = v {
                for (slot, part) in out.iter_mut().zip(v.split(',')) {
                    *slot = part.trim().parse().ok();
                }
            }
            out
        };
        let int = |key| field(text, key).and_then(|v| v.parse::<i64>().ok());
        let shared = match (int("static_shared:"), int("dynamic_shared:")) {
            (None, None) => None,
            (s, d) => s.unwrap_or(0).checked_add(d.unwrap_or(0)),
        };
        KernelDetails {
            grid: axes(field(text, "grid:")),
            block: axes(field(text, "block:")),
            lds: int("group_mem:").or(shared),
            scratch: int("private_mem:"),
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
fn add_hlo(trace: &mut RawTrace, space: &XSpace) -> Result<(), String> {
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
            let proto = hlo::HloProto::decode(bytes)
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
fn metadata(space: &XSpace) -> Vec<(String, String)> {
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
