//! `np_round(x, decimals)`: numpy's `round` in SQL, rounding half to even.
//!
//! Why: TraceLens rounds some columns with numpy (`straggler_summary`'s
//! `round(·, 1)`), which rounds 0.25 to 0.2 where DataFusion's `round` gives
//! 0.3. One function instead of the half-even arithmetic spelled out per column.
//!
//! ```sql
//! SELECT np_round(total_wait, 1) FROM per_rank
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::{exec_datafusion_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::numpy;

/// `np_round(x DOUBLE, decimals BIGINT) -> DOUBLE`: [`numpy::round`]; NULL in,
/// NULL out; a negative number of decimals is an execution error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NpRound {
    signature: Signature,
}

impl NpRound {
    pub fn new() -> Self {
        Self {
            signature: Signature::exact(
                vec![DataType::Float64, DataType::Int64],
                Volatility::Immutable,
            ),
        }
    }
}

impl Default for NpRound {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for NpRound {
    fn name(&self) -> &str {
        "np_round"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, _arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![DataType::Float64, DataType::Int64])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let x = cast(
            &args.args[0].to_array(args.number_rows)?,
            &DataType::Float64,
        )?;
        let d = cast(&args.args[1].to_array(args.number_rows)?, &DataType::Int64)?;
        let (x, d) = (
            x.as_primitive::<Float64Type>(),
            d.as_primitive::<Int64Type>(),
        );
        let out: Float64Array = x
            .iter()
            .zip(d.iter())
            .map(|(x, d)| match (x, d) {
                (Some(x), Some(d)) => {
                    let d = u32::try_from(d)
                        .map_err(|_| exec_datafusion_err!("np_round: decimals {d} is negative"))?;
                    Ok(Some(numpy::round(x, d)))
                }
                _ => Ok(None),
            })
            .collect::<Result<_>>()?;
        Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, f64_column, f64_values, run_sql};

    #[tokio::test]
    async fn rounds_half_to_even_as_numpy() {
        let t = batch(vec![(
            "x",
            f64_column(&[0.25, 0.35, 191.75, 1534.0, -0.25]),
        )]);
        let out = run_sql(vec![t], "SELECT np_round(x, 1) AS r FROM t").await;
        // What numpy 2.4 prints for np.round(x, 1): rint(x·10)/10, so 0.35
        // (3.5 after scaling) goes to the even 4.
        assert_eq!(
            f64_values(&out, "r"),
            vec![Some(0.2), Some(0.4), Some(191.8), Some(1534.0), Some(-0.2)]
        );
    }
}
