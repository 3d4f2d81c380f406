//! GEMM models (spec §7.4): `aten::mm`, `addmm`, `bmm`, `baddbmm`, `_scaled_mm`
//! (and its aliases), and the TransformerEngine GEMMs.
//!
//! * `flops = 2·M·N·K + (M·N if bias)`;
//! * `bytes = M·K·bpe_A + K·N·bpe_B + M·N·bpe_out + (N if bias)·bpe_bias`, `None`
//!   when a bpe is unknown; `bmm`/`baddbmm` multiply both by the batch `B`.
//! * Param keys: `M, N, K, bias, stride_A, stride_B, dtype_A_B, B, [transpose]`
//!   (`bmm`/`baddbmm`: `B, M, N, K, bias, stride_A, stride_B, dtype_A_B,
//!   [transpose]`). `transpose` is present only when a kernel name parses
//!   ([`parse_transpose`]); so the key set differs by platform (§11 item 12).
//! * No backward: these classes raise `NotImplementedError` (§11 item 13).
//!
//! Both semantics agree here.

use super::args::OpArgs;
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, ModelError, Perf, Semantics};

/// `(transA, transB)`; `None` for a flag the kernel name does not tell.
pub type Transpose = (Option<bool>, Option<bool>);

/// The transpose flags `(transA, transB)` in a GEMM kernel's name, `None` when
/// the name is not a recognised GEMM kernel (cutlass, cuBLAS, ... do not parse).
///
/// * ROCm Tensile, `C[a-z]{3}_A[a-z]{3}_B[a-z]{3}` anywhere in the name:
///   `_Ailk_` → transA false, `_Alik_` → true; `_Bljk_` → transB false, `_Bjlk_`
///   → true; any other layout leaves that flag `None`.
/// * NVIDIA `nvjet…`: the last `_`-separated token, `T` meaning transposed, e.g.
///   `…_TN` → `(true, false)`. A token shorter than 2 characters is `Invalid`
///   (the reference fails on it).
pub fn parse_transpose(kernel: &str) -> Result<Option<Transpose>, ModelError> {
    if is_tensile(kernel) {
        let trans_a = if kernel.contains("_Ailk_") {
            Some(false)
        } else if kernel.contains("_Alik_") {
            Some(true)
        } else {
            None
        };
        let trans_b = if kernel.contains("_Bljk_") {
            Some(false)
        } else if kernel.contains("_Bjlk_") {
            Some(true)
        } else {
            None
        };
        return Ok(Some((trans_a, trans_b)));
    }
    if kernel.starts_with("nvjet") {
        let token: Vec<char> = kernel.rsplit('_').next().unwrap_or("").chars().collect();
        if token.len() < 2 {
            return Err(ModelError::Invalid(format!(
                "nvjet kernel name without a transpose token: {kernel}"
            )));
        }
        return Ok(Some((Some(token[0] == 'T'), Some(token[1] == 'T'))));
    }
    Ok(None)
}

/// `C[a-z]{3}_A[a-z]{3}_B[a-z]{3}` occurs in `name`.
fn is_tensile(name: &str) -> bool {
    let b = name.as_bytes();
    let lower3 = |at: usize| {
        b.get(at..at + 3)
            .is_some_and(|s| s.iter().all(u8::is_ascii_lowercase))
    };
    (0..b.len()).any(|i| {
        b[i] == b'C'
            && lower3(i + 1)
            && b.get(i + 4) == Some(&b'_')
            && b.get(i + 5) == Some(&b'A')
            && lower3(i + 6)
            && b.get(i + 9) == Some(&b'_')
            && b.get(i + 10) == Some(&b'B')
            && lower3(i + 11)
    })
}

/// The `transpose` param from the first kernel name that parses.
fn transpose_param(op: &OpArgs) -> Result<Option<ParamValue>, ModelError> {
    for kernel in op.kernel_names {
        if let Some((a, b)) = parse_transpose(kernel)? {
            return Ok(Some(ParamValue::Tuple(vec![a.into(), b.into()])));
        }
    }
    Ok(None)
}

/// `2·M·N·K + (M·N if bias)`, exact.
pub fn gemm_flops(m: i64, n: i64, k: i64, bias: bool) -> i128 {
    let (m, n, k) = (m as i128, n as i128, k as i128);
    2 * m * n * k + if bias { m * n } else { 0 }
}

