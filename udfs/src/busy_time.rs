//! `busy_time(ts, t_end)`: the length of the union of `[ts, t_end]` intervals.
//!
//! Why an aggregate: "Kernel Time" and the gpu_timeline busy time are union lengths,
//! not sums of `dur` (spec §3, §4.1). Overlaps are merged, and the length is summed
//! left to right over the merged intervals, so results carry the same f64
//! quantisation as the reference (`dur = 5.792` gives `5.7919921875` at
//! `ts ≈ 1.4e12`).
//!
//! ```sql
//! -- Kernel time of each launcher.
//! SELECT launcher_uid, busy_time(ts, t_end) AS kernel_time
//! FROM kernels GROUP BY launcher_uid
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, BooleanArray, Float64Array};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};

use crate::filter::passes;
use crate::interval_state::{as_f64, interval_at, IntervalBuffer};
use crate::intervals::union_length;

/// `busy_time(ts DOUBLE, t_end DOUBLE) -> DOUBLE`.
///
/// * Rows where either bound is NULL are ignored.
/// * A group without intervals gives `0.0` (the reference raises an error there and
///   its callers guard against it; `0.0` is what they then report).
/// * The result does not depend on row order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BusyTime {
    signature: Signature,
}

impl BusyTime {
    pub fn new() -> Self {
        Self {
            signature: Signature::exact(
                vec![DataType::Float64, DataType::Float64],
                Volatility::Immutable,
            ),
        }
    }
}

impl Default for BusyTime {
    fn default() -> Self {
        Self::new()
    }
}

impl AggregateUDFImpl for BusyTime {
    fn name(&self) -> &str {
        "busy_time"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(BusyTimeAccumulator::default()))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(IntervalBuffer::state_fields(args.name, ""))
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }

    // Reports group GPU work by tens of thousands of ops (every ancestor of every
    // kernel): one accumulator object per group would be filled row by row.
    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(BusyTimeGroups::default()))
    }
}

/// `busy_time` for many groups at once: each group's intervals in one buffer.
#[derive(Debug, Default)]
struct BusyTimeGroups {
    groups: Vec<IntervalBuffer>,
}

impl BusyTimeGroups {
    fn grow(&mut self, total_num_groups: usize) {
        if self.groups.len() < total_num_groups {
            self.groups
                .resize_with(total_num_groups, IntervalBuffer::default);
        }
    }
}

impl GroupsAccumulator for BusyTimeGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let (ts, t_end) = (as_f64(&values[0])?, as_f64(&values[1])?);
        for (row, &group) in group_indices.iter().enumerate() {
            if let Some((start, end)) = interval_at(ts, t_end, row) {
                if passes(opt_filter, row) {
                    self.groups[group].push(start, end);
                }
            }
        }
        Ok(())
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let (starts, ends) = (values[0].as_list::<i32>(), values[1].as_list::<i32>());
        for (row, &group) in group_indices.iter().enumerate() {
            self.groups[group].merge_row(starts, ends, row)?;
        }
        Ok(())
    }

    /// Each row as its own group's state: a one-interval list, or an empty one
    /// for rows the filter drops or with a NULL bound.
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let (ts, t_end) = (as_f64(&values[0])?, as_f64(&values[1])?);
        let rows: Vec<IntervalBuffer> = (0..ts.len())
            .map(|row| {
                let mut one = IntervalBuffer::default();
                if let Some((start, end)) = interval_at(ts, t_end, row) {
                    if passes(opt_filter, row) {
                        one.push(start, end);
                    }
                }
                one
            })
            .collect();
        Ok(IntervalBuffer::state_columns(&rows))
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let groups = emit_to.take_needed(&mut self.groups);
        let lengths: Float64Array = groups
            .iter()
            .map(|g| Some(union_length(g.intervals())))
            .collect();
        Ok(Arc::new(lengths))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let groups = emit_to.take_needed(&mut self.groups);
        Ok(IntervalBuffer::state_columns(&groups))
    }

    fn size(&self) -> usize {
        self.groups.capacity() * size_of::<IntervalBuffer>()
            + self.groups.iter().map(IntervalBuffer::size).sum::<usize>()
    }
}

/// Collects the group's intervals; merges and measures them on `evaluate`.
#[derive(Debug, Default)]
struct BusyTimeAccumulator {
    intervals: IntervalBuffer,
}

