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

use super::chunks::{self, CHUNK};
use super::kineto::decode::Event;
use super::native::{ApiCall, Dispatch, MemoryCopy, SourceFormat};
use super::trace::{EventKind, FxMap, RawTrace};
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

    /// The stats as a JSON object's text, into `out`.
    fn write_json(&self, out: &mut Vec<u8>) {
        out.clear();
        out.push(b'{');
        for (i, (name, value)) in self.named.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Writing a str into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, name.as_ref());
            out.push(b':');
            write_scalar(out, *value);
        }
        out.push(b'}');
    }
}

/// One stat value as JSON, as serde_json writes it.
fn write_scalar(out: &mut Vec<u8>, value: Scalar) {
    // Writing a str or a number into a Vec cannot fail.
    match value {
        Scalar::Text(s) => {
            let _ = serde_json::to_writer(&mut *out, s);
        }
        Scalar::Int(v) => out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes()),
        Scalar::Uint(v) => out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes()),
        // serde_json writes a non-finite double as null, as its Value holds one.
        Scalar::Double(v) => {
            let _ = serde_json::to_writer(&mut *out, &v);
        }
        Scalar::Null => out.extend_from_slice(b"null"),
    }
}

/// The stats the tables read, by name (a plane may lack any of them).
#[derive(Clone, Copy)]
enum Key {
    CorrelationId,
    ProgramId,
    DeviceId,
    KernelDetails,
    MemcpyDetails,
    HloModule,
    HloOp,
    TfOp,
    Name,
}

impl Key {
    const ALL: [Key; 9] = [
        Key::CorrelationId,
        Key::ProgramId,
        Key::DeviceId,
        Key::KernelDetails,
        Key::MemcpyDetails,
        Key::HloModule,
        Key::HloOp,
        Key::TfOp,
        Key::Name,
    ];

    fn name(self) -> &'static str {
        match self {
            Key::CorrelationId => "correlation_id",
            Key::ProgramId => "program_id",
            Key::DeviceId => "device_id",
            Key::KernelDetails => "kernel_details",
            Key::MemcpyDetails => "memcpy_details",
            Key::HloModule => "hlo_module",
            Key::HloOp => "hlo_op",
            Key::TfOp => "tf_op",
            Key::Name => "name",
        }
    }
}

/// What every event of one plane shares, resolved once per plane instead of
/// once per event: the plane's role, its stat names ranked in name order (an
/// event's stats then sort and merge by integer, and their keys are written
/// escaped already), and each event metadata's name and stats.
struct PlaneView<'a> {
    plane: &'a PlaneIn,
    role: Role,
    /// Stat metadata id → the rank of its name among the plane's names.
    rank: FxMap<i64, u32>,
    /// By rank: the name as a JSON string.
    keys: Vec<String>,
    /// By [`Key`]: its rank, where the plane names it.
    wanted: [Option<u32>; Key::ALL.len()],
    /// Event metadata id → its name and stats.
    events: FxMap<i64, (&'a str, Vec<StatRef<'a>>)>,
}

