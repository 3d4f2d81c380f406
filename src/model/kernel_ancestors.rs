//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.
//!
//! The table is the closure of `events.parent_uid` over the GPU events, so it is
//! not held: it is derived from the `events` and `kernels` tables when a query
//! reads it (a few milliseconds for the 223 K rows of the benchmark trace, whose
//! 7 MB a load then does not hold). See `engine::derived_tables`.

use super::call_tree::Parents;

use super::columns::{col, int64_values, rank_column, rank_of, repeat_dict, TableDoc, RANK};
use datafusion::arrow::array::{Array, AsArray, Int64Array};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatchOptions;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};
use std::sync::Arc;

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
    let mut whole = Batches::new(events, kernels, name, projection, usize::MAX)?;
    match whole.next() {
        Some(batch) => batch,
        None => Ok(RecordBatch::new_empty(whole.schema)),
    }
}

/// The table for one trace a batch at a time, each of the kernels whose
/// ancestors make about `rows_per_batch` rows (a kernel's rows are never
/// split), with only the columns at `projection` as in [`derive_columns`]. A
/// scan holds one batch instead of the table.
pub struct Batches {
    schema: SchemaRef,
    parents: Parents,
    kernels: Int64Array,
    /// The next kernel (index into `kernels`).
    next: usize,
    name: String,
    rank: Option<i64>,
    rows_per_batch: usize,
}

impl Batches {
    pub fn new(
        events: &RecordBatch,
        kernels: &RecordBatch,
        name: &str,
        projection: Option<&[usize]>,
        rows_per_batch: usize,
    ) -> Result<Self, ArrowError> {
        Ok(Batches {
            schema: DOC.projected_schema(projection)?,
            parents: Parents::new(events)?,
            kernels: kernel_uids(kernels)?.clone(),
            next: 0,
            name: name.to_string(),
            rank: rank_of(kernels),
            rows_per_batch: rows_per_batch.max(1),
        })
    }

    /// The rows of the kernels from `self.next` on, up to the batch's size.
    fn batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let wants = |column: &str| self.schema.index_of(column).is_ok();
        let (keep_kernel, keep_ancestor, keep_depth) =
            (wants("kernel_uid"), wants("ancestor_uid"), wants("depth"));
        let (mut kernel, mut ancestor, mut depths) = (Vec::new(), Vec::new(), Vec::new());
        let mut rows = 0;
        while rows < self.rows_per_batch && self.next < self.kernels.len() {
            let at = self.next;
            self.next += 1;
            if self.kernels.is_null(at) {
                continue;
            }
            let g = self.kernels.value(at);
            self.parents.walk(g, |depth, a| {
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
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for field in self.schema.fields() {
            columns.push(match field.name().as_str() {
                "trace" => repeat_dict(&self.name, rows),
                "kernel_uid" => int64_values(std::mem::take(&mut kernel)),
                "ancestor_uid" => int64_values(std::mem::take(&mut ancestor)),
                "depth" => int64_values(std::mem::take(&mut depths)),
                column if column == RANK.name => rank_column(self.rank, rows),
                other => {
                    return Err(ArrowError::SchemaError(format!(
                        "kernel_ancestors has no column {other}"
                    )))
                }
            });
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.kernels.len() {
            return None;
        }
        match self.batch() {
            // The last kernels had no ancestors: nothing more to give.
            Ok(batch) if batch.num_rows() == 0 => None,
            batch => Some(batch),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::ArrayRef;
    use datafusion::arrow::compute::concat_batches;

    /// Events 0..8: a chain 0 <- 1 <- 2 <- 3, and 4 <- 5; GPU events 6 (under
    /// 3), 7 (under 5), 8 (under nothing).
    fn tree() -> (RecordBatch, RecordBatch) {
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            None,
            Some(4),
            Some(3),
            Some(5),
            None,
        ];
        let column = |values: Vec<Option<i64>>| Arc::new(Int64Array::from(values)) as ArrayRef;
        let events = RecordBatch::try_from_iter([
            ("uid", column((0..9).map(Some).collect())),
            ("parent_uid", column(parents.to_vec())),
        ])
        .expect("events");
        let kernels = RecordBatch::try_from_iter([
            ("uid", column(vec![Some(6), Some(7), Some(8)])),
            ("rank", column(vec![Some(3); 3])),
        ])
        .expect("kernels");
        (events, kernels)
    }

    /// Made a few rows at a time, the table is the one made whole, and no
    /// kernel's rows are split between batches.
    #[test]
    fn batches_make_the_whole_table() {
        let (events, kernels) = tree();
        let whole = derive(&events, &kernels, "t").expect("whole");
        assert_eq!(whole.num_rows(), 4 + 2);
        for per_batch in [1, 2, 3, 4, 100] {
            let batches: Vec<RecordBatch> = Batches::new(&events, &kernels, "t", None, per_batch)
                .expect("batches")
                .collect::<Result<_, _>>()
                .expect("each batch");
            for batch in &batches {
                // A batch ends with the kernel that reaches the size: at most
                // one chain (4 rows here) past it, and never empty.
                assert!(batch.num_rows() < per_batch + 4, "{per_batch}");
                assert!(batch.num_rows() > 0, "{per_batch}: an empty batch");
            }
            let joined = concat_batches(&whole.schema(), &batches).expect("concat");
            assert_eq!(joined, whole, "{per_batch} rows per batch");
        }
        // Depth 1 is the direct parent; the rank is the kernels' rank.
        let depth = whole.column_by_name("depth").expect("depth");
        let depth: Vec<i64> = depth.as_primitive::<Int64Type>().values().to_vec();
        assert_eq!(depth, [1, 2, 3, 4, 1, 2]);
        assert_eq!(rank_of(&whole), Some(3));
    }

    /// A projection gives only its columns, in its order.
    #[test]
    fn batches_project() {
        let (events, kernels) = tree();
        let (depth, kernel) = (
            DOC.schema().index_of("depth"),
            DOC.schema().index_of("kernel_uid"),
        );
        let projection = [depth.expect("depth"), kernel.expect("kernel_uid")];
        let batch = Batches::new(&events, &kernels, "t", Some(&projection), 2)
            .expect("batches")
            .next()
            .expect("one batch")
            .expect("built");
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["depth", "kernel_uid"]);
        assert_eq!(batch.num_rows(), 4, "kernel 6's four ancestors, whole");
    }
}
