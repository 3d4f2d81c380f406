//! `tracesql export TRACE --critical-path OUT.json`: the trace with its
//! critical path overlaid, as Holistic Trace Analysis'
//! `overlay_critical_path_analysis` writes it, for Perfetto or chrome://tracing.
//!
//! The path is the `critical_path_steps` view's (the session's `hta.annotation`
//! and `hta.instance`). Every event with a node on the path gets
//! `args.critical = 1`; each dependency, kernel launch delay and sync edge of
//! the path becomes a pair of flow events (`cat` and `name` `critical_path`,
//! `args` its weight, type and `critical: true`), drawn as an arrow. As in HTA's
//! default (`only_show_critical_events`), complete (`X`) events off the path are
//! left out but for user annotations and python frames, and every other event
//! is kept. Events are written as the file has them (their JSON text), but for
//! the `args` of the marked ones.
//!
//! Unlike HTA, the file is gzip only when its name ends in `.gz`, flow ids run
//! in path order, and an event without `args` gets some (HTA fails). The file
//! is written under a temporary name and renamed into place once complete.

use std::borrow::Cow;
use std::path::Path;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use serde_json::{json, Map, Value};

use super::overlay::{write_trace_file, TraceDocument};
use crate::engine::Engine;
use crate::Error;

/// One edge of the critical path: its nodes (an event's start or end), type
/// (critical_path_graph's) and weight, µs.
#[derive(Debug, Clone, PartialEq)]
pub struct PathEdge {
    pub src_uid: i64,
    pub src_start: bool,
    pub dst_uid: i64,
    pub dst_start: bool,
    pub kind: String,
    pub weight: f64,
}

/// What an overlay holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlay {
    /// Events marked `critical`.
    pub critical_events: usize,
    /// Flow event pairs added.
    pub flows: usize,
    /// Events written (flows included).
    pub events: usize,
}

/// The critical path of the session's one trace, in path order.
pub async fn path_edges(engine: &Engine) -> Result<Vec<PathEdge>, Error> {
    let sql =
        "SELECT src_uid, src_start, dst_uid, dst_start, type, CAST(weight AS DOUBLE) AS weight \
               FROM critical_path_steps ORDER BY trace, step";
    let results = engine.run_sql(sql).await.map_err(Error::query)?;
    let mut edges = Vec::new();
    for batch in results.iter().flatten() {
        let int = |i: usize| batch.column(i).as_primitive::<Int64Type>().clone();
        let (src, dst) = (int(0), int(2));
        let (src_start, dst_start) = (batch.column(1).as_boolean(), batch.column(3).as_boolean());
        let kind = datafusion::arrow::compute::cast(
            batch.column(4),
            &datafusion::arrow::datatypes::DataType::Utf8,
        )
        .map_err(Error::query)?;
        let kind = kind.as_string::<i32>();
        let weight = batch.column(5).as_primitive::<Float64Type>();
        for r in 0..batch.num_rows() {
            edges.push(PathEdge {
                src_uid: src.value(r),
                src_start: src_start.value(r),
                dst_uid: dst.value(r),
                dst_start: dst_start.value(r),
                kind: kind.value(r).to_string(),
                weight: if weight.is_null(r) {
                    0.0
                } else {
                    weight.value(r)
                },
            });
        }
    }
    Ok(edges)
}

/// The edge types HTA draws as arrows by default.
const DRAWN: [&str; 3] = ["dependency", "kernel_launch_delay", "sync_dependency"];

/// The fields of an event the overlay reads.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    ph: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    cat: Option<std::borrow::Cow<'a, str>>,
}

/// `document` (a Kineto trace's JSON) with `path` overlaid (see the module docs).
pub fn overlay(document: &[u8], path: &[PathEdge]) -> Result<(Vec<u8>, Overlay), Error> {
    let document = TraceDocument::parse(document).map_err(Error::Usage)?;
    let (events, counts) = overlaid_events(&document, path)?;
    let mut out = Vec::new();
    document
        .write(&mut out, events.iter().map(|e| e.as_ref()))
        .map_err(|e| Error::Output(e.to_string()))?;
    Ok((out, counts))
}

