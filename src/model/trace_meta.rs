//! `trace_meta`: what the trace says about itself.

use super::columns::{col, repeat_dict, utf8, TableDoc};
use crate::ingest::RawTrace;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "trace_meta",
    doc: "Top-level keys of the trace other than traceEvents (deviceProperties, distributedInfo, schemaVersion, versions, ...), plus `source` (the input path), `source_format` (\"kineto\", \"rocprofv3\", \"pftrace\" or \"jax\": the reader that read it), `event_count` and `integer_times` (true when every ts and dur is written as a JSON integer, as older Kineto versions write them).",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("key", Utf8, "Top-level key, or source / event_count / integer_times."),
        col!("value", Utf8, "The value as JSON text."),
    ],
};

/// Whether the trace writes every `ts` and `dur` as a JSON integer (and has any).
/// Python reads those as ints, so TraceLens's sums, minima and maxima of them
/// stay integers (`11055`, `np.int64(5)`), and the reports follow.
fn integer_times(trace: &RawTrace) -> bool {
    trace.timed_events > 0 && trace.fractional_times == 0
}

pub fn build(trace: &RawTrace, name: &str) -> Result<RecordBatch, ArrowError> {
    let mut rows: Vec<(String, String)> = vec![
        (
            "source".into(),
            serde_json::Value::from(trace.source.clone()).to_string(),
        ),
        ("event_count".into(), trace.len().to_string()),
        ("integer_times".into(), integer_times(trace).to_string()),
        (
            "source_format".into(),
            serde_json::Value::from(trace.native.format.as_str()).to_string(),
        ),
    ];
    rows.extend(trace.metadata.iter().cloned());
    DOC.batch(vec![
        ("trace", repeat_dict(name, rows.len())),
        ("key", utf8(rows.iter().map(|(k, _)| Some(k)))),
        ("value", utf8(rows.iter().map(|(_, v)| Some(v)))),
    ])
}
