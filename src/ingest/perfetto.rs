//! Perfetto-style JSON: a rocprofv3 `.pftrace` exported to JSON by traceconv
//! (`traceconv json`), or any Chrome-trace JSON whose slices carry rocprofv3's
//! annotations (spec formats.md §B.1–B.3).
//!
//! The document is a Chrome trace like Kineto's, so the Kineto reader reads
//! it (holding every event's args). What differs is what the events mean:
//! the category says what a slice is (`hip_api`, `kernel_dispatch`,
//! `memory_copy`, ...) and the args carry the facts (`begin_ns`, `corr_id`,
//! `agent`, `grid_size`, ...). [`annotate`] reads those args once, gives each
//! event its kind (so API calls link to their kernels by correlation id, as
//! Kineto launches do) and fills the native tables with the values as written:
//! TraceLens's parsing rules (two time extractors, first-seen agent order) are
//! SQL over them.

use std::borrow::Cow;

use serde::Deserializer as _;
use serde_json::value::RawValue;

use super::chunks::{self, CHUNK};
use super::kineto::{self, fast, ReadOptions};
use super::native::{ApiCall, Dispatch, MemoryCopy, SourceFormat};
use super::trace::{EventKind, FxMap, RawTrace};
use super::{source, IngestError, Problem};

/// Reads the Perfetto-style JSON trace at `path`. A trace with no events is an
/// empty run, not an error: its reports are empty sheets.
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let options = ReadOptions {
        read_ahead: true,
        chunk: source::CHUNK,
        hold_all_args: true,
    };
    let mut trace = match kineto::load_with_options(path, &options) {
        Ok((trace, _)) => trace,
        Err(e) if matches!(e.problem, Problem::NoEvents) => {
            let mut empty = RawTrace::new(path);
            empty.hold_all_args = true;
            empty
        }
        Err(e) => return Err(e),
    };
    crate::timing::timed("  annotate (Perfetto args)", || annotate(&mut trace));
    Ok(trace)
}

/// The load of `path` (its args scanned on a second thread, whatever the
/// trace's size) and the same read annotated on this thread alone with the
/// args read by serde, each as everything it builds or its error's text: for
/// the fuzz target, which asks that both agree.
pub fn load_both_ways(path: &str) -> [Result<String, String>; 2] {
    let read_once = |two_threads, how| {
        let options = ReadOptions {
            read_ahead: false,
            chunk: source::CHUNK,
            hold_all_args: true,
        };
        let (mut trace, _) = kineto::load_with_options(path, &options)?;
        annotate_with(&mut trace, two_threads, how);
        Ok::<_, IngestError>(trace)
    };
    [read_once(true, Fill::Scan), read_once(false, Fill::Serde)].map(|outcome| {
        (outcome.map(|trace| super::dump::everything(&trace))).map_err(|e| e.to_string())
    })
}

/// How TraceLens's pftrace reports see an event, from its category and name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Kernel,
    Copy,
    Api,
    Other,
}

fn role(cat: &str, name: &str) -> Role {
    let cat_lower = cat.trim().to_ascii_lowercase();
    let name_lower = name.to_ascii_lowercase();
    if cat_lower == "memory_copy" {
        return Role::Copy;
    }
    let kernel_cat = ["kernel_dispatch", "gpu_activity", "kernel"]
        .iter()
        .any(|k| cat_lower.contains(k));
    if kernel_cat || name_lower.ends_with(".kd") || name_lower.contains(".kd ") {
        return Role::Kernel;
    }
    if cat_lower.ends_with("_api") || cat_lower == "cupti" {
        return Role::Api;
    }
    Role::Other
}

/// Gives every event its kind and fills `trace.native` from the args.
pub fn annotate(trace: &mut RawTrace) {
    let two_threads = chunks::worth_two_threads(trace.len());
    annotate_with(trace, two_threads, Fill::Scan);
}