/// The events of `document` with `path` overlaid, in the order they are
/// written: those kept borrow the document's text, the marked ones and the
/// flows are new.
fn overlaid_events<'a>(
    document: &'a TraceDocument,
    path: &[PathEdge],
) -> Result<(Vec<Cow<'a, str>>, Overlay), Error> {
    let bad = |e: serde_json::Error| Error::Usage(format!("an event is not a JSON object: {e}"));
    let events = &document.events;
    let on_path: std::collections::BTreeSet<usize> = path
        .iter()
        .flat_map(|e| [e.src_uid, e.dst_uid])
        .filter_map(|u| usize::try_from(u).ok())
        .collect();
    let parse = |i: usize| -> Result<Map<String, Value>, Error> {
        let raw = events.get(i).ok_or_else(|| {
            Error::Usage(format!("the path names event {i}, past the trace's last"))
        })?;
        serde_json::from_str(raw.get()).map_err(bad)
    };
    // A flow end point: the event's start, or its end (a GPU event's last µs).
    let endpoint = |uid: i64, start: bool| -> Result<(Value, Value, i64), Error> {
        let event = parse(usize::try_from(uid).unwrap_or(usize::MAX))?;
        let number = |key: &str| event.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        let (ts, dur) = (number("ts"), number("dur"));
        let on_gpu = event
            .get("args")
            .and_then(|a| a.get("device"))
            .and_then(Value::as_f64)
            .is_some_and(|d| d >= 0.0);
        let at = if start {
            ts
        } else {
            ts + dur - if on_gpu { dur.min(1.0) } else { 0.0 }
        };
        let field = |key: &str| event.get(key).cloned().unwrap_or(Value::Null);
        Ok((field("pid"), field("tid"), at as i64))
    };
    let mut flows = Vec::new();
    for edge in path.iter().filter(|e| DRAWN.contains(&e.kind.as_str())) {
        let id = flows.len() / 2;
        let args = json!({
            "weight": edge.weight as i64,
            "critical": true,
            "type": format!("critical_path_{}", edge.kind),
        });
        for (uid, start, ph) in [
            (edge.src_uid, edge.src_start, "s"),
            (edge.dst_uid, edge.dst_start, "f"),
        ] {
            let (pid, tid, ts) = endpoint(uid, start)?;
            let mut flow = json!({
                "ph": ph, "id": id, "pid": pid, "tid": tid, "ts": ts,
                "cat": "critical_path", "name": "critical_path", "args": args.clone(),
            });
            if ph == "f" {
                flow["bp"] = json!("e");
            }
            flows.push(Cow::Owned(
                serde_json::to_string(&flow).map_err(Error::query)?,
            ));
        }
    }
    let mut kept: Vec<Cow<'a, str>> = Vec::with_capacity(events.len() + flows.len());
    let mut critical_events = 0;
    for (i, raw) in events.iter().enumerate() {
        if on_path.contains(&i) {
            let mut event = parse(i)?;
            let args = event
                .entry("args")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(args) = args {
                args.insert("critical".into(), json!(1));
            }
            kept.push(Cow::Owned(
                serde_json::to_string(&event).map_err(Error::query)?,
            ));
            critical_events += 1;
            continue;
        }
        let head: Head = serde_json::from_str(raw.get()).map_err(bad)?;
        let complete = head.ph.as_deref() == Some("X");
        let shown = matches!(
            head.cat.as_deref(),
            Some("user_annotation" | "python_function")
        );
        if !complete || shown {
            kept.push(Cow::Borrowed(raw.get()));
        }
    }
    let counts = Overlay {
        critical_events,
        flows: flows.len() / 2,
        events: kept.len() + flows.len(),
    };
    kept.extend(flows);
    Ok((kept, counts))
}