/// Bytes per element of a GEMM's operands; `None` for an unknown size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmBpe {
    pub a: Option<i64>,
    pub b: Option<i64>,
    pub bias: Option<i64>,
    pub out: Option<i64>,
}

impl GemmBpe {
    /// A, B and bias at `bpe`, the output at `out`.
    pub fn inputs_and_out(bpe: Option<i64>, out: Option<i64>) -> Self {
        Self {
            a: bpe,
            b: bpe,
            bias: bpe,
            out,
        }
    }
}

/// `M·K·bpe_A + K·N·bpe_B + M·N·bpe_out + (N if bias)·bpe_bias`, `None` if any
/// bpe is unknown.
pub fn gemm_bytes(m: i64, n: i64, k: i64, bias: bool, bpe: GemmBpe) -> Option<i128> {
    let (m, n, k) = (m as i128, n as i128, k as i128);
    let (a, b, c, o) = (
        bpe.a? as i128,
        bpe.b? as i128,
        bpe.bias? as i128,
        bpe.out? as i128,
    );
    let bias_elems = if bias { n } else { 0 };
    Some(m * k * a + k * n * b + m * n * o + bias_elems * c)
}

/// The parsed problem of one GEMM op.
struct Gemm {
    batch: Option<i64>,
    m: i64,
    n: i64,
    k: i64,
    bias: bool,
    stride_a: ParamValue,
    stride_b: ParamValue,
    dtypes: Vec<String>,
}

impl Gemm {
    /// `(M, K)` from A and `N` from B, for 2-D operands at `a` and `b`.
    fn matrices(op: &OpArgs, a: usize, b: usize) -> Result<(i64, i64, i64), ModelError> {
        let (sa, sb) = (op.shape(a)?, op.shape(b)?);
        let get = |s: &[i64], i: usize, what: &str| {
            s.get(i)
                .copied()
                .ok_or_else(|| ModelError::Invalid(format!("{what} has no dimension {i}: {s:?}")))
        };
        Ok((get(&sa, 0, "A")?, get(&sb, 1, "B")?, get(&sa, 1, "A")?))
    }

    /// `(B, M, K)` and `(B, K, N)` operands at `a` and `b`.
    fn batched(op: &OpArgs, a: usize, b: usize) -> Result<(i64, i64, i64, i64), ModelError> {
        let (sa, sb) = (op.shape(a)?, op.shape(b)?);
        let (&[batch, m, k], &[_, _, n]) = (sa.as_slice(), sb.as_slice()) else {
            return Err(ModelError::Invalid(format!(
                "batched GEMM operands are not 3-D: {sa:?}, {sb:?}"
            )));
        };
        Ok((batch, m, n, k))
    }

    fn dtypes(op: &OpArgs, first: usize) -> Result<Vec<String>, ModelError> {
        Ok(vec![
            op.dtype(first)?.to_string(),
            op.dtype(first + 1)?.to_string(),
        ])
    }

    /// Params in the reference's order, `B = 1` appended when the model has none.
    fn params(&self, transpose: Option<ParamValue>) -> Vec<(String, ParamValue)> {
        let mut params = Vec::with_capacity(10);
        if let Some(batch) = self.batch {
            params.push(param("B", batch));
        }
        params.extend([
            param("M", self.m),
            param("N", self.n),
            param("K", self.k),
            param("bias", self.bias),
            ("stride_A".to_string(), self.stride_a.clone()),
            ("stride_B".to_string(), self.stride_b.clone()),
            (
                "dtype_A_B".to_string(),
                ParamValue::Tuple(self.dtypes.iter().map(|d| d.as_str().into()).collect()),
            ),
        ]);
        if self.batch.is_none() {
            params.push(param("B", 1_i64));
        }
        if let Some(t) = transpose {
            params.push(("transpose".to_string(), t));
        }
        params
    }

    /// The result with every bpe equal to `bpe` (except `bpe_out`).
    fn perf(
        &self,
        op: &OpArgs,
        bpe: Option<i64>,
        bpe_out: Option<i64>,
    ) -> Result<Perf, ModelError> {
        let transpose = transpose_param(op)?;
        let batch = self.batch.unwrap_or(1) as i128;
        let flops = gemm_flops(self.m, self.n, self.k, self.bias) * batch;
        let bytes = gemm_bytes(
            self.m,
            self.n,
            self.k,
            self.bias,
            GemmBpe::inputs_and_out(bpe, bpe_out),
        )
        .map(|b| b * batch);
        let spec = compute_spec(Maf::Matrix, self.dtypes.first().map(String::as_str));
        Ok(Perf::new(
            flops as f64,
            bytes.map(|b| b as f64),
            self.params(transpose),
        )
        .with_backward(Err(ModelError::NotImplemented(format!(
            "backward pass for {} is not defined",
            op.name
        ))))
        .with_compute_spec(spec))
    }
}

