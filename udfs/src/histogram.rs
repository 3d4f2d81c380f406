//! `histogram(value, bins)`: equal-width bin counts with `numpy.histogram` semantics.
//!
//! Why not `width_bucket`-style SQL: numpy picks the range from the data, computes
//! each value's bin by a float formula and then corrects it against the bin edges
//! (spec §8.8). Values that sit on an edge land in numpy's bin only when that exact
//! arithmetic is reproduced, and the short_kernel_histogram sheet is compared
//! exactly.
//!
//! The result is one list per group; `unnest` turns it into rows:
//!
//! ```sql
//! WITH h AS (SELECT histogram(dur, 100) AS bins FROM short_kernels),
//!      b AS (SELECT unnest(bins) AS b FROM h)
//! SELECT b['bin_start'] AS bin_start, b['bin_end'] AS bin_end, b['count'] AS "count"
//! FROM b
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array, Int64Array, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Float64Type, Int64Type};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::{format_state_name, AggregateOrderSensitivity};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

/// One histogram bin: `[start, end)` (the last bin is closed) and its count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    pub start: f64,
    pub end: f64,
    pub count: i64,
}

/// `numpy.histogram(values, bins=bins)`, as bins. Empty input gives no bins.
///
/// * Range: `[min, max]`; when `min == max` it becomes `[min − 0.5, max + 0.5]`.
/// * Edges: `linspace(lo, hi, bins + 1)`, i.e. `i·step + lo` with the last edge
///   exactly `hi`.
/// * Bin of `v`: `trunc(((v − lo) / (hi − lo)) · bins)`, `bins` clamped to
///   `bins − 1`, then moved down one if `v < edge[i]`, or up one if
///   `v >= edge[i + 1]` and it is not the last bin.
///
/// Values must be finite (numpy rejects a non-finite range) and `bins >= 1`.
pub fn numpy_histogram(values: &[f64], bins: usize) -> Vec<Bin> {
    assert!(bins >= 1, "numpy_histogram needs at least one bin");
    let Some(&first) = values.first() else {
        return Vec::new();
    };
    let (mut lo, mut hi) = values
        .iter()
        .fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    if lo == hi {
        lo -= 0.5;
        hi += 0.5;
    }
    let edges = linspace(lo, hi, bins + 1);
    let width = hi - lo;
    let mut counts = vec![0i64; bins];
    for &v in values {
        let mut i = (((v - lo) / width) * bins as f64) as usize;
        if i == bins {
            i -= 1;
        }
        if v < edges[i] {
            i -= 1;
        } else if v >= edges[i + 1] && i != bins - 1 {
            i += 1;
        }
        counts[i] += 1;
    }
    counts
        .into_iter()
        .enumerate()
        .map(|(i, count)| Bin {
            start: edges[i],
            end: edges[i + 1],
            count,
        })
        .collect()
}

/// `numpy.linspace(start, stop, num)` with `endpoint=True` (`num >= 2`).
fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    let div = (num - 1) as f64;
    let delta = stop - start;
    let step = delta / div;
    let mut y: Vec<f64> = (0..num)
        .map(|i| {
            let i = i as f64;
            // numpy falls back to (i / div) · delta when the step underflows to 0.
            if step == 0.0 {
                (i / div) * delta + start
            } else {
                i * step + start
            }
        })
        .collect();
    y[num - 1] = stop;
    y
}

/// The struct type of one bin: `bin_start DOUBLE, bin_end DOUBLE, count BIGINT`.
fn bin_fields() -> Fields {
    Fields::from(vec![
        Field::new("bin_start", DataType::Float64, true),
        Field::new("bin_end", DataType::Float64, true),
        Field::new("count", DataType::Int64, true),
    ])
}

