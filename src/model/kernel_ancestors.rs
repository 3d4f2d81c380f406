//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.
//!
//! The table is the closure of `events.parent_uid` over the GPU events, so it is
//! not held: it is derived from the `events` and `kernels` tables when a query
//! reads it (a few milliseconds for the 223 K rows of the benchmark trace, whose
//! 7 MB a load then does not hold). See `engine::derived_tables`.

use super::call_tree::Parents;
use super::columns::{col, int64_values, rank_of, repeat_dict, set_rank, TableDoc};
use datafusion::arrow::array::{AsArray, Int64Array};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "kernel_ancestors",
    doc: "The closure of the call tree over GPU work: one row per linked GPU event and each event above it (its launch call, the cpu_ops and python frames around that). Subtree questions (\"all GPU time under this op\") are a join with this table.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("kernel_uid", Int64, "uid of a GPU event (kernels.uid)."),
        col!("ancestor_uid", Int64, "uid of an event above it."),
        col!("depth", Int64, "1 for the launch call, 2 for its parent, and so on up."),
    ],
};

fn kernel_uids(kernels: &RecordBatch) -> Result<&Int64Array, ArrowError> {
    kernels
        .column_by_name("uid")
        .and_then(|a| a.as_primitive_opt::<Int64Type>())
        .ok_or_else(|| ArrowError::SchemaError("kernels has no Int64 uid".into()))
}

/// The table for one trace, from its `events` and `kernels` batches.
pub fn derive(
    events: &RecordBatch,
    kernels: &RecordBatch,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let parents = Parents::new(events)?;
    let (mut kernel, mut ancestor, mut depths) = (Vec::new(), Vec::new(), Vec::new());
    for g in kernel_uids(kernels)?.iter().flatten() {
        parents.walk(g, |depth, a| {
            kernel.push(g);
            ancestor.push(a);
            depths.push(depth);
        });
    }
    let batch = DOC.batch(vec![
        ("trace", repeat_dict(name, kernel.len())),
        ("kernel_uid", int64_values(kernel)),
        ("ancestor_uid", int64_values(ancestor)),
        ("depth", int64_values(depths)),
    ])?;
    set_rank(&batch, rank_of(kernels))
}

/// The number of rows [`derive`] gives, without building them.
pub fn count(events: &RecordBatch, kernels: &RecordBatch) -> Result<usize, ArrowError> {
    let parents = Parents::new(events)?;
    let mut rows = 0;
    for g in kernel_uids(kernels)?.iter().flatten() {
        parents.walk(g, |_, _| rows += 1);
    }
    Ok(rows)
}