/// `aten::mm(A, B)`: `M, K = A`, `N = B[1]`, no bias, all bpe from `types[0]`.
pub fn aten_mm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (m, n, k) = Gemm::matrices(op, 0, 1)?;
    let gemm = Gemm {
        batch: None,
        m,
        n,
        k,
        bias: false,
        stride_a: op.stride_or_none(0)?,
        stride_b: op.stride_or_none(1)?,
        dtypes: Gemm::dtypes(op, 0)?,
    };
    let bpe = dtype::bpe(&gemm.dtypes[0]);
    gemm.perf(op, bpe, bpe)
}

/// `aten::addmm(C, A, B)`: operands at 1 and 2, bias always counted (as `N`
/// elements), all bpe from `types[1]`.
pub fn aten_addmm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    op.dim_entry(0)?;
    let (m, n, k) = Gemm::matrices(op, 1, 2)?;
    let gemm = Gemm {
        batch: None,
        m,
        n,
        k,
        bias: true,
        stride_a: op.stride_or_none(1)?,
        stride_b: op.stride_or_none(2)?,
        dtypes: Gemm::dtypes(op, 1)?,
    };
    let bpe = dtype::bpe(&gemm.dtypes[0]);
    gemm.perf(op, bpe, bpe)
}

/// `aten::_scaled_mm(A, B, ...)` and its aliases `trtllm::cublas_scaled_mm`,
/// `bitsandbytes::int8_linear_matmul`: bias when exactly 3 inputs are recorded;
/// A and B dtypes must have a known size (else `Invalid`); the output is 2 bytes
/// for 1-byte inputs, the input size for 2- or 4-byte inputs, unknown otherwise.
pub fn aten_scaled_mm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (m, n, k) = Gemm::matrices(op, 0, 1)?;
    let gemm = Gemm {
        batch: None,
        m,
        n,
        k,
        bias: op.dims()?.len() == 3,
        stride_a: op.stride_or_none(0)?,
        stride_b: op.stride_or_none(1)?,
        dtypes: Gemm::dtypes(op, 0)?,
    };
    let (Some(bpe_a), Some(_)) = (dtype::bpe(&gemm.dtypes[0]), dtype::bpe(&gemm.dtypes[1])) else {
        return Err(ModelError::Invalid(format!(
            "data types of A and B are not supported: {:?}",
            gemm.dtypes
        )));
    };
    let bpe_out = match bpe_a {
        1 => Some(2),
        2 | 4 => Some(bpe_a),
        _ => None,
    };
    gemm.perf(op, Some(bpe_a), bpe_out)
}

/// `aten::bmm(A, B)` with `A = (B, M, K)`, `B = (B, K, N)`.
pub fn aten_bmm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (batch, m, n, k) = Gemm::batched(op, 0, 1)?;
    let gemm = Gemm {
        batch: Some(batch),
        m,
        n,
        k,
        bias: false,
        stride_a: op.stride_or_none(0)?,
        stride_b: op.stride_or_none(1)?,
        dtypes: Gemm::dtypes(op, 0)?,
    };
    let bpe = dtype::bpe(&gemm.dtypes[0]);
    gemm.perf(op, bpe, bpe)
}

/// `aten::baddbmm(C, A, B)`: like `bmm` on operands 1 and 2, with bias.
pub fn aten_baddbmm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    op.dim_entry(0)?;
    let (batch, m, n, k) = Gemm::batched(op, 1, 2)?;
    let gemm = Gemm {
        batch: Some(batch),
        m,
        n,
        k,
        bias: true,
        stride_a: op.stride_or_none(1)?,
        stride_b: op.stride_or_none(2)?,
        dtypes: Gemm::dtypes(op, 1)?,
    };
    let bpe = dtype::bpe(&gemm.dtypes[0]);
    gemm.perf(op, bpe, bpe)
}

