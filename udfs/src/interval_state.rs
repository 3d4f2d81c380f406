//! The partial state shared by the interval aggregates ([`crate::busy_time`] and
//! [`crate::uncovered_time`]): the raw `[start, end]` pairs seen so far.
//!
//! Why raw pairs rather than merged ones: merging is cheap, and keeping the inputs
//! lets the final merge see every interval at once, exactly like the reference,
//! which merges the whole set in one pass. The union does not depend on the order
//! in which partitions arrive (ties in start merge to the same result), so the
//! aggregates are deterministic under any plan.
//!
//! The state travels between aggregation stages as two `List<Float64>` columns.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Float64Builder, ListArray, ListBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::utils::format_state_name;

use crate::intervals::Interval;

/// Intervals collected by one accumulator, in arrival order.
#[derive(Debug, Default)]
pub(crate) struct IntervalBuffer {
    starts: Vec<f64>,
    ends: Vec<f64>,
}

impl IntervalBuffer {
    /// The two state fields (`<name>[<prefix>starts]`, `<name>[<prefix>ends]`).
    pub(crate) fn state_fields(name: &str, prefix: &str) -> Vec<FieldRef> {
        ["starts", "ends"]
            .into_iter()
            .map(|part| {
                Arc::new(Field::new(
                    format_state_name(name, &format!("{prefix}{part}")),
                    DataType::new_list(DataType::Float64, true),
                    true,
                ))
            })
            .collect()
    }

    /// Adds the rows of `ts`/`t_end` (Float64 arrays) for which `keep(row)` holds.
    /// Rows with a NULL bound are ignored.
    pub(crate) fn push_rows(
        &mut self,
        ts: &ArrayRef,
        t_end: &ArrayRef,
        keep: impl Fn(usize) -> bool,
    ) -> Result<()> {
        let (ts, t_end) = (as_f64(ts)?, as_f64(t_end)?);
        for row in 0..ts.len() {
            if let Some((start, end)) = interval_at(ts, t_end, row).filter(|_| keep(row)) {
                self.push(start, end);
            }
        }
        Ok(())
    }

    /// Adds one interval.
    pub(crate) fn push(&mut self, start: f64, end: f64) {
        self.starts.push(start);
        self.ends.push(end);
    }

    /// The states of many buffers as two list columns (starts, ends), one row
    /// each: what [`Self::merge`] reads, for grouped aggregation.
    pub(crate) fn state_columns(buffers: &[IntervalBuffer]) -> Vec<ArrayRef> {
        let lists = |part: fn(&IntervalBuffer) -> &Vec<f64>| -> ArrayRef {
            let mut builder = ListBuilder::with_capacity(
                Float64Builder::with_capacity(buffers.iter().map(|b| part(b).len()).sum()),
                buffers.len(),
            );
            for buffer in buffers {
                builder.values().append_slice(part(buffer));
                builder.append(true);
            }
            Arc::new(builder.finish())
        };
        vec![lists(|b| &b.starts), lists(|b| &b.ends)]
    }

    /// Absorbs row `row` of a state batch produced by [`Self::state_columns`].
    pub(crate) fn merge_row(
        &mut self,
        starts: &ListArray,
        ends: &ListArray,
        row: usize,
    ) -> Result<()> {
        if starts.is_null(row) || ends.is_null(row) {
            return Ok(());
        }
        let (s, e) = (starts.value(row), ends.value(row));
        let (s, e) = (
            s.as_primitive::<Float64Type>(),
            e.as_primitive::<Float64Type>(),
        );
        if s.len() != e.len() {
            return exec_err!("interval state has {} starts but {} ends", s.len(), e.len());
        }
        self.starts.extend(s.values().iter());
        self.ends.extend(e.values().iter());
        Ok(())
    }

    /// The state as two one-row list scalars (starts, ends).
    pub(crate) fn state(&self) -> Vec<ScalarValue> {
        [&self.starts, &self.ends]
            .into_iter()
            .map(|values| {
                let array: ArrayRef = Arc::new(Float64Array::from(values.clone()));
                SingleRowListArrayBuilder::new(array).build_list_scalar()
            })
            .collect()
    }

    /// Absorbs a batch of states produced by [`Self::state`].
    pub(crate) fn merge(&mut self, starts: &ArrayRef, ends: &ArrayRef) -> Result<()> {
        let (starts, ends) = (starts.as_list::<i32>(), ends.as_list::<i32>());
        for row in 0..starts.len() {
            self.merge_row(starts, ends, row)?;
        }
        Ok(())
    }

    /// The collected intervals, in arrival order.
    pub(crate) fn intervals(&self) -> Vec<Interval> {
        self.starts
            .iter()
            .copied()
            .zip(self.ends.iter().copied())
            .collect()
    }

    /// Heap bytes held.
    pub(crate) fn size(&self) -> usize {
        (self.starts.capacity() + self.ends.capacity()) * size_of::<f64>()
    }
}

/// Row `row`'s interval; None when either bound is NULL (such rows are ignored).
pub(crate) fn interval_at(
    ts: &Float64Array,
    t_end: &Float64Array,
    row: usize,
) -> Option<(f64, f64)> {
    (ts.is_valid(row) && t_end.is_valid(row)).then(|| (ts.value(row), t_end.value(row)))
}

pub(crate) fn as_f64(array: &ArrayRef) -> Result<&Float64Array> {
    match array.as_primitive_opt::<Float64Type>() {
        Some(a) => Ok(a),
        None => exec_err!(
            "expected a Float64 interval bound, got {}",
            array.data_type()
        ),
    }
}
