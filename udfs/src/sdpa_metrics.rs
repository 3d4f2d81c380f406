//! `sdpa_flops(…)` and `sdpa_bytes(…)`: the attention (SDPA) FLOPs and bytes of
//! [`crate::perf::sdpa`] from the problem's numbers rather than from an op's
//! PyTorch arguments.
//!
//! Why: `op_perf` reads a PyTorch op's `Input Dims` / `Concrete Inputs`. JAX's
//! Transformer Engine attention custom calls (TraceLens's `jax_te_fused_attn`
//! and `jax_te_fused_attn_bwd` models) have their B, N, H and d in HLO operand
//! shapes, possibly packed (`bf16[B,S,3,H,D]`), and their mask in the backend
//! config; the report's SQL reads those and hands the numbers here, so the
//! formulas stay those of the PyTorch SDPA models (spec §7.6).
//!
//! ```sql
//! SELECT sdpa_flops(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, causal, true, 'bwd', 'bugfixes'),
//!        sdpa_bytes(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, 2, 'bwd')
//! FROM attention_ops
//! ```
//!
//! * `direction` `'fwd'`: [`sdpa_flops`] / [`sdpa_bytes`]; `'bwd'`:
//!   [`sdpa_flops_bwd`] / [`sdpa_bytes_bwd`] (recompute of QKᵀ when
//!   `flash_impl`, GQA reductions `H_Q // H_KV − 1`).
//! * Causal halves the count when `N_Q = N_KV`. Otherwise semantics
//!   `'tracelens'` (the default) gives NULL, TraceLens's ValueError; `'bugfixes'`
//!   and `'corrected'` scale by the share of the score matrix the mask keeps,
//!   aligned top-left unless `bottom_right`.
//! * NULL in any number, flag or direction gives NULL; so does an invalid problem
//!   (`H_KV = 0`); an unknown direction or semantics is an execution error.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::perf::sdpa::{
    sdpa_bytes, sdpa_bytes_bwd, sdpa_flops, sdpa_flops_bwd, Attention, CausalAlign,
};
use crate::perf::Semantics;

/// Which of the two functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SdpaOutput {
    /// `sdpa_flops(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, causal BOOLEAN,
    /// flash_impl BOOLEAN, direction UTF8 [, semantics UTF8 [, bottom_right BOOLEAN]])`.
    Flops,
    /// `sdpa_bytes(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, bpe, direction UTF8)`.
    Bytes,
}

/// `sdpa_flops` / `sdpa_bytes` (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdpaMetrics {
    output: SdpaOutput,
    signature: Signature,
}