/// TransformerEngine v2 pseudo ops (`_Linear_yfwd_mm`, ...): like `aten::mm`, but
/// A and B dtypes must match (else `Invalid`) and the output is always 2 bytes.
pub fn tev2_pseudo_gemm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (m, n, k) = Gemm::matrices(op, 0, 1)?;
    let gemm = Gemm {
        batch: None,
        m,
        n,
        k,
        bias: false,
        stride_a: op.stride_or_none(0)?,
        stride_b: op.stride_or_none(1)?,
        dtypes: Gemm::dtypes(op, 0)?,
    };
    if gemm.dtypes[0] != gemm.dtypes[1] {
        return Err(ModelError::Invalid(format!(
            "data types of A and B are different: {:?}",
            gemm.dtypes
        )));
    }
    gemm.perf(op, dtype::bpe(&gemm.dtypes[0]), Some(2))
}

/// `tex_ts::te_gemm_ts` (TransformerEngine TorchScript GEMM): A at input 0, B at
/// 5, output at 10; `transa`/`transb` from `Concrete Inputs[4]`/`[9]` (`"1"`),
/// bias when `Concrete Inputs[14]` is non-empty; `dtype_A_B` holds the A, B,
/// output and bias dtypes (inputs 0, 5, 10, 18), each with its own bpe.
pub fn tex_ts_te_gemm_ts(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let transpose = transpose_param(op)?;
    op.dim_entry(10)?;
    let (a, b) = (op.shape(0)?, op.shape(5)?);
    let trans_a = op.ci(4)? == "1";
    let trans_b = op.ci(9)? == "1";
    let dim = |s: &[i64], i: usize| {
        s.get(i)
            .copied()
            .ok_or_else(|| ModelError::Invalid(format!("operand has no dimension {i}: {s:?}")))
    };
    let (m, k) = if trans_a {
        (dim(&a, 0)?, dim(&a, 1)?)
    } else {
        (dim(&a, 1)?, dim(&a, 0)?)
    };
    let n = if trans_b { dim(&b, 1)? } else { dim(&b, 0)? };
    let bias = !op.ci(14)?.is_empty();
    let dtypes = [op.dtype(0)?, op.dtype(5)?, op.dtype(10)?, op.dtype(18)?];
    let (stride_a, stride_b) = (op.stride_or_none(0)?, op.stride_or_none(5)?);
    let bpe = GemmBpe {
        a: dtype::bpe(dtypes[0]),
        b: dtype::bpe(dtypes[1]),
        bias: dtype::bpe(dtypes[3]),
        out: dtype::bpe(dtypes[2]),
    };
    let bytes = gemm_bytes(m, n, k, bias, bpe);
    let mut params = vec![
        param("M", m),
        param("N", n),
        param("K", k),
        param("bias", bias),
        ("stride_A".to_string(), stride_a),
        ("stride_B".to_string(), stride_b),
        (
            "dtype_A_B".to_string(),
            ParamValue::Tuple(dtypes.iter().map(|&d| d.into()).collect()),
        ),
        param("B", 1_i64),
    ];
    if let Some(t) = transpose {
        params.push(("transpose".to_string(), t));
    }
    Ok(Perf::new(
        gemm_flops(m, n, k, bias) as f64,
        bytes.map(|b| b as f64),
        params,
    )
    .with_backward(Err(ModelError::NotImplemented(
        "backward pass for tex_ts::te_gemm_ts is not defined".into(),
    )))
    .with_compute_spec(compute_spec(Maf::Matrix, Some(dtypes[0]))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::run;
    use crate::perf::Direction;

    const BF16: &str = "c10::BFloat16";

    #[test]
    fn bert_addmm_worked_example() {
        let perf = run(
            "aten::addmm",
            "[[512], [141, 512], [512, 512], [], []]",
            &format!(r#"["{BF16}", "{BF16}", "{BF16}", "Scalar", "Scalar"]"#),
            Some("[[1], [512, 1], [1, 512], [], []]"),
            r#"["", "", "", "1", "1"]"#,
            &["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_cublas"],
        )
        .unwrap();
        let (m, n, k) = (141.0, 512.0, 512.0);
        let flops = 2.0 * m * n * k + m * n;
        assert_eq!(flops, 73_996_800.0);
        assert_eq!(perf.flops, flops);
        let bytes = (m * k + k * n + m * n + n) * 2.0;
        assert_eq!(bytes, 814_080.0);
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(perf.model_class, "aten_addmm");
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_bf16"));
        assert_eq!(
            perf.params_repr(),
            "{'M': 141, 'N': 512, 'K': 512, 'bias': True, 'stride_A': (512, 1), \
             'stride_B': (1, 512), 'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16'), 'B': 1}"
        );
        // A cuBLAS name does not parse: no transpose key.
        assert!(perf.param("transpose").is_none());
        assert!(matches!(
            perf.metrics(Direction::Bwd),
            Err(ModelError::NotImplemented(_))
        ));
    }

    #[test]
    fn mm_without_bias_and_nvjet_transpose() {
        let perf = run(
            "aten::mm",
            "[[8944, 1024], [1024, 2816]]",
            &format!(r#"["{BF16}", "{BF16}"]"#),
            Some("[[1024, 1], [1, 1024]]"),
            r#"["", ""]"#,
            &[
                "void at::native::copy_kernel",
                "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TN",
            ],
        )
        .unwrap();
        let (m, n, k) = (8944.0, 2816.0, 1024.0);
        assert_eq!(perf.flops, 2.0 * m * n * k);
        assert_eq!(perf.bytes, Some((m * k + k * n + m * n) * 2.0));
        assert_eq!(
            perf.params_repr(),
            "{'M': 8944, 'N': 2816, 'K': 1024, 'bias': False, 'stride_A': (1024, 1), \
             'stride_B': (1, 1024), 'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16'), 'B': 1, \
             'transpose': (True, False)}"
        );
    }

    #[test]
    fn bmm_scales_by_batch_and_reads_tensile_names() {
        let perf = run(
            "aten::bmm",
            "[[96, 3137, 64], [96, 64, 3137]]",
            &format!(r#"["{BF16}", "{BF16}"]"#),
            Some("[[200768, 64, 1], [200768, 3137, 1]]"),
            r#"["", ""]"#,
            &["Cijk_Ailk_Bljk_BBS_BH_Bias_HAS_SAV_UserArgs_MT256x128x64_MI16x16x1"],
        )
        .unwrap();
        let (b, m, n, k) = (96.0, 3137.0, 3137.0, 64.0);
        assert_eq!(perf.flops, b * (2.0 * m * n * k));
        assert_eq!(perf.bytes, Some(b * (m * k + k * n + m * n) * 2.0));
        let keys: Vec<&str> = perf.params.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "B",
                "M",
                "N",
                "K",
                "bias",
                "stride_A",
                "stride_B",
                "dtype_A_B",
                "transpose"
            ]
        );
        assert_eq!(perf.param("transpose").unwrap().repr(), "(False, False)");
    }

    #[test]
    fn transpose_parsing() {
        let t = |name| parse_transpose(name).unwrap();
        assert_eq!(
            t("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64"),
            Some((Some(true), Some(false)))
        );
        assert_eq!(
            t("Custom_Cijk_Ailk_Bjlk_S"),
            Some((Some(false), Some(true)))
        );
        assert_eq!(t("Cijk_Axyz_Bxyz_S"), Some((None, None)));
        assert_eq!(
            t("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NT"),
            Some((Some(false), Some(true)))
        );
        assert_eq!(
            t("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8"),
            None
        );
        assert!(parse_transpose("nvjet_x_T").is_err());
    }

    #[test]
    fn missing_args_are_invalid() {
        let err = run("aten::mm", "[[4, 8]]", r#"["float"]"#, None, "[]", &[]).unwrap_err();
        assert!(matches!(err, ModelError::Invalid(_)), "{err}");
        // Unknown dtype sizes give no bytes but still FLOPs.
        let perf = run(
            "aten::mm",
            "[[4, 8], [8, 2]]",
            r#"["bool", "bool"]"#,
            None,
            "[]",
            &[],
        )
        .unwrap();
        assert_eq!(perf.flops, 2.0 * 4.0 * 2.0 * 8.0);
        assert_eq!(perf.bytes, None);
        assert_eq!(perf.compute_spec, None);
        assert_eq!(perf.param("stride_A"), Some(&ParamValue::None));
    }

    #[test]
    fn scaled_mm_output_is_two_bytes_for_fp8() {
        let perf = run(
            "aten::_scaled_mm",
            "[[128, 256], [256, 64], [], []]",
            r#"["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"]"#,
            None,
            r#"["", "", "", ""]"#,
            &[],
        )
        .unwrap();
        let (m, n, k) = (128.0, 64.0, 256.0);
        assert_eq!(perf.bytes, Some(m * k + k * n + m * n * 2.0));
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_fp8"));
    }
}
