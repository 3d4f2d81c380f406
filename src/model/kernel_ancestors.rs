//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.

use super::columns::{col, int64_values, repeat_dict, TableDoc};
use crate::ingest::RawTrace;
use crate::tree::Links;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "kernel_ancestors",
    doc: "The closure of the call tree over GPU work: one row per linked GPU event and each event above it (its launch call, the cpu_ops and python frames around that). Subtree questions (\"all GPU time under this op\") are a join with this table.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        col!("kernel_uid", Int64, "uid of a GPU event (kernels.uid)."),
        col!("ancestor_uid", Int64, "uid of an event above it."),
        col!("depth", Int64, "1 for the launch call, 2 for its parent, and so on up."),
    ],
};

pub fn build(trace: &RawTrace, links: &Links, name: &str) -> Result<RecordBatch, ArrowError> {
    let (mut kernel, mut ancestor, mut depths) = (Vec::new(), Vec::new(), Vec::new());
    for g in (0..trace.len()).filter(|&u| trace.kind[u].is_gpu()) {
        let mut depth = 0;
        let mut at = links.parent[g].map(|(p, _)| p);
        while let Some(uid) = at {
            depth += 1;
            kernel.push(g as i64);
            ancestor.push(uid as i64);
            depths.push(depth);
            at = links.parent[uid as usize].map(|(p, _)| p);
        }
    }
    DOC.batch(vec![
        ("trace", repeat_dict(name, kernel.len())),
        ("kernel_uid", int64_values(kernel)),
        ("ancestor_uid", int64_values(ancestor)),
        ("depth", int64_values(depths)),
    ])
}