/// [`annotate`]. With `two_threads`, a second thread reads the args of the
/// events that carry any ([`chunks::read_and_apply`]) while this one applies
/// them in order: the same result as reading them here, which reading the
/// args cannot change (they are held apart from the columns being set).
/// `how`: how each event's args are read.
fn annotate_with(trace: &mut RawTrace, two_threads: bool, how: Fill) {
    trace.native.format = SourceFormat::Pftrace;
    // Read in place while the trace's columns are updated: taken out for the
    // pass and put back after.
    let held = std::mem::take(&mut trace.held_args);
    let mut pass = Pass::default();
    // An event's role depends only on its category and name, which applying
    // leaves as they are: found first for every event.
    let todo: Vec<(usize, Classified)> = (0..trace.len())
        .filter_map(|uid| {
            // The end of a begin/end pair carries nothing of its own.
            if matches!(trace.str(trace.ph.get(uid)), Some("e" | "E" | "M")) {
                return None;
            }
            let role = pass.role(trace, uid);
            (role.kind != Role::Other).then_some((uid, role))
        })
        .collect();
    let read = |_: &mut (), events: &[(usize, Classified)]| -> Vec<Slots> {
        (events.iter())
            .map(|&(uid, _)| {
                let mut slots = Slots::default();
                slots.fill(held.get(uid).unwrap_or("{}"), how);
                slots
            })
            .collect()
    };
    let apply = |events: &[(usize, Classified)], slots: Vec<Slots>| {
        for (&(uid, role), slots) in events.iter().zip(&slots) {
            pass.apply(trace, uid, role, &Args(slots));
        }
        Ok::<(), std::convert::Infallible>(())
    };
    let Ok(()) = chunks::read_and_apply(todo.chunks(CHUNK), two_threads, read, apply);
    trace.held_args = held;
}

/// What a slice is, with the kind its event gets.
#[derive(Clone, Copy)]
struct Classified {
    kind: Role,
    event: EventKind,
}

/// State carried across the events of one [`annotate`] pass.
#[derive(Default)]
struct Pass {
    /// Each (category, name) pair's role: a trace has a few dozen.
    roles: FxMap<(Option<u32>, Option<u32>), Classified>,
    /// Each distinct agent's index in first-seen order: the device a kernel's
    /// `kernels.device` gets without an explicit device id (TraceLens's DevId;
    /// "Agent-2" written first is device 0).
    agent_index: FxMap<u32, i64>,
}

impl Pass {
    fn role(&mut self, trace: &RawTrace, uid: usize) -> Classified {
        let key = (trace.cat.get(uid), trace.name.get(uid));
        *self.roles.entry(key).or_insert_with(|| {
            let cat = trace.str(key.0).unwrap_or("");
            let kind = role(cat, trace.str(key.1).unwrap_or(""));
            let event = match kind {
                Role::Kernel => EventKind::Kernel,
                Role::Copy => EventKind::Memcpy,
                Role::Api
                    if matches!(cat.to_ascii_lowercase().as_str(), "hip_api" | "cuda_api") =>
                {
                    EventKind::Runtime
                }
                _ => EventKind::Other,
            };
            Classified { kind, event }
        })
    }

