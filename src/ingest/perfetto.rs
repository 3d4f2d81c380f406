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
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::kineto::{self, ReadOptions};
use super::native::{ApiCall, Dispatch, MemoryCopy, SourceFormat};
use super::trace::{EventKind, RawTrace};
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
    trace.native.format = SourceFormat::Pftrace;
    // Each distinct agent string's index in first-seen order: the device a
    // kernel's `kernels.device` gets without an explicit device id (TraceLens's
    // DevId; "Agent-2" written first is device 0).
    let mut agent_index: std::collections::HashMap<String, i64> = Default::default();
    // The args text of the event at hand, copied out of the trace so that the
    // trace can be updated while its values are read.
    let mut text = String::new();
    for uid in 0..trace.len() {
        let ph = trace.str(trace.ph.get(uid)).unwrap_or("");
        // The end of a begin/end pair carries nothing of its own.
        if matches!(ph, "e" | "E" | "M") {
            continue;
        }
        let cat = trace.str(trace.cat.get(uid)).unwrap_or("").to_string();
        let name = trace.name_of(uid).to_string();
        let role = role(&cat, &name);
        if role == Role::Other {
            continue;
        }
        text.clear();
        text.push_str(trace.args_of(uid).unwrap_or("{}"));
        let args: BTreeMap<Cow<str>, &RawValue> = serde_json::from_str(&text).unwrap_or_default();
        let a = Args(&args);
        let (begin, end, delta) = (a.int("begin_ns"), a.int("end_ns"), a.int("delta_ns"));
        let corr = ["corr_id", "correlation_id", "correlationId", "CorrId"]
            .iter()
            .find_map(|k| a.int(k));
        let thread_id = a.int("tid");
        let uid32 = uid as u32;
        // Slices exported as begin/end pairs have no `dur`: take it from the
        // annotations, so that `kernels` and the timelines see them.
        if trace.dur.get(uid).is_none() {
            if let Some(d) = delta.or(begin.zip(end).map(|(b, e)| e - b)) {
                trace.dur.set(uid, Some(d as f64 / 1000.0));
            }
        }
        if corr.is_some() {
            trace.correlation.set(uid, corr);
        }
        match role {
            Role::Kernel => {
                trace.kind[uid] = EventKind::Kernel;
                let agent = a.truthy_text("agent");
                let next = agent_index.len() as i64;
                let index = agent.clone().map(|a| *agent_index.entry(a).or_insert(next));
                trace.device.set(uid, device_id(&a).or(index));
                let stream = a.int("stream").or(a.int("stream_id")).or(a.int("queue"));
                if stream.is_some() {
                    trace.stream.set(uid, stream);
                }
                trace.native.dispatches.push(Dispatch {
                    uid: uid32,
                    name: name.clone(),
                    name_full: Some(name),
                    agent,
                    queue_id: a.int("queue"),
                    stream_id: a.int("stream").or(a.int("stream_id")),
                    kernel_id: a.int("kernel_id"),
                    corr_id: corr,
                    thread_id,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    grid_size: a.int("grid_size"),
                    workgroup_size: a.int("workgroup_size"),
                    lds: a.int("LDS_Block_Size").or(a.int("group_segment_size")),
                    scratch: a.int("Scratch_Size").or(a.int("private_segment_size")),
                    vgpr: a.int("VGPR_Count"),
                    accum_vgpr: a.int("Accum_VGPR_Count"),
                    sgpr: a.int("SGPR_Count"),
                    device_id: device_id(&a),
                    ..Dispatch::default()
                });
            }
            Role::Copy => {
                trace.kind[uid] = EventKind::Memcpy;
                let side = |key| {
                    a.truthy_text(key)
                        .and_then(|x| agent_index.get(&x).copied())
                };
                if let Some(device) = side("dst_agent").or_else(|| side("src_agent")) {
                    trace.device.set(uid, Some(device));
                }
                trace.native.memory_copies.push(MemoryCopy {
                    uid: uid32,
                    name,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    bytes: a.int("copy_bytes"),
                    src_agent: a.text("src_agent"),
                    dst_agent: a.text("dst_agent"),
                    corr_id: corr,
                    stream_id: a.int("stream").or(a.int("stream_id")),
                    thread_id,
                });
            }
            Role::Api => {
                let lower = cat.to_ascii_lowercase();
                trace.kind[uid] = if lower == "hip_api" || lower == "cuda_api" {
                    EventKind::Runtime
                } else {
                    EventKind::Other
                };
                trace.native.api_calls.push(ApiCall {
                    uid: uid32,
                    domain: cat,
                    name,
                    thread_id,
                    begin_ns: begin,
                    end_ns: end,
                    delta_ns: delta,
                    corr_id: corr,
                    kind: a.int("kind"),
                    operation: a.int("operation"),
                    device_id: device_id(&a),
                    agent: a.truthy_text("agent"),
                    stream_id: a.int("stream_ID"),
                });
            }
            Role::Other => {}
        }
    }
}