/// `histogram(value DOUBLE, bins BIGINT) -> LIST<STRUCT<bin_start DOUBLE, bin_end DOUBLE, count BIGINT>>`.
///
/// * NULL values are ignored; a group without values gives an empty list.
/// * `bins` must be a positive constant (the first non-NULL `bins` of the group is
///   used, and a different one is an error).
/// * NaN or infinite values are an error, as in numpy.
/// * Otherwise there are always exactly `bins` entries, in edge order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Histogram {
    signature: Signature,
}

impl Histogram {
    pub fn new() -> Self {
        Self {
            signature: Signature::exact(
                vec![DataType::Float64, DataType::Int64],
                Volatility::Immutable,
            ),
        }
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl AggregateUDFImpl for Histogram {
    fn name(&self) -> &str {
        "histogram"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::new_list(DataType::Struct(bin_fields()), true))
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(HistogramAccumulator::default()))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format_state_name(args.name, "values"),
                DataType::new_list(DataType::Float64, true),
                true,
            )),
            Arc::new(Field::new(
                format_state_name(args.name, "bins"),
                DataType::Int64,
                true,
            )),
        ])
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }
}

/// Keeps the group's values; bins them on `evaluate`.
#[derive(Debug, Default)]
struct HistogramAccumulator {
    values: Vec<f64>,
    bins: Option<i64>,
}

