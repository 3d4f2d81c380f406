//! `kernel_ancestors`: every (GPU event, ancestor) pair of the call tree.
//!
//! The table is the closure of `events.parent_uid` over the GPU events, so it is
//! not held: it is derived from the `events` and `kernels` tables when a query
//! reads it (a few milliseconds for the 223 K rows of the benchmark trace, whose
//! 7 MB a load then does not hold). See `engine::derived_tables`.

use std::collections::HashMap;

use super::columns::{col, int64_values, repeat_dict, TableDoc};
use datafusion::arrow::array::{Array, AsArray, Int64Array};
use datafusion::arrow::datatypes::Int64Type;
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

/// The parent of each event of one trace, looked up by uid.
struct Parents<'a> {
    parent: &'a Int64Array,
    /// Row of each uid when rows are not in uid order (never for tracesql's own
    /// tables, where row `i` is uid `i`).
    row_of: Option<HashMap<i64, usize>>,
}

impl<'a> Parents<'a> {
    fn new(events: &'a RecordBatch) -> Result<Self, ArrowError> {
        let column = |name: &str| -> Result<&'a Int64Array, ArrowError> {
            let array = events
                .column_by_name(name)
                .ok_or_else(|| ArrowError::SchemaError(format!("events has no {name}")))?;
            array
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| ArrowError::SchemaError(format!("events.{name} is not Int64")))
        };
        let (uid, parent) = (column("uid")?, column("parent_uid")?);
        let in_order = uid.null_count() == 0 && uid.values().iter().zip(0..).all(|(&u, i)| u == i);
        let row_of = (!in_order).then(|| {
            let uids = uid.iter().enumerate();
            uids.filter_map(|(row, u)| Some((u?, row))).collect()
        });
        Ok(Parents { parent, row_of })
    }

    fn of(&self, uid: i64) -> Option<i64> {
        let row = match &self.row_of {
            None => usize::try_from(uid).ok(),
            Some(rows) => rows.get(&uid).copied(),
        }?;
        (row < self.parent.len() && self.parent.is_valid(row)).then(|| self.parent.value(row))
    }

    /// Calls `visit(depth, ancestor)` for each event above `uid`, nearest first.
    /// A chain longer than the trace (a cycle, in tables not built by tracesql)
    /// stops there.
    fn walk(&self, uid: i64, mut visit: impl FnMut(i64, i64)) {
        let mut at = self.of(uid);
        let mut depth = 0i64;
        while let Some(ancestor) = at {
            depth += 1;
            if depth as usize > self.parent.len() {
                break;
            }
            visit(depth, ancestor);
            at = self.of(ancestor);
        }
    }
}

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
    DOC.batch(vec![
        ("trace", repeat_dict(name, kernel.len())),
        ("kernel_uid", int64_values(kernel)),
        ("ancestor_uid", int64_values(ancestor)),
        ("depth", int64_values(depths)),
    ])
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
