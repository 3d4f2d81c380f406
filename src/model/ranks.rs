//! `ranks`: which rank of a distributed job each trace is, and the job facts a
//! trace records about itself (`distributedInfo`, `baseTimeNanoseconds`,
//! `deviceProperties`).
//!
//! At load, `rank` is what the trace says (`distributedInfo.rank`), else what
//! its file name says; the `collectives` command resolves the rank of every
//! trace of a run (from the trace, else the file name under `--rank-regex`,
//! else the position) and replaces these rows, with the node each rank is on.
//! Every other table carries the same rank in its `rank` column.

use serde_json::Value;

use super::columns::{col, int64, repeat_dict, utf8, TableDoc};
use crate::ingest::RawTrace;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "ranks",
    doc: "One row per trace: its rank in a distributed job and what it records of the job. `tracesql collectives` fills rank for every trace of the run and the node columns.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        col!("rank", Int64, "Global rank: distributedInfo.rank, else from the file name (--rank-regex under `tracesql collectives`, TraceLens's pattern elsewhere); under `tracesql collectives` else the position on the command line. NULL when unknown."),
        col!("rank_from", Utf8, "Where rank came from: distributedInfo, file name or position; NULL when unknown."),
        col!("world_size", Int64, "distributedInfo.world_size, or --world-size."),
        col!("file", Utf8, "The input path."),
        col!("base_time_ns", Int64, "baseTimeNanoseconds: Kineto writes ts relative to it (absolute ns = base + ts·1000); NULL in older traces, whose ts are absolute."),
        col!("device_count", Int64, "Number of deviceProperties entries: the GPUs visible to the process."),
        col!("gpus_per_node", Int64, "--gpus-per-node, else device_count of rank 0 (under `tracesql collectives`; NULL at load)."),
        col!("node", Int64, "rank / gpus_per_node (contiguous placement); NULL when either is unknown."),
        col!("pg_config", Utf8, "distributedInfo.pg_config as JSON: the process groups this rank created, with their global ranks."),
    ],
};

/// The trace's top-level value `key`, parsed.
fn meta(trace: &RawTrace, key: &str) -> Option<Value> {
    let (_, text) = trace.metadata.iter().find(|(k, _)| k == key)?;
    serde_json::from_str(text).ok()
}

pub fn build(trace: &RawTrace, name: &str) -> Result<RecordBatch, ArrowError> {
    let info = meta(trace, "distributedInfo");
    let field = |key: &str| info.as_ref().and_then(|i| i.get(key)).cloned();
    let rank = field("rank").and_then(|v| v.as_i64());
    let devices = meta(trace, "deviceProperties").and_then(|v| v.as_array().map(Vec::len));
    let base = meta(trace, "baseTimeNanoseconds").and_then(|v| {
        v.as_i64()
            .or_else(|| v.as_f64().map(|f| f as i64))
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    });
    DOC.batch(vec![
        ("trace", repeat_dict(name, 1)),
        ("rank", int64([rank])),
        ("rank_from", utf8([rank.map(|_| "distributedInfo")])),
        (
            "world_size",
            int64([field("world_size").and_then(|v| v.as_i64())]),
        ),
        ("file", utf8([Some(&trace.source)])),
        ("base_time_ns", int64([base])),
        ("device_count", int64([devices.map(|n| n as i64)])),
        ("gpus_per_node", int64([None])),
        ("node", int64([None])),
        (
            "pg_config",
            utf8([field("pg_config").map(|v| v.to_string())]),
        ),
    ])
}