impl<'a> PlaneView<'a> {
    fn new(plane: &'a PlaneIn) -> PlaneView<'a> {
        let mut names: Vec<&str> = plane
            .stat_metadata
            .values()
            .map(|m| m.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        let rank_of = |name: &str| names.binary_search(&name).ok().map(|r| r as u32);
        let rank = (plane.stat_metadata.iter())
            .filter_map(|(&id, m)| Some((id, rank_of(&m.name)?)))
            .collect();
        let wanted = Key::ALL.map(|key| rank_of(key.name()));
        let keys = (names.iter())
            .map(|n| serde_json::to_string(n).unwrap_or_default())
            .collect();
        let events = (plane.event_metadata.iter())
            .map(|(&id, m)| {
                (
                    id,
                    (m.name.as_str(), m.stats.iter().map(StatRef::from).collect()),
                )
            })
            .collect();
        PlaneView {
            plane,
            role: role(&plane.name),
            rank,
            keys,
            wanted,
            events,
        }
    }
}

/// One event's stats: by rank in the usual case, by name (as [`Stats::new`])
/// where a stat's id is not in the plane's metadata (it is then called
/// `stat <id>`, which has no rank).
enum EventStats<'s, 'a> {
    Ranked(&'s PlaneView<'a>, &'s [(u32, Scalar<'a>)]),
    Named(Stats<'a>),
}

impl<'a> EventStats<'_, 'a> {
    fn get(&self, key: Key) -> Option<Scalar<'a>> {
        match self {
            EventStats::Ranked(view, stats) => {
                let rank = view.wanted[key as usize]?;
                stats.iter().find(|(r, _)| *r == rank).map(|(_, v)| *v)
            }
            EventStats::Named(stats) => stats.get(key.name()),
        }
    }

    /// An integer stat (correlation_id, program_id), whatever its integer type.
    fn int(&self, key: Key) -> Option<i64> {
        match self.get(key)? {
            Scalar::Int(v) => Some(v),
            Scalar::Uint(v) => Some(v as i64),
            _ => None,
        }
    }

    fn text(&self, key: Key) -> Option<&'a str> {
        match self.get(key)? {
            Scalar::Text(s) => Some(s),
            _ => None,
        }
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        let EventStats::Ranked(view, stats) = self else {
            if let EventStats::Named(stats) = self {
                stats.write_json(out);
            }
            return;
        };
        out.clear();
        out.push(b'{');
        for (i, (rank, value)) in stats.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(view.keys[*rank as usize].as_bytes());
            out.push(b':');
            write_scalar(out, *value);
        }
        out.push(b'}');
    }
}