impl SdpaMetrics {
    pub fn new(output: SdpaOutput) -> Self {
        Self {
            output,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// What argument `i` is coerced to.
fn arg_type(output: SdpaOutput, i: usize) -> DataType {
    match (output, i) {
        (_, 0..=6) => DataType::Float64,
        (SdpaOutput::Flops, 7 | 8 | 11) => DataType::Boolean,
        (SdpaOutput::Flops, _) => DataType::Utf8,
        (SdpaOutput::Bytes, 7) => DataType::Float64,
        (SdpaOutput::Bytes, _) => DataType::Utf8,
    }
}

fn is_fwd(direction: &str) -> Result<bool> {
    match direction.to_ascii_lowercase().as_str() {
        "fwd" => Ok(true),
        "bwd" => Ok(false),
        other => {
            exec_err!("sdpa_flops/sdpa_bytes: direction must be 'fwd' or 'bwd', got '{other}'")
        }
    }
}

impl ScalarUDFImpl for SdpaMetrics {
    fn name(&self) -> &str {
        match self.output {
            SdpaOutput::Flops => "sdpa_flops",
            SdpaOutput::Bytes => "sdpa_bytes",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let (min, max) = match self.output {
            SdpaOutput::Flops => (10, 12),
            SdpaOutput::Bytes => (9, 9),
        };
        if arg_types.len() < min || arg_types.len() > max {
            return plan_err!(
                "{} takes {min} to {max} arguments, got {}",
                self.name(),
                arg_types.len()
            );
        }
        Ok((0..arg_types.len())
            .map(|i| arg_type(self.output, i))
            .collect())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let arrays = args
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| Ok(cast(&a.to_array(n)?, &arg_type(self.output, i))?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let num = |i: usize, row: usize| -> Option<f64> {
            let a = arrays[i].as_primitive::<Float64Type>();
            a.is_valid(row).then(|| a.value(row))
        };
        let flag = |i: usize, row: usize| -> Option<bool> {
            let a = arrays.get(i)?.as_boolean();
            a.is_valid(row).then(|| a.value(row))
        };
        let text = |i: usize, row: usize| -> Option<&str> {
            let a = arrays.get(i)?.as_string::<i32>();
            a.is_valid(row).then(|| a.value(row))
        };
        let mut out = Vec::with_capacity(n);
        for row in 0..n {
            let Some(dims) = (0..7).map(|i| num(i, row)).collect::<Option<Vec<f64>>>() else {
                out.push(None);
                continue;
            };
            let mut a = Attention {
                b: dims[0],
                n_q: dims[1],
                h_q: dims[2],
                n_kv: dims[3],
                h_kv: dims[4],
                d_qk: dims[5],
                d_v: dims[6],
                causal: false,
                flash_impl: true,
            };
            let value = match self.output {
                SdpaOutput::Bytes => match (num(7, row), text(8, row)) {
                    (Some(bpe), Some(dir)) => Some(if is_fwd(dir)? {
                        sdpa_bytes(&a, bpe)
                    } else {
                        sdpa_bytes_bwd(&a, bpe)
                    }),
                    _ => None,
                },
                SdpaOutput::Flops => {
                    let semantics = match text(10, row) {
                        None => Semantics::TraceLens,
                        Some(s) => match Semantics::parse(s) {
                            Some(s) => s,
                            None => {
                                return exec_err!(
                                    "sdpa_flops: semantics must be 'tracelens', 'bugfixes' or \
                                     'corrected', got '{s}'"
                                )
                            }
                        },
                    };
                    let align = if flag(11, row).unwrap_or(false) {
                        CausalAlign::BottomRight
                    } else {
                        CausalAlign::TopLeft
                    };
                    match (flag(7, row), flag(8, row), text(9, row)) {
                        (Some(causal), Some(flash), Some(dir)) => {
                            a.causal = causal;
                            a.flash_impl = flash;
                            let r = if is_fwd(dir)? {
                                sdpa_flops(&a, semantics, align)
                            } else {
                                sdpa_flops_bwd(&a, semantics, align)
                            };
                            r.ok()
                        }
                        _ => None,
                    }
                }
            };
            out.push(value);
        }
        Ok(ColumnarValue::Array(
            Arc::new(Float64Array::from(out)) as ArrayRef
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, f64_values, i64_column, run_sql};

    fn t() -> datafusion::arrow::array::RecordBatch {
        // B, N_Q, H_Q, N_KV, H_KV, d
        batch(vec![
            ("b", i64_column(&[2, 1])),
            ("nq", i64_column(&[2048, 128])),
            ("hq", i64_column(&[16, 8])),
            ("nkv", i64_column(&[2048, 256])),
            ("hkv", i64_column(&[16, 2])),
            ("d", i64_column(&[128, 64])),
        ])
    }

    #[tokio::test]
    async fn forward_flops_and_bytes() {
        let sql = "SELECT sdpa_flops(b, nq, hq, nkv, hkv, d, d, false, true, 'fwd') AS f, \
                          sdpa_flops(b, nq, hq, nkv, hkv, d, d, true, true, 'fwd', 'bugfixes') AS fc, \
                          sdpa_bytes(b, nq, hq, nkv, hkv, d, d, 2, 'fwd') AS by FROM t";
        let out = run_sql(vec![t()], sql).await;
        let f0 = 4.0 * 2.0 * 16.0 * 2048.0 * 2048.0 * 128.0;
        let f1 = 4.0 * 1.0 * 8.0 * 128.0 * 256.0 * 64.0;
        assert_eq!(f64_values(&out, "f"), vec![Some(f0), Some(f1)]);
        // N_Q = N_KV halves; 128 × 256 top-left keeps (128²/2) / (128·256) = 1/4.
        assert_eq!(f64_values(&out, "fc"), vec![Some(f0 / 2.0), Some(f1 / 4.0)]);
        let b0 = 4.0 * 2.0 * 2048.0 * 16.0 * 128.0 * 2.0;
        let b1 = (2.0 * 128.0 * 8.0 * 64.0 + 2.0 * 256.0 * 2.0 * 64.0) * 2.0;
        assert_eq!(f64_values(&out, "by"), vec![Some(b0), Some(b1)]);
    }

    #[tokio::test]
    async fn backward_flops_and_bytes() {
        let sql = "SELECT sdpa_flops(b, nq, hq, nkv, hkv, d, d, false, true, 'bwd') AS f, \
                          sdpa_flops(b, nq, hq, nkv, hkv, d, d, false, false, 'bwd') AS nf, \
                          sdpa_flops(b, nq, hq, nkv, hkv, d, d, true, true, 'bwd') AS tl, \
                          sdpa_bytes(b, nq, hq, nkv, hkv, d, d, 2, 'bwd') AS by FROM t";
        let out = run_sql(vec![t()], sql).await;
        let mm0 = 2.0 * 16.0 * 2.0 * 2048.0 * 2048.0 * 128.0;
        // 5 GEMMs with flash recompute, 4 without; GQA reductions B·N_KV·d·(H_Q//H_KV − 1).
        let mm1 = 1.0 * 8.0 * 2.0 * 128.0 * 256.0 * 64.0;
        let gqa1 = 2.0 * 1.0 * 256.0 * 64.0 * 3.0;
        assert_eq!(
            f64_values(&out, "f"),
            vec![Some(5.0 * mm0), Some(5.0 * mm1 + gqa1)]
        );
        assert_eq!(
            f64_values(&out, "nf"),
            vec![Some(4.0 * mm0), Some(4.0 * mm1 + gqa1)]
        );
        // TraceLens semantics: causal with N_Q != N_KV is invalid (NULL).
        assert_eq!(f64_values(&out, "tl"), vec![Some(2.5 * mm0), None]);
        let q0 = 2.0 * 2048.0 * 16.0 * 128.0;
        assert_eq!(f64_values(&out, "by")[0], Some(7.0 * q0 * 2.0));
    }

    #[tokio::test]
    async fn nulls_give_null() {
        let sql = "SELECT sdpa_flops(b, nq, hq, nkv, CAST(NULL AS BIGINT), d, d, false, true, 'fwd') AS f, \
                          sdpa_bytes(b, nq, hq, nkv, hkv, d, d, NULL, 'fwd') AS by FROM t";
        let out = run_sql(vec![t()], sql).await;
        assert_eq!(f64_values(&out, "f"), vec![None, None]);
        assert_eq!(f64_values(&out, "by"), vec![None, None]);
    }
}
