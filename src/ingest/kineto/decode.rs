//! Decoding one event's JSON into the columns of a [`RawTrace`].
//!
//! Most events are read by the one-pass reader in `fast`; this module holds the
//! shared [`Event`] they are read into, the checks every event passes, and the
//! reference decoder for the rest: serde into borrowed structs (`&str`, `&RawValue`),
//! with `args` kept as raw text and read once more for the handful of typed fields.
//! Its errors (with byte offsets) are the ones users see for bad events.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::scan::{byte_of, strip_position};
use crate::ingest::trace::{EventKind, RawTrace};

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
    ts: Option<TimeValue>,
    #[serde(default)]
    dur: Option<TimeValue>,
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

/// A `ts` / `dur` number, and whether it was written with a fraction or an
/// exponent: Python reads such a number as a float and any other as an int, and
/// TraceLens's columns keep that type (an all-integer trace prints `11055`, not
/// `11055.0`).
#[derive(Clone, Copy)]
struct TimeValue {
    value: f64,
    fractional: bool,
}

impl<'de> Deserialize<'de> for TimeValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TimeValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                // serde's own word for a number read as f64, as users saw it before.
                f.write_str("f64")
            }
            fn visit_i64<E>(self, v: i64) -> Result<TimeValue, E> {
                Ok(TimeValue {
                    value: v as f64,
                    fractional: false,
                })
            }
            fn visit_u64<E>(self, v: u64) -> Result<TimeValue, E> {
                Ok(TimeValue {
                    value: v as f64,
                    fractional: false,
                })
            }
            fn visit_f64<E>(self, v: f64) -> Result<TimeValue, E> {
                Ok(TimeValue {
                    value: v,
                    fractional: true,
                })
            }
        }
        d.deserialize_any(V)
    }
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
                Ok(LenientInt(lenient_f64(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<LenientInt, E> {
                Ok(LenientInt(lenient_str(v)))
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

/// One event's fields as tracesql keeps them, borrowed from the event's bytes where
/// possible. Both decoders (`fast` and serde's below) produce this.
#[derive(Default)]
pub struct Event<'a> {
    pub ph: Option<Cow<'a, str>>,
    pub cat: Option<Cow<'a, str>>,
    pub name: Option<Cow<'a, str>>,
    /// `pid` / `tid` as text: strings unquoted, numbers as written.
    pub pid: Option<Cow<'a, str>>,
    pub tid: Option<Cow<'a, str>>,
    pub ts: Option<f64>,
    pub dur: Option<f64>,
    /// `ts` or `dur` was written with a fraction or an exponent (a float to
    /// Python, see [`TimeValue`]).
    pub fractional_time: bool,
    pub flow_id: Option<i64>,
    /// The raw `args` object.
    pub args: Option<&'a str>,
    pub external_id: Option<i64>,
    pub correlation: Option<i64>,
    pub stream: Option<i64>,
    pub device: Option<i64>,
    pub seq_num: Option<i64>,
    /// Input descriptions of a cpu_op: slices of `args`.
    pub inputs: Inputs<'a>,
    /// `args.name` / `args.labels` of metadata events, raw JSON.
    pub meta_name: Option<&'a str>,
    pub meta_labels: Option<&'a str>,
}

/// `Input Dims`, `Input type`, `Input Strides`, `Concrete Inputs` as raw JSON.
#[derive(Default)]
pub struct Inputs<'a> {
    pub dims: Option<&'a str>,
    pub types: Option<&'a str>,
    pub strides: Option<&'a str>,
    pub concrete: Option<&'a str>,
}

impl Inputs<'_> {
    /// True when the event carried any input description.
    pub fn any(&self) -> bool {
        self.dims.is_some()
            || self.types.is_some()
            || self.strides.is_some()
            || self.concrete.is_some()
    }
}

/// The reference decoder: serde into borrowed structs, `args` read a second time.
///
/// Used for the events the fast path leaves alone; its errors are the messages
/// users see for bad events.
/// `at` is the document offset of `bytes`, whose first byte starts the event.
pub fn push_event(trace: &mut RawTrace, bytes: &[u8], at: u64) -> Result<(), EventError> {
    if bytes.first() != Some(&b'{') {
        return Err(EventError("not a JSON object".into(), 0));
    }
    let ev: EventFields = serde_json::from_slice(bytes).map_err(|e| serde_problem(&e, bytes, 0))?;
    let kind = EventKind::classify(ev.cat.as_deref(), ev.ph.as_deref());
    let (ts, dur) = (ev.ts.map(|t| t.value), ev.dur.map(|t| t.value));
    check_times(kind, ev.cat.as_deref(), ts, dur)?;

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
    let event = Event {
        ph: ev.ph,
        cat: ev.cat,
        name: ev.name,
        pid: ev.pid.and_then(|v| id_text(v.get())).map(Cow::Owned),
        tid: ev.tid.and_then(|v| id_text(v.get())).map(Cow::Owned),
        ts,
        dur,
        fractional_time: ev.ts.is_some_and(|t| t.fractional)
            || ev.dur.is_some_and(|t| t.fractional),
        flow_id: ev.id.and_then(flow_id),
        args: raw(args),
        external_id: fields.external_id.0,
        correlation: fields.correlation.0,
        stream: fields.stream.0,
        device: fields.device.0,
        seq_num: fields.seq_num.0,
        inputs: Inputs {
            dims: raw(fields.input_dims),
            types: raw(fields.input_types),
            strides: raw(fields.input_strides),
            concrete: raw(fields.concrete_inputs),
        },
        meta_name: raw(fields.name),
        meta_labels: raw(fields.labels),
    };
    push_checked(trace, kind, &event, bytes, at)
}

/// Appends an event the fast path read from `bytes` (see `fast`), which sit at
/// document offset `at`: the same checks, the same row.
pub fn push_decoded(
    trace: &mut RawTrace,
    event: &Event,
    bytes: &[u8],
    at: u64,
) -> Result<(), EventError> {
    let kind = EventKind::classify(event.cat.as_deref(), event.ph.as_deref());
    check_times(kind, event.cat.as_deref(), event.ts, event.dur)?;
    push_checked(trace, kind, event, bytes, at)
}

/// Pushes a checked event, noting where its args lie in the document (they are
/// a slice of `bytes`: both decoders borrow them as written).
fn push_checked(
    trace: &mut RawTrace,
    kind: EventKind,
    event: &Event,
    bytes: &[u8],
    at: u64,
) -> Result<(), EventError> {
    let args_at = match event.args {
        Some(args) => {
            let start = (args.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
            if start
                .checked_add(args.len())
                .is_none_or(|end| end > bytes.len())
            {
                return Err(EventError(
                    "internal: args not read from the event".into(),
                    0,
                ));
            }
            at + start as u64
        }
        None => 0,
    };
    trace
        .push(kind, event, args_at)
        .map_err(|message| EventError(message, 0))
}

fn check_times(
    kind: EventKind,
    cat: Option<&str>,
    ts: Option<f64>,
    dur: Option<f64>,
) -> Result<(), EventError> {
    let timed = !matches!(kind, EventKind::Metadata | EventKind::Other);
    if timed && ts.is_none() {
        return Err(EventError(
            format!("{} event has no `ts`", cat.unwrap_or("a")),
            0,
        ));
    }
    if let Some(ts) = ts {
        if !ts.is_finite() {
            return Err(EventError(format!("`ts` is not a finite number: {ts}"), 0));
        }
    }
    if let Some(dur) = dur {
        if !dur.is_finite() || dur < 0.0 {
            return Err(EventError(
                format!("negative or invalid duration `dur` = {dur}"),
                0,
            ));
        }
    }
    Ok(())
}

/// `pid`/`tid` (and metadata names) as text: strings unquoted, numbers as written.
pub fn id_text(raw: &str) -> Option<String> {
    if raw.starts_with('"') {
        serde_json::from_str::<String>(raw).ok()
    } else if raw == "null" {
        None
    } else {
        Some(raw.to_string())
    }
}

fn raw(v: Option<&RawValue>) -> Option<&str> {
    v.map(RawValue::get)
}

fn flow_id(v: &RawValue) -> Option<i64> {
    serde_json::from_str::<LenientInt>(v.get())
        .ok()
        .and_then(|l| l.0)
}

/// `LenientInt` of a float.
pub fn lenient_f64(v: f64) -> Option<i64> {
    let ok = v.fract() == 0.0 && v.abs() < 9.0e15;
    ok.then_some(v as i64)
}

/// `LenientInt` of a string.
pub fn lenient_str(v: &str) -> Option<i64> {
    v.trim().parse().ok()
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
        assert!(push_event(&mut t, ev, 0).is_ok());
        assert_eq!(t.kind[0], EventKind::Kernel);
        assert_eq!(t.str(t.pid.get(0)), Some("0"));
        assert_eq!(t.str(t.tid.get(0)), Some("7"));
        assert_eq!(t.correlation.get(0), Some(42));
        assert_eq!(t.stream.get(0), Some(7));
        assert_eq!(t.device.get(0), Some(0));
        assert_eq!(t.external_id.get(0), None);
        assert_eq!(t.t_end(0), Some(12.5));
        assert!(t
            .args_of(0)
            .is_some_and(|a| a.contains("\"correlation\":42")));
    }

    #[test]
    fn rejects_bad_types_and_negative_durations() {
        let mut t = RawTrace::default();
        let bad_ts = br#"{"ph":"X","cat":"cpu_op","name":"a","ts":"soon","dur":1}"#;
        assert!(push_event(&mut t, bad_ts, 0).is_err());
        let negative = br#"{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":-1}"#;
        assert!(push_event(&mut t, negative, 0).is_err());
        let no_ts = br#"{"ph":"X","cat":"cpu_op","name":"a","dur":1}"#;
        assert!(push_event(&mut t, no_ts, 0).is_err());
        assert!(push_event(&mut t, b"[1]", 0).is_err());
        assert!(t.is_empty());
    }
}