/// `stats` by rank into `out`, with [`Stats::new`]'s rules: a later stat of
/// an id replaces the earlier in place; of two ids with one name, the one
/// seen later wins; bytes stats are left out. False where a stat's id has no
/// name in the plane.
fn rank_stats<'a>(
    view: &PlaneView<'a>,
    stats: &[StatRef<'a>],
    by_id: &mut Vec<(i64, usize)>,
    out: &mut Vec<(u32, Scalar<'a>)>,
) -> bool {
    by_id.clear();
    for (i, stat) in stats.iter().enumerate() {
        match by_id.iter_mut().find(|(id, _)| *id == stat.metadata_id) {
            Some(slot) => slot.1 = i,
            None => by_id.push((stat.metadata_id, i)),
        }
    }
    out.clear();
    for &(id, i) in by_id.iter() {
        let Some(&rank) = view.rank.get(&id) else {
            return false;
        };
        if let Some(value) = stat_scalar(view.plane, &stats[i]) {
            out.push((rank, value));
        }
    }
    // Stable: among equal ranks the later stays last, and is kept.
    out.sort_by_key(|(rank, _)| *rank);
    let mut kept = 0;
    for i in 0..out.len() {
        if kept > 0 && out[kept - 1].0 == out[i].0 {
            out[kept - 1] = out[i];
        } else {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
    true
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

/// One event to emit, read, with its sort key and where it lies.
struct Pending<'a> {
    pid: u32,
    tid: u32,
    start_ps: i64,
    dur_ps: i64,
    /// Index into the planes' views.
    plane: usize,
    line: &'a LineIn,
    event: EventIn<'a>,
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
    build_with(path, space, None)
}

/// The load of `path` (decoded, then built with the stats read on as many
/// threads as its size calls for) and a build of the same decoded space with
/// the stats read on a second thread, whatever its size, each as everything
/// it builds or its error's text: for the fuzz target, which asks that both
/// agree.
pub fn load_both_ways(path: &str) -> [Result<String, String>; 2] {
    let loaded = load(path).map(|trace| super::dump::everything(&trace));
    let fail = |problem| IngestError::new(path, problem).to_string();
    let two_threads = source::read_all(path)
        .map_err(fail)
        .and_then(|bytes| match bytes.is_empty() {
            true => Err(fail(Problem::EmptyFile)),
            false => decode_owned(bytes).map_err(|m| fail(Problem::Invalid(m))),
        })
        .and_then(|space| {
            build_with(path, &space, Some(true)).map_err(|m| fail(Problem::Invalid(m)))
        });
    [
        loaded.map_err(|e| e.to_string()),
        two_threads.map(|trace| super::dump::everything(&trace)),
    ]
}

/// [`build`], reading the stats on two threads or not as `two_threads` says
/// (None: by the number of events).
fn build_with(path: &str, space: &SpaceIn, two_threads: Option<bool>) -> Result<RawTrace, String> {
    let mut trace = RawTrace::new(path);
    trace.hold_all_args = true;
    trace.native.format = SourceFormat::Jax;
    let pids = plane_pids(space);
    let host = space.hostnames.first().map(String::as_str);
    let mut views = Vec::new();
    let mut pending = Vec::new();
    // Kernels, counted to size their rows once.
    let mut kernels = 0;
    for (p, plane) in space.planes.iter().enumerate() {
        let Some(pid) = pids[p] else { continue };
        if plane.lines.is_empty() {
            continue;
        }
        let view = views.len();
        views.push(PlaneView::new(plane));
        let pid_text = pid.to_string();
        let process = match host {
            Some(h) if !h.is_empty() => format!("{h} {}", plane.name),
            _ => plane.name.clone(),
        };
        let pid_id = trace.strings.intern(&pid_text);
        trace.process_names.insert(pid_id, process);
        for line in &plane.lines {
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
            let on_gpu = matches!(views[view].role, Role::Gpu(_));
            for bytes in &line.events {
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
                if on_gpu {
                    let name = views[view].events.get(&event.metadata_id);
                    let kind = gpu_kind(line, name.map_or("", |m| m.0)).0;
                    kernels += usize::from(kind == EventKind::Kernel);
                }
                pending.push(Pending {
                    pid,
                    tid,
                    start_ps,
                    dur_ps: event.duration_ps,
                    plane: view,
                    line,
                    event,
                });
            }
        }
    }
    // Stable: the file order breaks the remaining ties.
    pending.sort_by_key(|e| (e.pid, e.tid, e.start_ps, Reverse(e.dur_ps)));
    // Sized once: a kernel row is half a kilobyte, and growing the vectors
    // copies them.
    trace.reserve(pending.len());
    trace.native.dispatches.reserve_exact(kernels);
    let two_threads = two_threads.unwrap_or(chunks::worth_two_threads(pending.len()));
    add_events(&mut trace, &views, &pending, two_threads)?;
    add_hlo(&mut trace, space)?;
    trace.metadata = metadata(space);
    trace.shrink_to_fit();
    Ok(trace)
}

/// Whether `text` starts with `prefix`, ASCII case ignored.
fn starts_with_ignoring_case(text: &str, prefix: &str) -> bool {
    (text.as_bytes().get(..prefix.len()))
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// What a GPU-plane event is (§C.6), from its line and name.
fn gpu_kind(line: &LineIn, name: &str) -> (EventKind, &'static str) {
    if !line.name.starts_with("Stream") {
        return (EventKind::Other, "Unknown");
    }
    let starts = |prefix| starts_with_ignoring_case(name, prefix);
    if starts("copy") || starts("memcpy") {
        (EventKind::Memcpy, "memcpy")
    } else if starts("memset") {
        (EventKind::Memset, "memset")
    } else {
        (EventKind::Kernel, "kernel")
    }
}

/// What an event's stats say, read before the event is pushed: this part
/// of the work borrows only the space, so two threads can share it.
struct Prepared<'a> {
    kind: EventKind,
    cat: &'static str,
    name: &'a str,
    /// n of `/device:GPU:n`.
    gpu: Option<i64>,
    /// The args JSON: a range of its chunk's `args`.
    args: std::ops::Range<usize>,
    correlation: Option<i64>,
    /// For kernels, memory copies and launches: what their rows take.
    details: KernelDetails,
    /// hlo_module, hlo_op, tf_op, name and kernel_details.
    texts: [Option<&'a str>; 5],
    program_id: Option<i64>,
    device_id: Option<i64>,
    copy_bytes: Option<i64>,
}

/// A chunk of events read: those before the first that failed (`error`).
#[derive(Default)]
struct Chunk<'a> {
    args: String,
    events: Vec<Prepared<'a>>,
    error: Option<String>,
}

/// Buffers reused from one event to the next.
#[derive(Default)]
struct Scratch<'a> {
    args: Vec<u8>,
    stats: Vec<StatRef<'a>>,
    by_id: Vec<(i64, usize)>,
    ranked: Vec<(u32, Scalar<'a>)>,
}

/// Pushes every pending event, in order; with `two_threads`, their stats
/// are read on a second thread ([`chunks::read_and_apply`]). The result, and
/// the first error, are those of reading them here one by one.
fn add_events<'a>(
    trace: &mut RawTrace,
    views: &[PlaneView<'a>],
    pending: &[Pending<'a>],
    two_threads: bool,
) -> Result<(), String> {
    let agents: Vec<Option<u32>> = (views.iter())
        .map(|v| trace.intern(Some(&v.plane.name)))
        .collect();
    let mut recent = [0u32; 5];
    chunks::read_and_apply(
        pending.chunks(CHUNK),
        two_threads,
        |scratch, items| prepare(views, items, scratch),
        |items, chunk| push_chunk(trace, &agents, items, &chunk, &mut recent),
    )
}

/// Reads the stats of `items` until one fails.
fn prepare<'a>(
    views: &[PlaneView<'a>],
    items: &[Pending<'a>],
    scratch: &mut Scratch<'a>,
) -> Chunk<'a> {
    let mut chunk = Chunk {
        events: Vec::with_capacity(items.len()),
        ..Chunk::default()
    };
    for item in items {
        match prepare_event(&views[item.plane], item, scratch, &mut chunk.args) {
            Ok(event) => chunk.events.push(event),
            Err(e) => {
                chunk.error = Some(e);
                break;
            }
        }
    }
    chunk
}

fn prepare_event<'a>(
    view: &PlaneView<'a>,
    at: &Pending<'a>,
    scratch: &mut Scratch<'a>,
    args_out: &mut String,
) -> Result<Prepared<'a>, String> {
    let Scratch {
        args: args_buf,
        stats,
        by_id,
        ranked,
    } = scratch;
    let metadata = view.events.get(&at.event.metadata_id);
    let name = metadata.map_or("", |m| m.0);
    stats.clear();
    if let Some((_, shared)) = metadata {
        stats.extend_from_slice(shared);
    }
    at.event.stats(stats).map_err(|m| invalid(&m))?;
    let args = if rank_stats(view, stats, by_id, ranked) {
        EventStats::Ranked(view, ranked)
    } else {
        EventStats::Named(Stats::new(view.plane, stats))
    };
    let correlation = args.int(Key::CorrelationId);
    let (kind, cat) = match view.role {
        Role::Gpu(_) => gpu_kind(at.line, name),
        Role::Host if correlation.is_some() => (EventKind::Runtime, "launch"),
        Role::Host => (EventKind::Other, "host"),
        _ => (EventKind::Other, "Unknown"),
    };
    args.write_json(args_buf);
    // Written from `&str`s and numbers by serde_json and itoa: UTF-8.
    let text = std::str::from_utf8(args_buf).map_err(|e| e.to_string())?;
    let begin = args_out.len();
    args_out.push_str(text);
    let mut prepared = Prepared {
        kind,
        cat,
        name,
        gpu: match view.role {
            Role::Gpu(n) => Some(n),
            _ => None,
        },
        args: begin..args_out.len(),
        correlation,
        details: KernelDetails::default(),
        texts: [None; 5],
        program_id: None,
        device_id: None,
        copy_bytes: None,
    };
    match kind {
        EventKind::Kernel => {
            let details = args.text(Key::KernelDetails);
            prepared.details = KernelDetails::parse(details.unwrap_or(""));
            let keys = [Key::HloModule, Key::HloOp, Key::TfOp, Key::Name];
            for (text, key) in prepared.texts.iter_mut().zip(keys) {
                *text = args.text(key);
            }
            prepared.texts[4] = details;
            prepared.program_id = args.int(Key::ProgramId);
        }
        EventKind::Memcpy => {
            let bytes = (args.text(Key::MemcpyDetails)).and_then(|d| field(d, "size:"));
            prepared.copy_bytes = bytes.and_then(|b| b.parse().ok());
        }
        EventKind::Runtime => prepared.device_id = args.int(Key::DeviceId),
        _ => {}
    }
    Ok(prepared)
}

/// Pushes a chunk's events, then fails with its error if it has one.
fn push_chunk(
    trace: &mut RawTrace,
    agents: &[Option<u32>],
    items: &[Pending],
    chunk: &Chunk,
    recent: &mut [u32; 5],
) -> Result<(), String> {
    for (item, prepared) in items.iter().zip(&chunk.events) {
        let args = &chunk.args[prepared.args.clone()];
        push_event(trace, agents[item.plane], item, prepared, args, recent)?;
    }
    match &chunk.error {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

/// Pushes one event and its native row; `recent` holds the last id each of
/// a dispatch's texts was interned as (they mostly repeat).
fn push_event(
    trace: &mut RawTrace,
    agent: Option<u32>,
    at: &Pending,
    prepared: &Prepared,
    args: &str,
    recent: &mut [u32; 5],
) -> Result<(), String> {
    let (line, kind, correlation) = (at.line, prepared.kind, prepared.correlation);
    let gpu = prepared.gpu;
    let (mut pid, mut tid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let (pid_text, tid_text) = (pid.format(at.pid), tid.format(at.tid));
    let on_stream = kind.is_gpu();
    let ev = Event {
        ph: Some("X".into()),
        cat: Some(prepared.cat.into()),
        name: Some(prepared.name.into()),
        pid: Some(pid_text.into()),
        tid: Some(tid_text.into()),
        ts: Some(at.start_ps as f64 / 1e6),
        dur: Some(at.dur_ps as f64 / 1e6),
        fractional_time: true,
        args: Some(args),
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
            let strings = &mut trace.strings;
            let [hlo_module, hlo_op, tf_op, name_scope, kernel_details] =
                std::array::from_fn(|i| {
                    (prepared.texts[i]).map(|text| strings.intern_near(&mut recent[i], text))
                });
            let parsed = &prepared.details;
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
                program_id: prepared.program_id,
                tf_op,
                name_scope,
                kernel_details,
                ..Dispatch::default()
            });
        }
        EventKind::Memcpy => {
            trace.native.memory_copies.push(MemoryCopy {
                uid,
                name: trace.name.get(uid as usize),
                begin_ns: ns(begin_ps),
                end_ns: ns(end_ps),
                bytes: prepared.copy_bytes,
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
                device_id: prepared.device_id,
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
        // One pass over the tokens; the first token of each key counts. As
        // JAX writes it, ASCII: split without decoding characters.
        let mut found: [Option<&str>; 6] = [None; 6];
        let (mut ascii, mut other) = match text.is_ascii() {
            true => (Some(text.split_ascii_whitespace()), None),
            false => (None, Some(text.split_whitespace())),
        };
        let tokens = std::iter::from_fn(|| match (&mut ascii, &mut other) {
            (Some(tokens), _) => tokens.next(),
            (_, Some(tokens)) => tokens.next(),
            _ => None,
        });
        for (slot, value) in tokens.filter_map(detail_slot) {
            found[slot].get_or_insert(value);
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

/// Which of [`KernelDetails::parse`]'s keys a `key:value` token holds (its
/// key runs to its first colon), and the value.
fn detail_slot(token: &str) -> Option<(usize, &str)> {
    let colon = token.bytes().position(|b| b == b':')?;
    let slot = match &token[..colon] {
        "grid" => 0,
        "block" => 1,
        "group_mem" => 2,
        "private_mem" => 3,
        "static_shared" => 4,
        "dynamic_shared" => 5,
        _ => return None,
    };
    Some((slot, &token[colon + 1..]))
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
