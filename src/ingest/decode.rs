//! Decoding one event's JSON into the columns of a [`RawTrace`].
//!
//! Events are decoded into borrowed structs (`&str`, `&RawValue`), so nothing is
//! allocated for the fields we only pass through; `args` is kept as raw text for the
//! `events.args` column and read once more for the handful of typed fields.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::scan::{byte_of, strip_position};
use super::trace::{EventKind, OpInputs, RawTrace};

#[derive(Deserialize)]
struct EventFields<'a> {
    #[serde(borrow, default)]
    ph: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pid: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tid: Option<&'a RawValue>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct ArgFields<'a> {
    #[serde(rename = "External id", default)]
    external_id: LenientInt,
    #[serde(default)]
    correlation: LenientInt,
    #[serde(default)]
    stream: LenientInt,
    #[serde(default)]
    device: LenientInt,
    #[serde(rename = "Sequence number", default)]
    seq_num: LenientInt,
    #[serde(rename = "Input Dims", borrow, default)]
    input_dims: Option<&'a RawValue>,
    #[serde(rename = "Input type", borrow, default)]
    input_types: Option<&'a RawValue>,
    #[serde(rename = "Input Strides", borrow, default)]
    input_strides: Option<&'a RawValue>,
    #[serde(rename = "Concrete Inputs", borrow, default)]
    concrete_inputs: Option<&'a RawValue>,
    /// `name` of process/thread metadata events.
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    /// `labels` of process_labels metadata events.
    #[serde(borrow, default)]
    labels: Option<&'a RawValue>,
}

/// An integer argument that tolerates floats and numeric strings and reads
/// anything else as missing: args vary between profiler versions, and a strange
/// value in one of them should not make a whole trace unreadable.
#[derive(Default, Clone, Copy)]
struct LenientInt(Option<i64>);

