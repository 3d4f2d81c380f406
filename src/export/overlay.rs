//! Traces written back with what an analysis found, for Perfetto UI and
//! chrome://tracing: `tracesql export T --counters OUT.json` (HTA's "trace with
//! counters": queue length per stream and memory bandwidth as counter tracks).
//!
//! The input is rewritten, not rebuilt: its top-level keys and every event are
//! copied as written (kept as raw JSON, never parsed into trees, so a large
//! trace costs about its own size in memory), and the new events are appended
//! to `traceEvents`. What the new events are is a query's answer
//! (`hta_trace_counters`), so the tracks are defined in SQL a user can read.
//! The file is written under a temporary name and renamed into place; a name
//! ending in `.gz` is gzip-compressed.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::engine::Engine;
use crate::output::atomic;
use crate::Error;

/// The query whose rows become counter events: one row per sample of a
/// track, in the order the tracks are drawn.
pub const COUNTERS_SQL: &str =
    "SELECT pid, ts, name, id, arg, value FROM hta_trace_counters ORDER BY name, id, ts, seq";

/// The counter events (`ph: "C"`) the session's `hta_trace_counters` rows
/// describe.
pub async fn counter_events(engine: &Engine) -> Result<Vec<Value>, Error> {
    let results = engine.run_sql(COUNTERS_SQL).await.map_err(Error::query)?;
    let mut events = Vec::new();
    for batch in results.iter().flatten() {
        events.extend(counter_rows(batch)?);
    }
    Ok(events)
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a dyn Array, Error> {
    batch
        .column_by_name(name)
        .map(|c| c.as_ref())
        .ok_or_else(|| Error::Query(format!("hta_trace_counters has no column {name}")))
}

fn counter_rows(batch: &RecordBatch) -> Result<Vec<Value>, Error> {
    let text = |name: &str| -> Result<_, Error> {
        let array = cast(column(batch, name)?, &DataType::Utf8).map_err(Error::query)?;
        Ok(array)
    };
    let number = |name: &str, to: &DataType| -> Result<_, Error> {
        cast(column(batch, name)?, to).map_err(Error::query)
    };
    let (pid, name, arg) = (text("pid")?, text("name")?, text("arg")?);
    let (pid, name, arg) = (
        pid.as_string::<i32>(),
        name.as_string::<i32>(),
        arg.as_string::<i32>(),
    );
    let ts = number("ts", &DataType::Float64)?;
    let ts = ts.as_primitive::<Float64Type>();
    let id = number("id", &DataType::Int64)?;
    let id = id.as_primitive::<Int64Type>();
    let value = number("value", &DataType::Float64)?;
    let value = value.as_primitive::<Float64Type>();
    let mut events = Vec::with_capacity(batch.num_rows());
    for i in 0..batch.num_rows() {
        if name.is_null(i) || ts.is_null(i) || value.is_null(i) {
            continue;
        }
        let mut event = Map::new();
        event.insert("ph".into(), json!("C"));
        event.insert("name".into(), json!(name.value(i)));
        // Kineto writes pids as numbers; keep them numbers where they are.
        let p = pid.value(i);
        event.insert(
            "pid".into(),
            p.parse::<i64>().map_or_else(|_| json!(p), |n| json!(n)),
        );
        event.insert("ts".into(), number_json(ts.value(i)));
        if !id.is_null(i) {
            event.insert("id".into(), json!(id.value(i)));
        }
        let mut args = Map::new();
        args.insert(arg.value(i).to_string(), number_json(value.value(i)));
        event.insert("args".into(), Value::Object(args));
        events.push(Value::Object(event));
    }
    Ok(events)
}

/// A whole number as an integer, else a float.
fn number_json(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// A trace document taken apart to be written back: its top-level values and
/// its events, each kept as the JSON text the file has.
pub struct TraceDocument {
    /// Every top-level key but traceEvents.
    others: BTreeMap<String, Box<RawValue>>,
    /// traceEvents, in file order.
    pub events: Vec<Box<RawValue>>,
}

impl TraceDocument {
    /// `bytes` (a trace's JSON) taken apart; the error says what is wrong,
    /// without the file's name.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let mut others: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(bytes)
            .map_err(|e| format!("not a trace (a JSON object) to write back: {e}"))?;
        let events = others
            .remove("traceEvents")
            .ok_or_else(|| "the trace has no traceEvents".to_string())?;
        let events = serde_json::from_str(events.get())
            .map_err(|e| format!("traceEvents is not a list: {e}"))?;
        Ok(Self { others, events })
    }

    /// The document with `events` in place of its own: the other keys as they
    /// were, then traceEvents, one event per line.
    pub fn write<'a>(
        &self,
        out: &mut dyn Write,
        events: impl ExactSizeIterator<Item = &'a str>,
    ) -> std::io::Result<()> {
        out.write_all(b"{\n")?;
        for (key, value) in &self.others {
            serde_json::to_writer(&mut *out, key)?;
            writeln!(out, ": {},", value.get())?;
        }
        out.write_all(b"\"traceEvents\": [\n")?;
        let count = events.len();
        for (i, event) in events.enumerate() {
            out.write_all(event.as_bytes())?;
            out.write_all(if i + 1 < count { b",\n" } else { b"\n" })?;
        }
        out.write_all(b"]\n}\n")
    }
}

/// Writes a trace file to `target` through `write`: under a temporary name
/// renamed into place, gzip-compressed when the name ends in `.gz`.
pub fn write_trace_file(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let gzip = target
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    atomic::write_file(target, |out| {
        if gzip {
            let mut encoder = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            write(&mut encoder)?;
            encoder.finish().map(|_| ())
        } else {
            write(out)
        }
    })
    .map_err(|e| Error::Output(format!("{}: {e}", target.display())))
}

/// Writes the trace at `source` to `target` with `extra` events appended to
/// its traceEvents; returns how many events the written trace has.
pub fn write_trace_with(source: &str, target: &Path, extra: &[Value]) -> Result<usize, Error> {
    let bytes = crate::ingest::read_document(source)?;
    let document =
        TraceDocument::parse(&bytes).map_err(|e| Error::Usage(format!("{source}: {e}")))?;
    let extra = extra
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::query)?;
    let events: Vec<&str> = document
        .events
        .iter()
        .map(|e| e.get())
        .chain(extra.iter().map(String::as_str))
        .collect();
    write_trace_file(target, |out| document.write(out, events.iter().copied()))?;
    Ok(events.len())
}
