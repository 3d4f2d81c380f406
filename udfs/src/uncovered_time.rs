//! `uncovered_time(ts, t_end, is_target)`: how long the target intervals run while
//! none of the other intervals do.
//!
//! Why: gpu_timeline's exposed times are "this kind of GPU work, minus whatever
//! overlaps it" (spec §4.4). For example, exposed communication is the union of the
//! communication kernels with the parts under computation kernels taken out. The
//! result is `length(subtract(merge(cover), merge(target)))` with the reference's
//! interval primitives ([`crate::intervals`]), so it is quantised the same way.
//!
//! ```sql
//! -- Communication not overlapped by computation (memcpys play no part).
//! SELECT uncovered_time(ts, t_end, bucket = 'communication') FILTER (WHERE bucket <> 'memcpy')
//! FROM work
//! ```

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

use crate::interval_state::IntervalBuffer;
use crate::intervals::{merge, subtract, total_length};

/// `uncovered_time(ts DOUBLE, t_end DOUBLE, is_target BOOLEAN) -> DOUBLE`.
///
/// * Rows with `is_target = true` are the target; rows with `false` the cover.
/// * Rows with a NULL bound or a NULL `is_target` are ignored.
/// * No target intervals gives `0.0`; no cover intervals gives the target's union
///   length.
/// * The result does not depend on row order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UncoveredTime {
    signature: Signature,
}

impl UncoveredTime {
    pub fn new() -> Self {
        Self {
            signature: Signature::exact(
                vec![DataType::Float64, DataType::Float64, DataType::Boolean],
                Volatility::Immutable,
            ),
        }
    }
}

impl Default for UncoveredTime {
    fn default() -> Self {
        Self::new()
    }
}

impl AggregateUDFImpl for UncoveredTime {
    fn name(&self) -> &str {
        "uncovered_time"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(UncoveredTimeAccumulator::default()))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let mut fields = IntervalBuffer::state_fields(args.name, "target_");
        fields.extend(IntervalBuffer::state_fields(args.name, "cover_"));
        Ok(fields)
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }
}

/// Collects target and cover intervals separately; subtracts on `evaluate`.
#[derive(Debug, Default)]
struct UncoveredTimeAccumulator {
    target: IntervalBuffer,
    cover: IntervalBuffer,
}

impl Accumulator for UncoveredTimeAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(is_target) = values[2].as_boolean_opt() else {
            return exec_err!(
                "uncovered_time: is_target must be BOOLEAN, got {}",
                values[2].data_type()
            );
        };
        let flag = |row: usize, want: bool| is_target.is_valid(row) && is_target.value(row) == want;
        self.target
            .push_rows(&values[0], &values[1], |row| flag(row, true))?;
        self.cover
            .push_rows(&values[0], &values[1], |row| flag(row, false))
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.target.merge(&states[0], &states[1])?;
        self.cover.merge(&states[2], &states[3])
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut state = self.target.state();
        state.extend(self.cover.state());
        Ok(state)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let target = merge(self.target.intervals());
        let cover = merge(self.cover.intervals());
        Ok(ScalarValue::Float64(Some(total_length(&subtract(
            &cover, &target,
        )))))
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.target.size() + self.cover.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, bool_column, f64_column, f64_values, i64_column, run_sql};

    fn uncovered(rows: &[(f64, f64, bool)]) -> f64 {
        let ts: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let te: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let target: Vec<bool> = rows.iter().map(|r| r.2).collect();
        let mut acc = UncoveredTimeAccumulator::default();
        acc.update_batch(&[f64_column(&ts), f64_column(&te), bool_column(&target)])
            .unwrap();
        match acc.evaluate().unwrap() {
            ScalarValue::Float64(Some(v)) => v,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn cover_is_cut_out_of_the_target() {
        // target [0,6] ∪ [7,8]; cover [1,2] ∪ [4,5] → [0,1] [2,4] [5,6] [7,8] = 1+2+1+1.
        let rows = [
            (0.0, 6.0, true),
            (7.0, 8.0, true),
            (1.0, 2.0, false),
            (4.0, 5.0, false),
        ];
        assert_eq!(uncovered(&rows), 5.0);
    }

    #[test]
    fn overlapping_targets_are_merged_first() {
        // target [0,4] ∪ [2,6] = [0,6]; cover [3,10] → [0,3] = 3.
        let rows = [(0.0, 4.0, true), (2.0, 6.0, true), (3.0, 10.0, false)];
        assert_eq!(uncovered(&rows), 3.0);
    }

    #[test]
    fn edge_cases() {
        assert_eq!(uncovered(&[]), 0.0);
        assert_eq!(uncovered(&[(0.0, 5.0, false)]), 0.0);
        assert_eq!(uncovered(&[(0.0, 5.0, true)]), 5.0);
        // Fully covered.
        assert_eq!(uncovered(&[(1.0, 2.0, true), (0.0, 3.0, false)]), 0.0);
    }

    #[tokio::test]
    async fn sql_with_filter_and_group_by() {
        let t = batch(vec![
            ("g", i64_column(&[1, 1, 1, 2, 2])),
            ("ts", f64_column(&[0.0, 1.0, 0.0, 0.0, 5.0])),
            ("t_end", f64_column(&[4.0, 2.0, 10.0, 3.0, 6.0])),
            (
                "kind",
                crate::test_util::str_column(&[
                    Some("comm"),
                    Some("compute"),
                    Some("memcpy"),
                    Some("comm"),
                    Some("compute"),
                ]),
            ),
        ]);
        let sql = "SELECT g, uncovered_time(ts, t_end, kind = 'comm') \
                   FILTER (WHERE kind <> 'memcpy') AS exposed \
                   FROM t GROUP BY g ORDER BY g";
        // g=1: comm [0,4] minus compute [1,2] → 1 + 2 = 3 (the memcpy is filtered out).
        // g=2: comm [0,3], compute [5,6] does not overlap → 3.
        assert_eq!(
            f64_values(&run_sql(vec![t], sql).await, "exposed"),
            vec![Some(3.0), Some(3.0)]
        );
    }
}