/// Writes the trace at `source` with the critical path of the session's trace
/// overlaid to `target` (gzip when its name ends in `.gz`), atomically.
pub async fn write_overlay(engine: &Engine, source: &str, target: &Path) -> Result<Overlay, Error> {
    let path = path_edges(engine).await?;
    let bytes = crate::ingest::read_document(source)?;
    let in_source = |why: String| Error::Usage(format!("{source}: {why}"));
    let document = TraceDocument::parse(&bytes).map_err(in_source)?;
    let (events, counts) = overlaid_events(&document, &path).map_err(|e| match e {
        Error::Usage(why) => in_source(why),
        e => e,
    })?;
    // Streamed to the file, not built in memory first.
    write_trace_file(target, |out| {
        document.write(out, events.iter().map(|e| e.as_ref()))
    })?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"{"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10.5, "dur": 20.25, "args": {"External id": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 40, "dur": 5},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 50, "dur": 10, "args": {"device": 0, "stream": 7}},
        {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 1, "dur": 90},
        {"ph": "X", "cat": "cpu_op", "name": "off the path", "pid": 1, "tid": 1, "ts": 70, "dur": 1},
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}
    ]}"#;

    fn edge(src: (i64, bool), dst: (i64, bool), kind: &str, weight: f64) -> PathEdge {
        PathEdge {
            src_uid: src.0,
            src_start: src.1,
            dst_uid: dst.0,
            dst_start: dst.1,
            kind: kind.into(),
            weight,
        }
    }

    #[test]
    fn marks_the_path_and_draws_its_dependencies() {
        let path = [
            edge((0, true), (0, false), "operator", 20.0),
            edge((0, false), (1, true), "dependency", 0.0),
            edge((1, true), (2, true), "kernel_launch_delay", 10.0),
            edge((2, true), (2, false), "operator", 10.0),
        ];
        let (bytes, counts) = overlay(TRACE.as_bytes(), &path).unwrap();
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(doc["schemaVersion"], json!(1));
        let events = doc["traceEvents"].as_array().unwrap();
        let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
        // Off the path: left out ("off the path"); a python frame and metadata stay.
        assert_eq!(
            names,
            [
                "a",
                "b",
                "k",
                "f",
                "process_name",
                "critical_path",
                "critical_path",
                "critical_path",
                "critical_path"
            ]
        );
        assert_eq!(events[0]["args"], json!({"External id": 1, "critical": 1}));
        assert_eq!(events[1]["args"], json!({"critical": 1}));
        assert_eq!(
            counts,
            Overlay {
                critical_events: 3,
                flows: 2,
                events: 9
            }
        );
        // The dependency leaves a's end (10.5 + 20.25 = 30.75, truncated) for
        // b's start; the launch delay reaches the kernel's start.
        let flows: Vec<&Value> = events
            .iter()
            .filter(|e| e["cat"] == "critical_path")
            .collect();
        assert_eq!(
            (
                flows[0]["ph"].as_str(),
                flows[0]["ts"].as_i64(),
                flows[0]["id"].as_i64()
            ),
            (Some("s"), Some(30), Some(0))
        );
        assert_eq!(
            (flows[1]["ph"].as_str(), flows[1]["bp"].as_str()),
            (Some("f"), Some("e"))
        );
        assert_eq!(flows[1]["ts"].as_i64(), Some(40));
        assert_eq!(
            flows[3]["args"]["type"],
            json!("critical_path_kernel_launch_delay")
        );
        assert_eq!(flows[3]["args"]["weight"], json!(10));
        assert_eq!(
            (flows[3]["pid"].as_i64(), flows[3]["tid"].as_i64()),
            (Some(0), Some(7))
        );
    }

    #[test]
    fn a_path_past_the_events_is_an_error() {
        let path = [edge((0, true), (9, true), "dependency", 0.0)];
        assert!(overlay(TRACE.as_bytes(), &path).is_err());
        assert!(overlay(b"[1, 2]", &[]).is_err());
    }
}
