//! The `FILTER (WHERE ...)` clause of an aggregate, as grouped accumulators get it.

use datafusion::arrow::array::{Array, BooleanArray};

/// Whether row `row` passes an aggregate's FILTER (no filter: every row; a NULL
/// condition drops the row, as in SQL).
pub(crate) fn passes(filter: Option<&BooleanArray>, row: usize) -> bool {
    filter.is_none_or(|f| f.is_valid(row) && f.value(row))
}
