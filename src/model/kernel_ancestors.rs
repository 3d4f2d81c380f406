//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.

use super::columns::{col, int64, repeat_utf8, TableDoc};
use crate::ingest::RawTrace;
use crate::tree::Links;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "kernel_ancestors",
    doc: "The closure of the call tree over GPU work: one row per linked GPU event and each event above it (its launch call, the cpu_ops and python frames around that). Subtree questions (\"all GPU time under this op\") are a join with this table.",
    columns: &[
        col!("trace", Utf8, "Trace name."),
        col!("kernel_uid", Int64, "uid of a GPU event (kernels.uid)."),
        col!("ancestor_uid", Int64, "uid of an event above it."),
        col!("depth", Int64, "1 for the launch call, 2 for its parent, and so on up."),
    ],
};

pub fn build(trace: &RawTrace, links: &Links, name: &str) -> Result<RecordBatch, ArrowError> {
    let mut rows: Vec<(i64, i64, i64)> = Vec::new();
    for g in (0..trace.len()).filter(|&u| trace.kind[u].is_gpu()) {
        let mut depth = 0;
        let mut at = links.parent[g].map(|(p, _)| p);
        while let Some(uid) = at {
            depth += 1;
            rows.push((g as i64, uid as i64, depth));
            at = links.parent[uid as usize].map(|(p, _)| p);
        }
    }
    DOC.batch(vec![
        ("trace", repeat_utf8(name, rows.len())),
        ("kernel_uid", int64(rows.iter().map(|r| Some(r.0)))),
        ("ancestor_uid", int64(rows.iter().map(|r| Some(r.1)))),
        ("depth", int64(rows.iter().map(|r| Some(r.2)))),
    ])
}