    fn apply(&mut self, trace: &mut RawTrace, uid: usize, role: Classified, a: &Args) {
        let (begin, end, delta) = (a.int(Key::BeginNs), a.int(Key::EndNs), a.int(Key::DeltaNs));
        let corr = [
            Key::CorrId,
            Key::CorrelationId,
            Key::CorrelationIdCamel,
            Key::CorrIdPascal,
        ]
        .iter()
        .find_map(|&k| a.int(k));
        let thread_id = a.int(Key::Tid);
        // Slices exported as begin/end pairs have no `dur`: take it from the
        // annotations, so that `kernels` and the timelines see them.
        if trace.dur.get(uid).is_none() {
            // The difference only without `delta_ns`, and only where it fits
            // (the args are the file's: `end_ns` may be anything).
            if let Some(d) = delta.or_else(|| begin.zip(end).and_then(|(b, e)| e.checked_sub(b))) {
                trace.dur.set(uid, Some(d as f64 / 1000.0));
            }
        }
        if corr.is_some() {
            trace.correlation.set(uid, corr);
        }
        trace.kind[uid] = role.event;
        let uid32 = uid as u32;
        let name = trace.name.get(uid);
        let stream_id = a.int(Key::Stream).or(a.int(Key::StreamId));
        match role.kind {
            Role::Kernel => {
                let agent = trace.intern(a.truthy_text(Key::Agent).as_deref());
                let next = self.agent_index.len() as i64;
                let index = agent.map(|a| *self.agent_index.entry(a).or_insert(next));
                trace.device.set(uid, a.device_id().or(index));
                if let Some(stream) = stream_id.or(a.int(Key::Queue)) {
                    trace.stream.set(uid, Some(stream));
                }
                trace.native.dispatches.push(Dispatch {
                    uid: uid32,
                    name,
                    name_full: name,
                    agent,
                    queue_id: a.int(Key::Queue),
                    stream_id,
                    kernel_id: a.int(Key::KernelId),
                    corr_id: corr,
                    thread_id,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    grid_size: a.int(Key::GridSize),
                    workgroup_size: a.int(Key::WorkgroupSize),
                    lds: a.int(Key::LdsBlockSize).or(a.int(Key::GroupSegmentSize)),
                    scratch: a.int(Key::ScratchSize).or(a.int(Key::PrivateSegmentSize)),
                    vgpr: a.int(Key::VgprCount),
                    accum_vgpr: a.int(Key::AccumVgprCount),
                    sgpr: a.int(Key::SgprCount),
                    device_id: a.device_id(),
                    ..Dispatch::default()
                });
            }
            Role::Copy => {
                // Only agents kernels have named before this copy have an index.
                let index = |key| {
                    let agent = a.truthy_text(key)?;
                    let id = trace.strings.lookup(&agent)?;
                    self.agent_index.get(&id).copied()
                };
                if let Some(device) = index(Key::DstAgent).or_else(|| index(Key::SrcAgent)) {
                    trace.device.set(uid, Some(device));
                }
                let src_agent = trace.intern(a.text(Key::SrcAgent).as_deref());
                let dst_agent = trace.intern(a.text(Key::DstAgent).as_deref());
                trace.native.memory_copies.push(MemoryCopy {
                    uid: uid32,
                    name,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    bytes: a.int(Key::CopyBytes),
                    src_agent,
                    dst_agent,
                    corr_id: corr,
                    stream_id,
                    thread_id,
                });
            }
            Role::Api => {
                let agent = trace.intern(a.truthy_text(Key::Agent).as_deref());
                trace.native.api_calls.push(ApiCall {
                    uid: uid32,
                    domain: trace.cat.get(uid),
                    name,
                    thread_id,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    corr_id: corr,
                    kind: a.int(Key::Kind),
                    operation: a.int(Key::Operation),
                    device_id: a.device_id(),
                    agent,
                    stream_id: a.int(Key::StreamIdUpper),
                });
            }
            Role::Other => {}
        }
    }
}

/// The args keys the reports read, as slots of [`Slots`].
#[derive(Clone, Copy)]
enum Key {
    BeginNs,
    EndNs,
    DeltaNs,
    CorrId,
    CorrelationId,
    CorrelationIdCamel,
    CorrIdPascal,
    Tid,
    Agent,
    Stream,
    StreamId,
    StreamIdUpper,
    Queue,
    KernelId,
    GridSize,
    WorkgroupSize,
    LdsBlockSize,
    GroupSegmentSize,
    ScratchSize,
    PrivateSegmentSize,
    VgprCount,
    AccumVgprCount,
    SgprCount,
    CopyBytes,
    SrcAgent,
    DstAgent,
    Kind,
    Operation,
    DeviceId,
    DeviceIdCamel,
    DevId,
    DevIdPascal,
    GpuId,
    GpuIdCamel,
}