/// An explicit device id: the first of TraceLens's keys that reads as an int.
fn device_id(a: &Args) -> Option<i64> {
    [
        "device_id",
        "deviceId",
        "dev_id",
        "DevId",
        "gpu_id",
        "gpuId",
    ]
    .iter()
    .find_map(|k| a.int(k))
}

/// One event's args, read the way Python's `int()` and truthiness read them.
///
/// Values stay raw JSON text until asked for: an event has a dozen
/// annotations and a trace millions of events, and most values are read once
/// or never (a duplicated key: the last one wins, as in Python's dict).
struct Args<'a>(&'a BTreeMap<Cow<'a, str>, &'a RawValue>);

impl Args<'_> {
    fn raw(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|v| v.get().trim())
    }

    /// A string value, unescaped.
    fn string(raw: &str) -> Option<Cow<'_, str>> {
        raw.starts_with('"')
            .then(|| serde_json::from_str(raw).ok())
            .flatten()
    }

    /// `int(value)`: integers, floats truncated toward zero, and strings that
    /// hold an integer (surrounding spaces allowed); None for anything else.
    fn int(&self, key: &str) -> Option<i64> {
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

    /// The value as text: a string as it is, anything else as JSON.
    fn text(&self, key: &str) -> Option<String> {
        match self.raw(key)? {
            "null" => None,
            raw if raw.starts_with('"') => Self::string(raw).map(Cow::into_owned),
            raw => Some(raw.to_string()),
        }
    }

    /// [`Args::text`] of a truthy value only (not "", 0, false, null, [] or {}).
    fn truthy_text(&self, key: &str) -> Option<String> {
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
        let text = r#"{"a": 12, "b": 12.9, "c": " 7 ", "d": "Agent-2", "e": -3.5, "f": 0, "g": "",
            "h": [], "i": [1], "j": "A\u0067ent-3", "k": true, "a": 13}"#;
        let map: BTreeMap<Cow<str>, &RawValue> = serde_json::from_str(text).expect("json");
        let a = Args(&map);
        assert_eq!(a.int("a"), Some(13), "the last of a duplicated key");
        assert_eq!(a.int("b"), Some(12));
        assert_eq!(a.int("c"), Some(7));
        assert_eq!(a.int("d"), None);
        assert_eq!(a.int("e"), Some(-3));
        assert_eq!(a.int("missing"), None);
        assert_eq!(a.truthy_text("d").as_deref(), Some("Agent-2"));
        assert_eq!(a.truthy_text("f"), None);
        assert_eq!(a.truthy_text("g"), None);
        assert_eq!(a.text("a").as_deref(), Some("13"));
        assert_eq!(a.truthy_text("h"), None);
        assert_eq!(a.truthy_text("i").as_deref(), Some("[1]"));
        assert_eq!(a.text("j").as_deref(), Some("Agent-3"), "escapes decoded");
        assert_eq!(a.int("k"), Some(1));
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
