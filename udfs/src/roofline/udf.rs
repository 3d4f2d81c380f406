//! `roofline_bound`, `roofline_time_us`, `roofline_efficiency` as SQL functions.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, Float64Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::{roofline, Platform};

/// Which value a roofline function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RooflineOutput {
    /// `roofline_bound(flops, bytes, platform, spec)` → 'COMPUTE_BOUND' | 'MEMORY_BOUND'.
    Bound,
    /// `roofline_time_us(flops, bytes, platform, spec)` → µs at the roofline.
    TimeUs,
    /// `roofline_efficiency(flops, bytes, kernel_us, platform, spec)` → % of roofline.
    Efficiency,
}

/// A roofline function bound to a set of platforms (built-in plus `--platforms`).
#[derive(Debug)]
pub struct RooflineUdf {
    output: RooflineOutput,
    platforms: Arc<Vec<Platform>>,
    signature: Signature,
}

impl PartialEq for RooflineUdf {
    fn eq(&self, other: &Self) -> bool {
        self.output == other.output && self.platforms == other.platforms
    }
}
impl Eq for RooflineUdf {}
impl std::hash::Hash for RooflineUdf {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.output.hash(state);
        self.platforms.len().hash(state);
    }
}

impl RooflineUdf {
    pub fn new(output: RooflineOutput, platforms: Arc<Vec<Platform>>) -> Self {
        Self {
            output,
            platforms,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }

    /// Which of the three functions this is.
    pub fn output(&self) -> RooflineOutput {
        self.output
    }

    /// The platforms it knows.
    pub fn platforms(&self) -> &Arc<Vec<Platform>> {
        &self.platforms
    }

    fn numeric_args(&self) -> usize {
        match self.output {
            RooflineOutput::Efficiency => 3,
            _ => 2,
        }
    }

    fn platform(&self, name: &str) -> Result<&Platform> {
        match self
            .platforms
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
        {
            Some(p) => Ok(p),
            None => {
                let known: Vec<&str> = self.platforms.iter().map(|p| p.name.as_str()).collect();
                exec_err!("unknown platform '{name}'; known: {}", known.join(", "))
            }
        }
    }
}

impl ScalarUDFImpl for RooflineUdf {
    fn name(&self) -> &str {
        match self.output {
            RooflineOutput::Bound => "roofline_bound",
            RooflineOutput::TimeUs => "roofline_time_us",
            RooflineOutput::Efficiency => "roofline_efficiency",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let n = self.numeric_args();
        if arg_types.len() != n + 2 {
            return plan_err!(
                "{} takes {} arguments ({}platform, spec), got {}",
                self.name(),
                n + 2,
                if n == 3 {
                    "flops, bytes, kernel_us, "
                } else {
                    "flops, bytes, "
                },
                arg_types.len()
            );
        }
        Ok((0..n + 2)
            .map(|i| {
                if i < n {
                    DataType::Float64
                } else {
                    DataType::Utf8
                }
            })
            .collect())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.output {
            RooflineOutput::Bound => DataType::Utf8,
            _ => DataType::Float64,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let n = self.numeric_args();
        let mut numbers = Vec::new();
        for a in &args.args[..n] {
            numbers.push(cast(&a.to_array(rows)?, &DataType::Float64)?);
        }
        let numbers: Vec<&Float64Array> = numbers
            .iter()
            .map(|a| a.as_primitive::<Float64Type>())
            .collect();
        let platform = cast(&args.args[n].to_array(rows)?, &DataType::Utf8)?;
        let spec = cast(&args.args[n + 1].to_array(rows)?, &DataType::Utf8)?;
        let (platform, spec) = (platform.as_string::<i32>(), spec.as_string::<i32>());
        let value = |i: usize, a: &Float64Array| a.is_valid(i).then(|| a.value(i));
        let mut bounds: Vec<Option<&'static str>> = Vec::with_capacity(rows);
        let mut times: Vec<Option<f64>> = Vec::with_capacity(rows);
        for i in 0..rows {
            let (Some(flops), Some(name), Some(spec)) = (
                value(i, numbers[0]),
                platform.is_valid(i).then(|| platform.value(i)),
                spec.is_valid(i).then(|| spec.value(i)),
            ) else {
                bounds.push(None);
                times.push(None);
                continue;
            };
            let result = roofline(self.platform(name)?, spec, flops, value(i, numbers[1]));
            bounds.push(result.map(|(_, c)| if c { "COMPUTE_BOUND" } else { "MEMORY_BOUND" }));
            let time = match self.output {
                RooflineOutput::Efficiency => result.and_then(|(t, _)| {
                    let kernel_us = value(i, numbers[2]).filter(|k| *k > 0.0)?;
                    Some(t / kernel_us * 100.0)
                }),
                _ => result.map(|(t, _)| t),
            };
            times.push(time);
        }
        Ok(ColumnarValue::Array(match self.output {
            RooflineOutput::Bound => Arc::new(StringArray::from(bounds)),
            _ => Arc::new(Float64Array::from(times)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Array, AsArray, Float64Array, StringArray};
    use datafusion::arrow::datatypes::Float64Type;
    use datafusion::prelude::SessionContext;

    /// The roofline and rate functions from SQL, against numbers worked out by
    /// hand: a bf16 GEMM of 2,148,532,224 FLOPs and 11,018,240 bytes in 41.216 µs.
    #[tokio::test]
    async fn sql_roofline_and_rates() {
        let ctx = SessionContext::new();
        crate::register_all(&ctx);
        let (flops, bytes, kernel_us) = (2_148_532_224.0_f64, 11_018_240.0_f64, 41.216_f64);
        let sql = format!(
            "SELECT roofline_bound({flops}, {bytes}, 'MI300X', 'matrix_bf16') AS b,
                    roofline_time_us({flops}, {bytes}, 'mi300x', 'matrix_bf16') AS t,
                    roofline_efficiency({flops}, {bytes}, {kernel_us}, 'MI300X', 'matrix_bf16') AS e,
                    roofline_bound({flops}, 1.0, 'MI300X', 'matrix_bf16') AS b2,
                    roofline_bound({flops}, {bytes}, 'MI300X', 'matrix_fp4') AS no_peak,
                    roofline_efficiency({flops}, {bytes}, 0.0, 'MI300X', 'matrix_bf16') AS no_time,
                    tflops_per_s({flops}, {kernel_us}) AS tflops,
                    tb_per_s({bytes}, {kernel_us}) AS tbs"
        );
        let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let b = &batches[0];
        let text = |i: usize| b.column(i).as_any().downcast_ref::<StringArray>().cloned();
        let num = |i: usize| b.column(i).as_primitive::<Float64Type>().clone();
        // MI300X: matrix_bf16 1307.4 TFLOPS, 5.3 TB/s (platforms.rs).
        let compute_us = (flops / (1307.4 * 1e12)) * 1e6;
        let memory_us = (bytes / (5.3 * 1e12)) * 1e6;
        assert!(memory_us > compute_us);
        assert_eq!(text(0).unwrap().value(0), "MEMORY_BOUND");
        assert_eq!(num(1).value(0), memory_us);
        assert_eq!(num(2).value(0), memory_us / kernel_us * 100.0);
        // With 1 byte the compute time wins.
        assert_eq!(text(3).unwrap().value(0), "COMPUTE_BOUND");
        // MI300X lists no fp4 peak; no kernel time gives no efficiency.
        assert!(text(4).unwrap().is_null(0));
        assert!(num(5).is_null(0));
        let rates: Float64Array = num(6);
        assert_eq!(rates.value(0), (flops / 1e9 / 1e3) / (kernel_us / 1e6));
        assert_eq!(num(7).value(0), (bytes / 1e12) / (kernel_us / 1e6));
    }
}