impl Accumulator for BusyTimeAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.intervals.push_rows(&values[0], &values[1], |_| true)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.intervals.merge(&states[0], &states[1])
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(self.intervals.state())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(Some(union_length(
            self.intervals.intervals(),
        ))))
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.intervals.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_column, f64_values, i64_column, run_sql};
    use datafusion::arrow::array::Float64Array;
    use std::sync::Arc;

    fn busy(pairs: &[(Option<f64>, Option<f64>)]) -> f64 {
        let ts: ArrayRef = Arc::new(pairs.iter().map(|p| p.0).collect::<Float64Array>());
        let te: ArrayRef = Arc::new(pairs.iter().map(|p| p.1).collect::<Float64Array>());
        let mut acc = BusyTimeAccumulator::default();
        acc.update_batch(&[ts, te]).unwrap();
        match acc.evaluate().unwrap() {
            ScalarValue::Float64(Some(v)) => v,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn overlapping_and_touching_intervals_merge() {
        // [0,3] ∪ [5,9] ∪ [10,11] → 3 + 4 + 1.
        let pairs = [(5.0, 7.0), (0.0, 2.0), (2.0, 3.0), (6.0, 9.0), (10.0, 11.0)];
        let pairs: Vec<_> = pairs.iter().map(|&(s, e)| (Some(s), Some(e))).collect();
        assert_eq!(busy(&pairs), 8.0);
    }

    #[test]
    fn nulls_are_ignored_and_empty_is_zero() {
        assert_eq!(busy(&[(None, Some(1.0)), (Some(0.0), None)]), 0.0);
        assert_eq!(busy(&[]), 0.0);
        assert_eq!(busy(&[(None, Some(9.0)), (Some(1.0), Some(2.5))]), 1.5);
    }

    #[test]
    fn length_is_quantised_at_trace_timestamps() {
        let ts = 1_419_247_333_430.849_f64;
        assert_eq!(busy(&[(Some(ts), Some(ts + 5.792))]), 5.7919921875);
    }

    #[test]
    fn state_round_trip_merges_partitions() {
        let mut a = BusyTimeAccumulator::default();
        let mut b = BusyTimeAccumulator::default();
        a.update_batch(&[f64_column(&[0.0, 4.0]), f64_column(&[2.0, 6.0])])
            .unwrap();
        b.update_batch(&[f64_column(&[1.0]), f64_column(&[5.0])])
            .unwrap();
        let state = b.state().unwrap();
        let state: Vec<ArrayRef> = state.iter().map(|s| s.to_array().unwrap()).collect();
        a.merge_batch(&state).unwrap();
        // [0,2] ∪ [1,5] ∪ [4,6] = [0,6].
        assert_eq!(a.evaluate().unwrap(), ScalarValue::Float64(Some(6.0)));
    }

    #[test]
    fn groups_accumulator_filters_merges_and_emits_in_order() {
        let evaluate = |acc: &mut BusyTimeGroups, emit: EmitTo| {
            let out = acc.evaluate(emit).unwrap();
            let out = out.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
            out.values().to_vec()
        };
        // Groups 0 and 2 get rows; the FILTER drops [100, 200] of group 2.
        let mut a = BusyTimeGroups::default();
        let filter = BooleanArray::from(vec![true, true, false, true]);
        a.update_batch(
            &[
                f64_column(&[0.0, 10.0, 100.0, 11.0]),
                f64_column(&[2.0, 12.0, 200.0, 15.0]),
            ],
            &[0, 2, 2, 2],
            Some(&filter),
            3,
        )
        .unwrap();
        // A second partition's state: group 0 gets [1, 4] (overlapping [0, 2]).
        let mut b = BusyTimeGroups::default();
        b.update_batch(&[f64_column(&[1.0]), f64_column(&[4.0])], &[0], None, 1)
            .unwrap();
        let state = b.state(EmitTo::All).unwrap();
        a.merge_batch(&state, &[0], 3).unwrap();
        // Rows turned straight into states merge like accumulated ones; the
        // filtered-out row gives an empty state.
        let keep = BooleanArray::from(vec![true, false]);
        let direct = b
            .convert_to_state(
                &[f64_column(&[3.0, 0.0]), f64_column(&[8.0, 50.0])],
                Some(&keep),
            )
            .unwrap();
        a.merge_batch(&direct, &[1, 1], 3).unwrap();
        // [0,4] = 4; group 1 only [3,8] = 5; [10,15] = 5.
        assert_eq!(evaluate(&mut a, EmitTo::First(1)), vec![4.0]);
        assert_eq!(evaluate(&mut a, EmitTo::All), vec![5.0, 5.0]);
    }

    #[tokio::test]
    async fn sql_group_by() {
        // Two partitions, so groups 1 and 2 are merged from partial states.
        let part = |g: &[i64], ts: &[Option<f64>], te: &[Option<f64>]| {
            batch(vec![
                ("g", i64_column(g)),
                ("ts", Arc::new(Float64Array::from(ts.to_vec())) as ArrayRef),
                (
                    "t_end",
                    Arc::new(Float64Array::from(te.to_vec())) as ArrayRef,
                ),
            ])
        };
        let parts = vec![
            part(
                &[1, 2, 3],
                &[Some(0.0), Some(10.0), None],
                &[Some(2.0), Some(11.0), Some(1.0)],
            ),
            part(&[1, 2], &[Some(1.0), Some(12.0)], &[Some(3.0), Some(14.0)]),
        ];
        let sql = "SELECT g, busy_time(ts, t_end) AS busy FROM t GROUP BY g ORDER BY g";
        let got = f64_values(&run_sql(parts, sql).await, "busy");
        // g=1: [0,2] ∪ [1,3] = 3;  g=2: [10,11] ∪ [12,14] = 3;  g=3: only a NULL row → 0.
        assert_eq!(got, vec![Some(3.0), Some(3.0), Some(0.0)]);

        // Integer arguments are coerced to DOUBLE.
        let one = vec![batch(vec![("g", i64_column(&[1]))])];
        let got = run_sql(one, "SELECT busy_time(g, 3) AS busy FROM t").await;
        assert_eq!(f64_values(&got, "busy"), vec![Some(2.0)]);
    }
}