/// Each [`Key`]'s name in the args, in the enum's order.
const KEY_NAMES: [&str; 34] = [
    "begin_ns",
    "end_ns",
    "delta_ns",
    "corr_id",
    "correlation_id",
    "correlationId",
    "CorrId",
    "tid",
    "agent",
    "stream",
    "stream_id",
    "stream_ID",
    "queue",
    "kernel_id",
    "grid_size",
    "workgroup_size",
    "LDS_Block_Size",
    "group_segment_size",
    "Scratch_Size",
    "private_segment_size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
    "copy_bytes",
    "src_agent",
    "dst_agent",
    "kind",
    "operation",
    "device_id",
    "deviceId",
    "dev_id",
    "DevId",
    "gpu_id",
    "gpuId",
];

/// TraceLens's keys of an explicit device id, in the order it tries them.
const DEVICE_KEYS: [Key; 6] = [
    Key::DeviceId,
    Key::DeviceIdCamel,
    Key::DevId,
    Key::DevIdPascal,
    Key::GpuId,
    Key::GpuIdCamel,
];

/// One event's values of the [`Key`]s, raw JSON text borrowed from the args
/// (None: absent). Filled in one pass over the args object: other keys are
/// skipped unread, and a duplicated key keeps its last value, as Python's dict
/// does.
struct Slots<'h> {
    raw: [Option<&'h str>; KEY_NAMES.len()],
}

impl Default for Slots<'_> {
    fn default() -> Self {
        Slots {
            raw: [None; KEY_NAMES.len()],
        }
    }
}

/// How [`Slots`] are filled from an args text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fill {
    /// [`Slots::scan`], serde for what it leaves.
    Scan,
    /// serde alone: the reference the scan must equal.
    Serde,
}

impl<'h> Slots<'h> {
    /// Reads `args` (an object's JSON text); a malformed one leaves every slot
    /// empty, as TraceLens's reports see no value there either.
    fn fill(&mut self, args: &'h str, how: Fill) {
        if how == Fill::Serde || self.scan(args).is_none() {
            self.fill_with_serde(args);
        }
    }

    fn fill_with_serde(&mut self, args: &'h str) {
        self.raw = [None; KEY_NAMES.len()];
        let mut de = serde_json::Deserializer::from_str(args);
        if de.deserialize_map(SlotVisitor(&mut self.raw)).is_err() {
            self.raw = [None; KEY_NAMES.len()];
        }
    }

    /// [`Slots::fill`] by one scan of the object's top-level keys and the
    /// extents of their values, for args the Kineto reader holds: it checked
    /// them as well-formed JSON objects, so the scan only finds where each
    /// value ends. It does serde's work in about a third of the time (a
    /// profile of the Perfetto load). None, leaving the slots to serde, for
    /// a key written with an escape (which serde decodes) or any text it does
    /// not expect.
    fn scan(&mut self, args: &'h str) -> Option<()> {
        self.raw = [None; KEY_NAMES.len()];
        let b = args.as_bytes();
        let mut i = skip_space(b, 0);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i = skip_space(b, i + 1);
        if b.get(i) == Some(&b'}') {
            return only_space_after(b, i + 1);
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = fast::plain_run(b, i + 1);
            let key_end = key_end
                + b.get(key_end..)?
                    .iter()
                    .position(|&c| c == b'"' || c == b'\\')?;
            if b[key_end] != b'"' {
                return None;
            }
            let slot = key_slot(&b[i + 1..key_end]);
            i = skip_space(b, key_end + 1);
            if b.get(i) != Some(&b':') {
                return None;
            }
            let start = skip_space(b, i + 1);
            let end = value_end(b, start)?;
            if let Some(slot) = slot {
                self.raw[slot] = Some(args.get(start..end)?);
            }
            i = skip_space(b, end);
            match *b.get(i)? {
                b',' => i = skip_space(b, i + 1),
                b'}' => return only_space_after(b, i + 1),
                _ => return None,
            }
        }
    }

    fn get(&self, key: Key) -> Option<&'h str> {
        self.raw[key as usize].map(str::trim)
    }
}

/// JSON's whitespace from `i` on skipped.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

fn only_space_after(b: &[u8], i: usize) -> Option<()> {
    (skip_space(b, i) == b.len()).then_some(())
}

