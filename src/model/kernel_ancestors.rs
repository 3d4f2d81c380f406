//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.
//!
//! The table is the closure of `events.parent_uid` over the GPU events, so it is
//! not held: it is derived from the `events` and `kernels` tables when a query
//! reads it (a few milliseconds for the 223 K rows of the benchmark trace, whose
//! 7 MB a load then does not hold). See `engine::derived_tables`.

use super::call_tree::Parents;

use super::columns::{col, int64_values, rank_column, rank_of, repeat_dict, TableDoc, RANK};
use datafusion::arrow::array::{AsArray, Int64Array};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::arrow::record_batch::RecordBatchOptions;
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
    derive_columns(events, kernels, name, None)
}

/// [`derive`] with only the columns at `projection` (indexes into [`DOC`]'s
/// columns; None: all), in that order. A scan builds what it reads: the
/// reports' joins read three of the five columns, and on a 1 GB trace each
/// column is 6 M rows, 50 MB.
pub fn derive_columns(
    events: &RecordBatch,
    kernels: &RecordBatch,
    name: &str,
    projection: Option<&[usize]>,
) -> Result<RecordBatch, ArrowError> {
    let schema = DOC.projected_schema(projection)?;
    let wants = |column: &str| schema.index_of(column).is_ok();
    let (keep_kernel, keep_ancestor, keep_depth) =
        (wants("kernel_uid"), wants("ancestor_uid"), wants("depth"));
    let parents = Parents::new(events)?;
    let (mut kernel, mut ancestor, mut depths) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows = 0;
    for g in kernel_uids(kernels)?.iter().flatten() {
        parents.walk(g, |depth, a| {
            rows += 1;
            if keep_kernel {
                kernel.push(g);
            }
            if keep_ancestor {
                ancestor.push(a);
            }
            if keep_depth {
                depths.push(depth);
            }
        });
    }
    let mut columns = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        columns.push(match field.name().as_str() {
            "trace" => repeat_dict(name, rows),
            "kernel_uid" => int64_values(std::mem::take(&mut kernel)),
            "ancestor_uid" => int64_values(std::mem::take(&mut ancestor)),
            "depth" => int64_values(std::mem::take(&mut depths)),
            column if column == RANK.name => rank_column(rank_of(kernels), rows),
            other => {
                return Err(ArrowError::SchemaError(format!(
                    "kernel_ancestors has no column {other}"
                )))
            }
        });
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, columns, &options)
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