impl<'de> Deserialize<'de> for LenientInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientInt;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E>(self, v: i64) -> Result<LenientInt, E> {
                Ok(LenientInt(Some(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LenientInt, E> {
                Ok(LenientInt(i64::try_from(v).ok()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LenientInt, E> {
                let ok = v.fract() == 0.0 && v.abs() < 9.0e15;
                Ok(LenientInt(ok.then_some(v as i64)))
            }
            fn visit_str<E>(self, v: &str) -> Result<LenientInt, E> {
                Ok(LenientInt(v.trim().parse().ok()))
            }
            fn visit_bool<E>(self, _: bool) -> Result<LenientInt, E> {
                Ok(LenientInt(None))
            }
            fn visit_unit<E>(self) -> Result<LenientInt, E> {
                Ok(LenientInt(None))
            }
            fn visit_none<E>(self) -> Result<LenientInt, E> {
                Ok(LenientInt(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LenientInt, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientInt(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientInt, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientInt(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Why one event could not be decoded: the message, and the byte inside the event
/// where the problem lies (the caller adds the event's index and offset).
pub struct EventError(pub String, pub u64);

/// Decodes the event `bytes` and appends it as the next row of `trace`.
pub fn push_event(trace: &mut RawTrace, bytes: &[u8]) -> Result<(), EventError> {
    if bytes.first() != Some(&b'{') {
        return Err(EventError("not a JSON object".into(), 0));
    }
    let ev: EventFields = serde_json::from_slice(bytes).map_err(|e| serde_problem(&e, bytes, 0))?;
    let kind = EventKind::classify(ev.cat.as_deref(), ev.ph.as_deref());
    check_times(kind, &ev)?;
    let uid = trace.len() as u32;

    let args = match ev.args {
        Some(raw) if raw.get().starts_with('{') => Some(raw),
        Some(raw) if raw.get() == "null" => None,
        Some(_) => return Err(EventError("`args` is not an object".into(), 0)),
        None => None,
    };
    let fields: ArgFields = match args {
        Some(raw) => {
            let at = raw.get().as_ptr() as u64 - bytes.as_ptr() as u64;
            serde_json::from_str(raw.get())
                .map_err(|e| serde_problem(&e, raw.get().as_bytes(), at))?
        }
        None => ArgFields::default(),
    };

    let strings = &mut trace.strings;
    trace.kind.push(kind);
    trace.ph.push(ev.ph.as_deref().map(|s| strings.intern(s)));
    trace.cat.push(ev.cat.as_deref().map(|s| strings.intern(s)));
    trace
        .name
        .push(ev.name.as_deref().map(|s| strings.intern(s)));
    let pid = ev.pid.and_then(|v| id_text(v).map(|t| strings.intern(&t)));
    let tid = ev.tid.and_then(|v| id_text(v).map(|t| strings.intern(&t)));
    trace.pid.push(pid);
    trace.tid.push(tid);
    trace.ts.push(ev.ts);
    trace.dur.push(ev.dur);
    trace.correlation.push(fields.correlation.0);
    trace.external_id.push(fields.external_id.0);
    trace.stream.push(fields.stream.0);
    trace.device.push(fields.device.0);
    trace.seq_num.push(fields.seq_num.0);
    trace.flow_id.push(ev.id.and_then(flow_id));
    trace.args_span.push(args.map(|raw| {
        let start = trace.args_text.len() as u32;
        trace.args_text.push_str(raw.get());
        (start, trace.args_text.len() as u32)
    }));

    if kind == EventKind::CpuOp {
        let text = |v: Option<&RawValue>| v.map(|r| r.get().to_string());
        trace.op_inputs.insert(
            uid,
            OpInputs {
                dims: text(fields.input_dims),
                types: text(fields.input_types),
                strides: text(fields.input_strides),
                concrete: text(fields.concrete_inputs),
            },
        );
    }
    if kind == EventKind::Metadata {
        record_metadata(trace, ev.name.as_deref(), pid, tid, &fields);
    }
    Ok(())
}

fn check_times(kind: EventKind, ev: &EventFields) -> Result<(), EventError> {
    let timed = !matches!(kind, EventKind::Metadata | EventKind::Other);
    if timed && ev.ts.is_none() {
        return Err(EventError(
            format!("{} event has no `ts`", ev.cat.as_deref().unwrap_or("a")),
            0,
        ));
    }
    if let Some(ts) = ev.ts {
        if !ts.is_finite() {
            return Err(EventError(format!("`ts` is not a finite number: {ts}"), 0));
        }
    }
    if let Some(dur) = ev.dur {
        if !dur.is_finite() || dur < 0.0 {
            return Err(EventError(
                format!("negative or invalid duration `dur` = {dur}"),
                0,
            ));
        }
    }
    Ok(())
}

fn record_metadata(
    trace: &mut RawTrace,
    name: Option<&str>,
    pid: Option<u32>,
    tid: Option<u32>,
    fields: &ArgFields,
) {
    let Some(pid) = pid else { return };
    let as_text = |v: Option<&RawValue>| v.and_then(id_text);
    match name {
        Some("process_name") => {
            if let Some(v) = as_text(fields.name) {
                trace.process_names.insert(pid, v);
            }
        }
        Some("process_labels") => {
            if let Some(v) = as_text(fields.labels) {
                trace.process_labels.insert(pid, v);
            }
        }
        Some("thread_name") => {
            if let (Some(tid), Some(v)) = (tid, as_text(fields.name)) {
                trace.thread_names.insert((pid, tid), v);
            }
        }
        _ => {}
    }
}

/// `pid`/`tid` as text: strings unquoted, numbers as written.
fn id_text(v: &RawValue) -> Option<String> {
    let raw = v.get();
    if raw.starts_with('"') {
        serde_json::from_str::<String>(raw).ok()
    } else if raw == "null" {
        None
    } else {
        Some(raw.to_string())
    }
}

fn flow_id(v: &RawValue) -> Option<i64> {
    serde_json::from_str::<LenientInt>(v.get())
        .ok()
        .and_then(|l| l.0)
}

fn serde_problem(e: &serde_json::Error, text: &[u8], at: u64) -> EventError {
    let message = strip_position(&e.to_string());
    // Say when the event is not valid JSON at all, as opposed to a field of the wrong
    // type (serde_json files a too-large number such as 1e999 under syntax errors too).
    let malformed = (e.is_syntax() || e.is_eof()) && !message.starts_with("number out of range");
    let message = if malformed {
        format!("malformed JSON: {message}")
    } else {
        message
    };
    EventError(message, at + byte_of(text, e.line(), e.column()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_typed_fields_and_keeps_args() {
        let mut t = RawTrace::default();
        let ev = br#"{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":"7","ts":10.5,"dur":2,
            "args":{"correlation":42,"stream":"7","device":0.0,"External id":[1]}}"#;
        assert!(push_event(&mut t, ev).is_ok());
        assert_eq!(t.kind[0], EventKind::Kernel);
        assert_eq!(t.str(t.pid[0]), Some("0"));
        assert_eq!(t.str(t.tid[0]), Some("7"));
        assert_eq!(t.correlation[0], Some(42));
        assert_eq!(t.stream[0], Some(7));
        assert_eq!(t.device[0], Some(0));
        assert_eq!(t.external_id[0], None);
        assert_eq!(t.t_end(0), Some(12.5));
        assert!(t
            .args_of(0)
            .is_some_and(|a| a.contains("\"correlation\":42")));
    }

    #[test]
    fn rejects_bad_types_and_negative_durations() {
        let mut t = RawTrace::default();
        let bad_ts = br#"{"ph":"X","cat":"cpu_op","name":"a","ts":"soon","dur":1}"#;
        assert!(push_event(&mut t, bad_ts).is_err());
        let negative = br#"{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":-1}"#;
        assert!(push_event(&mut t, negative).is_err());
        let no_ts = br#"{"ph":"X","cat":"cpu_op","name":"a","dur":1}"#;
        assert!(push_event(&mut t, no_ts).is_err());
        assert!(push_event(&mut t, b"[1]").is_err());
        assert!(t.is_empty());
    }
}