/// Where the well-formed JSON value at `i` ends.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let (mut depth, mut j) = (0usize, i);
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let length = (b[i..].iter())
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len() - i);
            (length > 0).then_some(i + length)
        }
    }
}

/// Where the string whose quote is at `i` ends (after its closing quote).
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j = fast::plain_run(b, j);
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// A key's slot in [`KEY_NAMES`] (keys without escapes).
fn key_slot(key: &[u8]) -> Option<usize> {
    let key = match key {
        b"begin_ns" => Key::BeginNs,
        b"end_ns" => Key::EndNs,
        b"delta_ns" => Key::DeltaNs,
        b"corr_id" => Key::CorrId,
        b"correlation_id" => Key::CorrelationId,
        b"correlationId" => Key::CorrelationIdCamel,
        b"CorrId" => Key::CorrIdPascal,
        b"tid" => Key::Tid,
        b"agent" => Key::Agent,
        b"stream" => Key::Stream,
        b"stream_id" => Key::StreamId,
        b"stream_ID" => Key::StreamIdUpper,
        b"queue" => Key::Queue,
        b"kernel_id" => Key::KernelId,
        b"grid_size" => Key::GridSize,
        b"workgroup_size" => Key::WorkgroupSize,
        b"LDS_Block_Size" => Key::LdsBlockSize,
        b"group_segment_size" => Key::GroupSegmentSize,
        b"Scratch_Size" => Key::ScratchSize,
        b"private_segment_size" => Key::PrivateSegmentSize,
        b"VGPR_Count" => Key::VgprCount,
        b"Accum_VGPR_Count" => Key::AccumVgprCount,
        b"SGPR_Count" => Key::SgprCount,
        b"copy_bytes" => Key::CopyBytes,
        b"src_agent" => Key::SrcAgent,
        b"dst_agent" => Key::DstAgent,
        b"kind" => Key::Kind,
        b"operation" => Key::Operation,
        b"device_id" => Key::DeviceId,
        b"deviceId" => Key::DeviceIdCamel,
        b"dev_id" => Key::DevId,
        b"DevId" => Key::DevIdPascal,
        b"gpu_id" => Key::GpuId,
        b"gpuId" => Key::GpuIdCamel,
        _ => return None,
    };
    Some(key as usize)
}

/// Fills the slots of an args object's keys with their values' text.
struct SlotVisitor<'s, 'h>(&'s mut [Option<&'h str>; KEY_NAMES.len()]);

impl<'de> serde::de::Visitor<'de> for SlotVisitor<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an args object")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(KeySlot(slot)) = map.next_key()? {
            let value: &'de RawValue = map.next_value()?;
            if let Some(slot) = slot {
                self.0[slot] = Some(value.get());
            }
        }
        Ok(())
    }
}

/// A key's slot in [`KEY_NAMES`]; read without allocating (escaped keys too).
struct KeySlot(Option<usize>);

impl<'de> serde::Deserialize<'de> for KeySlot {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KeySlot, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = KeySlot;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, key: &str) -> Result<KeySlot, E> {
                Ok(KeySlot(KEY_NAMES.iter().position(|k| *k == key)))
            }
        }
        d.deserialize_str(Visitor)
    }
}

/// One event's args, read the way Python's `int()` and truthiness read them.
struct Args<'a>(&'a Slots<'a>);