impl HistogramAccumulator {
    fn set_bins(&mut self, bins: &Int64Array) -> Result<()> {
        for b in bins.iter().flatten() {
            if b < 1 {
                return exec_err!("histogram: bins must be at least 1, got {b}");
            }
            match self.bins {
                None => self.bins = Some(b),
                Some(known) if known != b => {
                    return exec_err!(
                        "histogram: bins must be the same for the whole group, got {known} and {b}"
                    )
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn push_values(&mut self, values: &Float64Array) -> Result<()> {
        for v in values.iter().flatten() {
            if !v.is_finite() {
                return exec_err!(
                    "histogram: value {v} is not finite; filter out NaN and infinite values first"
                );
            }
            self.values.push(v);
        }
        Ok(())
    }
}

impl Accumulator for HistogramAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let (Some(v), Some(b)) = (
            values[0].as_primitive_opt::<Float64Type>(),
            values[1].as_primitive_opt::<Int64Type>(),
        ) else {
            return exec_err!("histogram expects (DOUBLE, BIGINT) arguments");
        };
        self.set_bins(b)?;
        self.push_values(v)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.set_bins(states[1].as_primitive::<Int64Type>())?;
        for list in states[0].as_list::<i32>().iter().flatten() {
            self.push_values(list.as_primitive::<Float64Type>())?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values: ArrayRef = Arc::new(Float64Array::from(self.values.clone()));
        Ok(vec![
            SingleRowListArrayBuilder::new(values).build_list_scalar(),
            ScalarValue::Int64(self.bins),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let bins = match (self.values.is_empty(), self.bins) {
            (true, _) => Vec::new(),
            (false, Some(n)) => numpy_histogram(&self.values, n as usize),
            (false, None) => return exec_err!("histogram: bins is NULL"),
        };
        let columns: Vec<ArrayRef> = vec![
            Arc::new(bins.iter().map(|b| b.start).collect::<Float64Array>()),
            Arc::new(bins.iter().map(|b| b.end).collect::<Float64Array>()),
            Arc::new(bins.iter().map(|b| b.count).collect::<Int64Array>()),
        ];
        let rows: ArrayRef = Arc::new(StructArray::try_new(bin_fields(), columns, None)?);
        Ok(SingleRowListArrayBuilder::new(rows).build_list_scalar())
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.values.capacity() * size_of::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_column, f64_values, i64_column, i64_values, run_sql};

    fn counts(bins: &[Bin]) -> Vec<i64> {
        bins.iter().map(|b| b.count).collect()
    }

    #[test]
    fn equal_width_bins_over_the_data_range() {
        // Range [0, 4], 4 bins: edges 0 1 2 3 4; 4.0 goes into the closed last bin.
        let h = numpy_histogram(&[0.0, 0.5, 1.0, 2.5, 4.0, 4.0], 4);
        assert_eq!(
            h.iter().map(|b| (b.start, b.end)).collect::<Vec<_>>(),
            vec![(0.0, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 4.0)]
        );
        assert_eq!(counts(&h), vec![2, 1, 1, 2]);
    }

    #[test]
    fn a_single_value_gets_a_unit_range() {
        // [2.5, 3.5] in 2 bins: edges 2.5 3.0 3.5; 3.0 is the left edge of bin 1.
        let h = numpy_histogram(&[3.0, 3.0], 2);
        assert_eq!(
            h[0],
            Bin {
                start: 2.5,
                end: 3.0,
                count: 0
            }
        );
        assert_eq!(
            h[1],
            Bin {
                start: 3.0,
                end: 3.5,
                count: 2
            }
        );
        assert!(numpy_histogram(&[], 10).is_empty());
    }

    #[test]
    fn edges_are_i_times_step_plus_lo_with_exact_last_edge() {
        // lo = 0.1, hi = 0.7, 3 bins: step = 0.6 / 3 (= 0.19999999999999998).
        let h = numpy_histogram(&[0.1, 0.7], 3);
        let step = (0.7 - 0.1) / 3.0;
        assert_eq!(h[1].start, step + 0.1);
        assert_eq!(h[2].start, 2.0 * step + 0.1);
        assert_eq!(h[2].end, 0.7);
    }

    #[test]
    fn index_is_corrected_against_the_edges() {
        // lo=0, hi=1, 10 bins. 0.3: (0.3 / 1) · 10 rounds to 3.0 → bin 3, but
        // edge[3] = 3 · 0.1 = 0.30000000000000004 > 0.3, so it moves down to bin 2.
        let h = numpy_histogram(&[0.0, 0.3, 1.0], 10);
        assert_eq!(h[3].start, 0.30000000000000004);
        assert_eq!(counts(&h), vec![1, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[tokio::test]
    async fn sql_unnest_into_rows() {
        let t = batch(vec![
            ("g", i64_column(&[1, 1, 1, 1, 2])),
            ("v", f64_column(&[0.0, 1.0, 1.5, 2.0, 7.0])),
        ]);
        let sql = "WITH h AS (SELECT g, histogram(v, 2) AS bins FROM t GROUP BY g), \
                        b AS (SELECT g, unnest(bins) AS b FROM h) \
                   SELECT g, b['bin_start'] AS bin_start, b['bin_end'] AS bin_end, \
                          b['count'] AS \"count\" \
                   FROM b ORDER BY g, bin_start";
        let out = run_sql(vec![t], sql).await;
        // g=1: [0,1) holds 0.0; [1,2] holds 1.0, 1.5, 2.0.  g=2: [6.5,7) and [7,7.5].
        assert_eq!(
            i64_values(&out, "g"),
            vec![Some(1), Some(1), Some(2), Some(2)]
        );
        assert_eq!(
            f64_values(&out, "bin_start"),
            vec![Some(0.0), Some(1.0), Some(6.5), Some(7.0)]
        );
        assert_eq!(
            f64_values(&out, "bin_end"),
            vec![Some(1.0), Some(2.0), Some(7.0), Some(7.5)]
        );
        assert_eq!(
            i64_values(&out, "count"),
            vec![Some(1), Some(3), Some(0), Some(1)]
        );
    }

    #[tokio::test]
    async fn sql_empty_input_is_an_empty_list() {
        let t = batch(vec![("v", f64_column(&[1.0]))]);
        let sql = "SELECT cardinality(histogram(v, 5)) AS n FROM t WHERE v > 100";
        let out = run_sql(vec![t], sql).await;
        let n = out[0].column(0);
        assert_eq!(n.len(), 1);
        let n = datafusion::arrow::compute::cast(n, &DataType::Int64).unwrap();
        assert_eq!(n.as_primitive::<Int64Type>().value(0), 0);
    }
}