impl<'a> Args<'a> {
    fn raw(&self, key: Key) -> Option<&'a str> {
        self.0.get(key)
    }

    /// A string value, unescaped (borrowed when it has no escape).
    fn string(raw: &str) -> Option<Cow<'_, str>> {
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        if !inner.contains('\\') {
            return Some(Cow::Borrowed(inner));
        }
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    }

    /// `int(value)`: integers, floats truncated toward zero, and strings that
    /// hold an integer (surrounding spaces allowed); None for anything else.
    fn int(&self, key: Key) -> Option<i64> {
        let raw = self.raw(key)?;
        match raw {
            "true" => Some(1),
            "false" => Some(0),
            _ if raw.starts_with('"') => {
                Self::string(raw).and_then(|s| s.trim().replace('_', "").parse().ok())
            }
            _ => raw.parse::<i64>().ok().or_else(|| {
                raw.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(|f| f.trunc() as i64)
            }),
        }
    }

    /// The first of TraceLens's device-id keys that reads as an int.
    fn device_id(&self) -> Option<i64> {
        DEVICE_KEYS.iter().find_map(|&k| self.int(k))
    }

    /// The value as text: a string as it is, anything else as JSON.
    fn text(&self, key: Key) -> Option<Cow<'a, str>> {
        match self.raw(key)? {
            "null" => None,
            raw if raw.starts_with('"') => Self::string(raw),
            raw => Some(Cow::Borrowed(raw)),
        }
    }

    /// [`Args::text`] of a truthy value only (not "", 0, false, null, [] or {}).
    fn truthy_text(&self, key: Key) -> Option<Cow<'a, str>> {
        let raw = self.raw(key)?;
        let inner_empty = |open: char| {
            raw.strip_prefix(open)
                .is_some_and(|rest| rest[..rest.len().saturating_sub(1)].trim().is_empty())
        };
        let truthy = match raw {
            "null" | "false" | "\"\"" => false,
            "true" => true,
            _ if raw.starts_with('"') => Self::string(raw).is_some_and(|s| !s.is_empty()),
            _ if raw.starts_with('[') => !inner_empty('['),
            _ if raw.starts_with('{') => !inner_empty('{'),
            _ => raw.parse::<f64>().is_ok_and(|f| f != 0.0),
        };
        truthy.then(|| self.text(key)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_read_as_python_reads_them() {
        let text = r#"{"begin_ns": 12, "end_ns": 12.9, "delta_ns": " 7 ", "agent": "Agent-2",
            "corr_id": -3.5, "tid": 0, "src_agent": "", "other": {"agent": [1, {"x": "}"}]},
            "dst_agent": [], "stream": [1], "queue": "A\u0067ent-3", "k\u0069nd": true,
            "operation": "x", "begin_ns": 13}"#;
        for how in [Fill::Scan, Fill::Serde] {
            read_as_python(text, how);
        }
    }

    fn read_as_python(text: &str, how: Fill) {
        let mut slots = Slots::default();
        slots.fill(text, how);
        let a = Args(&slots);
        assert_eq!(
            a.int(Key::BeginNs),
            Some(13),
            "the last of a duplicated key"
        );
        assert_eq!(a.int(Key::EndNs), Some(12));
        assert_eq!(a.int(Key::DeltaNs), Some(7));
        assert_eq!(a.int(Key::Agent), None);
        assert_eq!(a.int(Key::CorrId), Some(-3));
        assert_eq!(a.int(Key::Queue), None);
        assert_eq!(a.int(Key::CopyBytes), None, "absent");
        assert_eq!(a.truthy_text(Key::Agent).as_deref(), Some("Agent-2"));
        assert_eq!(a.truthy_text(Key::Tid), None);
        assert_eq!(a.truthy_text(Key::SrcAgent), None);
        assert_eq!(a.text(Key::SrcAgent).as_deref(), Some(""));
        assert_eq!(a.text(Key::BeginNs).as_deref(), Some("13"));
        assert_eq!(a.truthy_text(Key::DstAgent), None);
        assert_eq!(a.truthy_text(Key::Stream).as_deref(), Some("[1]"));
        assert_eq!(
            a.text(Key::Queue).as_deref(),
            Some("Agent-3"),
            "escapes decoded"
        );
        assert_eq!(a.int(Key::Kind), Some(1), "an escaped key is still its key");
        assert_eq!(a.int(Key::Operation), None);
        slots.fill(r#"{"begin_ns": 5, "end_ns": "#, how);
        assert_eq!(
            Args(&slots).int(Key::BeginNs),
            None,
            "a malformed object reads as empty"
        );
    }

    #[test]
    fn the_scan_finds_the_values_serde_finds() {
        let texts = [
            r#"{"begin_ns":1,"end_ns":2,"agent":"Agent-2","corr_id":7}"#,
            " \t\r\n{ \"begin_ns\" :\n 1 , \"agent\":\t\"A\" }\n ",
            "{}",
            " { } ",
            r#"{"other": {"agent": [1, {"x": "}]"}], "q": "\"}"}, "agent": "a\"}\\"}"#,
            r#"{"stream": [[], {}, [{"a": [1, 2]}]], "queue": {"k": "v"}, "kind": -1.5e-3}"#,
            r#"{"tid": null, "kind": true, "operation": false, "src_agent": "", "dst_agent": "ü ✓"}"#,
            r#"{"begin_ns": 1, "begin_ns": 2, "ünïcode": 3, "grid_size": 18446744073709551616}"#,
            r#"{"k\u0069nd": 5, "kind": 6}"#,
            r#"{"begin_ns": 5, "end_ns": "#,
            "5",
            "[]",
        ];
        let mut matched = 0;
        for text in texts {
            let (mut scanned, mut by_serde) = (Slots::default(), Slots::default());
            scanned.fill(text, Fill::Scan);
            by_serde.fill(text, Fill::Serde);
            assert_eq!(scanned.raw, by_serde.raw, "{text}");
            matched += by_serde.raw.iter().flatten().count();
            // Only the escaped key, the malformed object and the non-objects
            // are left to serde.
            let scans = Slots::default().scan(text).is_some();
            assert_eq!(
                scans,
                !text.contains("\\u0069") && !text.ends_with(": ") && text.contains('{'),
                "{text}"
            );
        }
        assert_eq!(matched, 18, "values found");
    }

    #[test]
    fn every_key_name_has_its_slot() {
        for (slot, name) in KEY_NAMES.iter().enumerate() {
            assert_eq!(key_slot(name.as_bytes()), Some(slot), "{name}");
        }
        assert_eq!(key_slot(b"Agent"), None);
        assert_eq!(key_slot(b""), None);
    }

    /// A rocprofv3-shaped export of `launches` launches: an API slice, a
    /// kernel's begin and end, and every 7th a memory copy.
    fn export(launches: usize) -> String {
        let mut events = vec![r#"{"ph":"M","cat":"__metadata","name":"process_name","pid":7,"tid":0,"args":{"name":"p"}}"#.to_string()];
        for i in 0..launches {
            let t = 1_000_000 + i * 10_000;
            events.push(format!(
                r#"{{"ph":"X","cat":"hip_api","name":"hipLaunchKernel","pid":7,"tid":7,"ts":{},"dur":4,"args":{{"begin_ns":{t},"end_ns":{},"corr_id":{i},"tid":7,"kind":5}}}}"#,
                t / 1000,
                t + 4000
            ));
            events.push(format!(
                r#"{{"ph":"b","cat":"kernel_dispatch","name":"k{}.kd","pid":7,"tid":7,"ts":{},"id2":{{"local":"0x1"}},"args":{{"begin_ns":{},"delta_ns":{},"agent":"Agent-{}","corr_id":{i},"queue":{},"grid_size":{}}}}}"#,
                i % 13,
                t / 1000 + 1,
                t + 1000,
                3000 + i % 50,
                2 + i % 3,
                i % 4,
                64 * (i % 9)
            ));
            events.push(format!(
                r#"{{"ph":"e","cat":"kernel_dispatch","name":"k{}.kd","pid":7,"tid":7,"ts":{},"id2":{{"local":"0x1"}},"args":{{}}}}"#,
                i % 13,
                t / 1000 + 5
            ));
            if i % 7 == 0 {
                events.push(format!(
                    r#"{{"ph":"X","cat":"memory_copy","name":"MEMORY_COPY_DEVICE_TO_HOST","pid":8,"tid":1,"ts":{},"dur":2,"args":{{"src_agent":"Agent-{}","dst_agent":"Agent-0","copy_bytes":{},"corr_id":{i}}}}}"#,
                    t / 1000 + 6,
                    2 + i % 3,
                    i * 64
                ));
            }
        }
        format!("{{\"traceEvents\":[{}]}}", events.join(",\n"))
    }

    #[test]
    fn two_reading_threads_annotate_as_one_does() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("t.json");
        std::fs::write(&path, export(8_000)).expect("written");
        let path = path.to_str().expect("UTF-8");
        let annotated = |two_threads, how| {
            let options = ReadOptions {
                read_ahead: false,
                chunk: source::CHUNK,
                hold_all_args: true,
            };
            let (mut trace, _) = kineto::load_with_options(path, &options).expect("loads");
            annotate_with(&mut trace, two_threads, how);
            let n = &trace.native;
            let text = format!(
                "{:?}\n{:?}\n{:?}\n{:?}",
                trace.digest(),
                n.dispatches,
                n.memory_copies,
                n.api_calls
            );
            (
                text,
                n.dispatches.len(),
                n.memory_copies.len(),
                n.api_calls.len(),
            )
        };
        // The reference: one thread, serde; the load's way: two threads, the scan.
        let (one, two) = (annotated(false, Fill::Serde), annotated(true, Fill::Scan));
        // 8,000 launches and kernels, 1,143 copies: 17,143 events read, in 5 chunks.
        assert_eq!((one.1, one.2, one.3), (8_000, 1_143, 8_000));
        assert!(one.0 == two.0, "two threads annotate otherwise");
        // Applied: the kernels' durations from their args, in order.
        let second = load(path).expect("loads");
        assert_eq!(second.native.dispatches[1].delta_ns, Some(3001));
        assert_eq!(
            second.dur.get(second.native.dispatches[1].uid as usize),
            Some(3.001)
        );
    }

    /// Found by fuzz/regressions/perfetto_reader/begin-and-end-too-far-apart:
    /// `end_ns - begin_ns` overflowed (a panic in a debug build, a wrapped
    /// duration in a release one), even where `delta_ns` was there to use.
    #[test]
    fn a_duration_from_the_args_is_delta_ns_else_an_end_minus_begin_that_fits() {
        let slice = |name: &str, args: &str| {
            format!(
                r#"{{"ph":"b","cat":"kernel_dispatch","name":"{name}","pid":1,"tid":1,"ts":10,"id2":{{"local":"0x1"}},"args":{args}}}"#
            )
        };
        let events = [
            slice(
                "delta",
                r#"{"begin_ns":9000000005828,"end_ns":-1e40,"delta_ns":4000}"#,
            ),
            slice("span", r#"{"begin_ns":1000,"end_ns":3500}"#),
            slice(
                "apart",
                r#"{"begin_ns":9223372036854775807,"end_ns":-9223372036854775808}"#,
            ),
        ];
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("t.json");
        let text = format!("{{\"traceEvents\":[{}]}}", events.join(",\n"));
        std::fs::write(&path, text).expect("written");
        let trace = load(path.to_str().expect("UTF-8")).expect("loads");
        let durations: Vec<(Option<&str>, Option<f64>)> = (trace.native.dispatches.iter())
            .map(|d| (trace.str(d.name), trace.dur.get(d.uid as usize)))
            .collect();
        assert_eq!(
            durations,
            [
                (Some("delta"), Some(4.0)),
                (Some("span"), Some(2.5)),
                (Some("apart"), None)
            ]
        );
    }

    #[test]
    fn every_key_has_its_name() {
        assert_eq!(KEY_NAMES[Key::GpuIdCamel as usize], "gpuId");
        assert_eq!(KEY_NAMES[Key::StreamIdUpper as usize], "stream_ID");
        assert_eq!(KEY_NAMES[Key::CopyBytes as usize], "copy_bytes");
    }

    #[test]
    fn roles_follow_category_then_name() {
        assert!(role("kernel_dispatch", "k") == Role::Kernel);
        assert!(role("gpu_activity", "k") == Role::Kernel);
        assert!(role("whatever", "Cijk_Alik.kd") == Role::Kernel);
        assert!(role(" Memory_Copy ", "MEMORY_COPY_HOST_TO_DEVICE") == Role::Copy);
        assert!(role("hip_api", "hipLaunchKernel") == Role::Api);
        assert!(role("marker_api", "range") == Role::Api);
        assert!(role("__metadata", "process_name") == Role::Other);
    }
}
