//! Attention models (spec §7.6): PyTorch's SDPA ops, Dao-AILab flash-attention,
//! aiter and flash-attention-3 ops, Evoformer.
//!
//! With `B, N_Q, H_Q, N_KV, H_KV, d_qk, d_v` picked from q, k and v:
//! * `flops = B·H_Q·2·N_Q·N_KV·d_qk + B·H_Q·2·N_Q·d_v·N_KV`, halved when causal;
//! * `bytes = (q + k + v + out elements)·bpe` with `bpe = 2` whatever the dtype;
//! * backward: recompute (flash only) + dV + dP + dQ + dK GEMMs plus the GQA
//!   reductions, halved when causal; bytes `(q + k + v + dO + dQ + dK + dV)·2`
//!   ([`sdpa_flops_bwd`], [`sdpa_bytes_bwd`]).
//! * Param keys: `B, N_Q, H_Q, N_KV, H_KV, d_h_qk, d_h_v, [q_stride, k_stride,
//!   v_stride], dropout, causal, flash_impl, [dtype_A_B]`, varlen ops append
//!   `num_seqs_q, num_seqs_kv, max_seqlen_q, max_seqlen_kv`.
//!
//! Quirk switches:
//! * [`Fix::CausalUnequalLengths`] (a bug: `BugFixes` and `Corrected`): causal
//!   attention with `N_Q != N_KV` is `Invalid` in the reference (§11 item
//!   10). Fixed, it scales the non-causal count by the share of the `N_Q × N_KV`
//!   score matrix the causal mask keeps, measured as an area so that `N_Q = N_KV`
//!   keeps the reference's exact halving ([`causal_fraction`]). PyTorch's SDPA ops
//!   align the mask top-left; flash-attention, aiter and FA3 ops bottom-right.
//! * [`Fix::SdpaBytesDtype`] (`Corrected` only): forward bytes use 2 bytes per
//!   element whatever the dtype (§11 item 10). Corrected uses the size of the q dtype (`dtype_A_B[0]`) where the op records
//!   it (`None` for an unknown size); ops without `dtype_A_B` keep 2.
//!
//! Floats: the counts are computed in `f64`; with integer shapes every partial
//! product below 2^53 is exact, like the reference's Python ints.

use super::args::{eval_flag, float_arg, py_float, OpArgs};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, Fix, Metrics, ModelError, Perf, Semantics};

/// Where the causal mask's diagonal starts when `N_Q != N_KV`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CausalAlign {
    /// Query `i` sees keys `j <= i` (PyTorch `is_causal`).
    TopLeft,
    /// Query `i` sees keys `j <= i + N_KV - N_Q` (flash-attention ≥ 2.1).
    BottomRight,
}

/// The share of the `n_q × n_kv` score matrix a causal mask keeps, as an area:
/// `1/2` when `n_q = n_kv` (the reference's halving), otherwise the area of the
/// kept triangle or trapezoid over `n_q·n_kv`.
pub fn causal_fraction(n_q: f64, n_kv: f64, align: CausalAlign) -> f64 {
    if n_q <= 0.0 || n_kv <= 0.0 {
        return 0.0;
    }
    let kept = match align {
        CausalAlign::TopLeft if n_q <= n_kv => n_q * n_q / 2.0,
        CausalAlign::TopLeft => n_kv * n_kv / 2.0 + (n_q - n_kv) * n_kv,
        CausalAlign::BottomRight if n_kv >= n_q => n_q * (n_kv - n_q) + n_q * n_q / 2.0,
        CausalAlign::BottomRight => n_kv * n_kv / 2.0,
    };
    kept / (n_q * n_kv)
}

/// The attention problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attention {
    pub b: f64,
    pub n_q: f64,
    pub h_q: f64,
    pub n_kv: f64,
    pub h_kv: f64,
    pub d_qk: f64,
    pub d_v: f64,
    pub causal: bool,
    pub flash_impl: bool,
}

/// Applies the causal rule: the reference halves (and fails when `N_Q != N_KV`);
/// corrected scales by [`causal_fraction`].
fn apply_causal(
    total: f64,
    a: &Attention,
    semantics: Semantics,
    align: CausalAlign,
) -> Result<f64, ModelError> {
    if !a.causal {
        return Ok(total);
    }
    if a.n_q == a.n_kv {
        return Ok(total / 2.0);
    }
    if semantics.fixes(Fix::CausalUnequalLengths) {
        return Ok(total * causal_fraction(a.n_q, a.n_kv, align));
    }
    Err(ModelError::Invalid(format!(
        "causal=True but N_Q != N_KV: {} != {}",
        a.n_q, a.n_kv
    )))
}

/// Forward FLOPs.
pub fn sdpa_flops(
    a: &Attention,
    semantics: Semantics,
    align: CausalAlign,
) -> Result<f64, ModelError> {
    let qk = a.b * a.h_q * (2.0 * a.n_q * a.n_kv * a.d_qk);
    let pv = a.b * a.h_q * (2.0 * a.n_q * a.d_v * a.n_kv);
    apply_causal(qk + pv, a, semantics, align)
}

/// `(q + k + v + out elements)·bpe`.
pub fn sdpa_bytes(a: &Attention, bpe: f64) -> f64 {
    let q = a.b * a.n_q * a.h_q * a.d_qk;
    let k = a.b * a.n_kv * a.h_kv * a.d_qk;
    let v = a.b * a.n_kv * a.h_kv * a.d_v;
    let out = a.b * a.n_q * a.h_q * a.d_v;
    (q + k + v + out) * bpe
}

/// Python's `a // b` on floats.
fn floordiv(a: f64, b: f64) -> Result<f64, ModelError> {
    if b == 0.0 {
        return Err(ModelError::Invalid("division by zero".into()));
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    let floor = div.floor();
    Ok(if div - floor > 0.5 {
        floor + 1.0
    } else {
        floor
    })
}

/// Backward FLOPs: (recompute QKᵀ if flash) + dV + dP + dQ + dK, with the GQA
/// head reductions `B·N_KV·d·(H_Q // H_KV − 1)` for dV and dK.
pub fn sdpa_flops_bwd(
    a: &Attention,
    semantics: Semantics,
    align: CausalAlign,
) -> Result<f64, ModelError> {
    let mut total = 0.0;
    if a.flash_impl {
        total += a.b * a.h_q * (2.0 * a.n_q * a.n_kv * a.d_qk);
    }
    let gqa = floordiv(a.h_q, a.h_kv)? - 1.0;
    total += a.b * a.h_q * (2.0 * a.n_kv * a.n_q * a.d_v) + a.b * a.n_kv * a.d_v * gqa;
    total += a.b * a.h_q * (2.0 * a.n_q * a.n_kv * a.d_v);
    total += a.b * a.h_q * (2.0 * a.n_q * a.n_kv * a.d_qk);
    total += a.b * a.h_q * (2.0 * a.n_kv * a.n_q * a.d_qk) + a.b * a.n_kv * a.d_qk * gqa;
    apply_causal(total, a, semantics, align)
}

/// `(q + k + v + dO + dQ + dK + dV elements)·bpe`.
pub fn sdpa_bytes_bwd(a: &Attention, bpe: f64) -> f64 {
    let q = a.b * a.n_q * a.h_q * a.d_qk;
    let k = a.b * a.n_kv * a.h_kv * a.d_qk;
    let v = a.b * a.n_kv * a.h_kv * a.d_v;
    let d_o = a.b * a.n_q * a.h_q * a.d_v;
    (q + k + v + d_o + q + k + v) * bpe
}

/// `(B, H, N, d)` of q, k and v picked through `layout` (`[0, 1, 2, 3]` for
/// BHND, `[0, 2, 1, 3]` for BNHD), with the reference's consistency checks.
fn extract(op: &OpArgs, qkv: [usize; 3], layout: [usize; 4]) -> Result<[f64; 7], ModelError> {
    let pick = |i: usize| -> Result<[i64; 4], ModelError> {
        let shape = op.shape(i)?;
        let mut out = [0; 4];
        for (slot, &at) in out.iter_mut().zip(&layout) {
            *slot = *shape.get(at).ok_or_else(|| {
                ModelError::Invalid(format!(
                    "attention input {i} has no dimension {at}: {shape:?}"
                ))
            })?;
        }
        Ok(out)
    };
    let ([bq, hq, nq, dq], [bk, hk, nk, dk], [bv, hv, nv, dv]) =
        (pick(qkv[0])?, pick(qkv[1])?, pick(qkv[2])?);
    check_kv(hk, hv, nk, nv, dq, dk)?;
    if bq != bk || bq != bv {
        return Err(ModelError::Invalid(format!(
            "batch sizes do not match: {bq} != {bk} != {bv}"
        )));
    }
    Ok([bq, nq, hq, nk, hk, dq, dv].map(|v| v as f64))
}

/// `(H, N, d)` of varlen q, k and v (`(N, H, d)` tensors), batch 1.
fn extract_varlen(op: &OpArgs, qkv: [usize; 3]) -> Result<[f64; 7], ModelError> {
    let pick = |i: usize| -> Result<[i64; 3], ModelError> {
        match op.shape(i)?.as_slice() {
            &[n, h, d, ..] => Ok([h, n, d]),
            other => Err(ModelError::Invalid(format!(
                "varlen attention input {i} is not 3-D: {other:?}"
            ))),
        }
    };
    let ([hq, nq, dq], [hk, nk, dk], [hv, nv, dv]) = (pick(qkv[0])?, pick(qkv[1])?, pick(qkv[2])?);
    check_kv(hk, hv, nk, nv, dq, dk)?;
    Ok([1, nq, hq, nk, hk, dq, dv].map(|v| v as f64))
}

fn check_kv(hk: i64, hv: i64, nk: i64, nv: i64, dq: i64, dk: i64) -> Result<(), ModelError> {
    if hk != hv {
        return Err(ModelError::Invalid(format!(
            "head counts of K and V differ: {hk} != {hv}"
        )));
    }
    if nk != nv {
        return Err(ModelError::Invalid(format!(
            "lengths of K and V differ: {nk} != {nv}"
        )));
    }
    if dq != dk {
        return Err(ModelError::Invalid(format!(
            "head dims of Q and K differ: {dq} != {dk}"
        )));
    }
    Ok(())
}

/// How an op's `dropout` argument is read.
#[derive(Clone, Copy)]
enum Dropout {
    /// `float(ci[i])` unless `''`/`'None'` (or unparsable): 0.0.
    Lenient(usize),
    /// `float(ci[i])`, failing on anything else.
    Strict(usize),
    /// `float(ci[i])` if present and non-empty, else 0.0.
    IfPresent(usize),
    /// Always 0.0.
    Zero,
}

/// How an op's `causal` argument is read.
#[derive(Clone, Copy)]
enum Causal {
    /// `ci[i].lower() == 'true'` unless `''`/`'None'`: False.
    Lower(usize),
    /// `eval(ci[i])`.
    Eval(usize),
    /// `eval(ci[i])` if present and non-empty, else True.
    EvalOrTrue(usize),
}

fn read_dropout(op: &OpArgs, rule: Dropout) -> Result<f64, ModelError> {
    Ok(match rule {
        Dropout::Lenient(i) => {
            let text = op.ci(i)?;
            if text.is_empty() || text == "None" {
                0.0
            } else {
                py_float(text).unwrap_or(0.0)
            }
        }
        Dropout::Strict(i) => float_arg(op.ci(i)?, "dropout")?,
        Dropout::IfPresent(i) => match op.ci_nonempty(i) {
            Some(text) => float_arg(text, "dropout")?,
            None => 0.0,
        },
        Dropout::Zero => 0.0,
    })
}

fn read_causal(op: &OpArgs, rule: Causal) -> Result<ParamValue, ModelError> {
    Ok(match rule {
        Causal::Lower(i) => {
            let text = op.ci(i)?;
            ParamValue::Bool(!text.is_empty() && text != "None" && text.to_lowercase() == "true")
        }
        Causal::Eval(i) => eval_flag(op.ci(i)?, "causal")?,
        Causal::EvalOrTrue(i) => match op.ci_nonempty(i) {
            Some(text) => eval_flag(text, "causal")?,
            None => ParamValue::Bool(true),
        },
    })
}

/// The argument layout of one attention op.
#[derive(Clone, Copy)]
struct Layout {
    qkv: [usize; 3],
    bhnd: [usize; 4],
    dropout: Dropout,
    causal: Causal,
    flash_impl: bool,
    /// Records `q_stride, k_stride, v_stride` (flash-attention ops).
    strides: bool,
    /// Records `dtype_A_B = types[:2]` (aiter and FA3 ops do not).
    dtype: bool,
    /// The op is itself a backward: its own metrics are the backward ones, with
    /// forward bytes at `bpe(dtype)` (flash) or 2.
    backward_op: Option<BackwardBytes>,
    align: CausalAlign,
}

#[derive(Clone, Copy)]
enum BackwardBytes {
    /// `bytes_bwd(bpe(dtype_A_B[0]))`, failing on an unknown size.
    DtypeBpe,
    /// `bytes_bwd(2)`.
    Two,
}

const BHND: [usize; 4] = [0, 1, 2, 3];
const BNHD: [usize; 4] = [0, 2, 1, 3];

/// Common tail: params, bytes, backward metrics, compute spec. `own_flops` are
/// the op's FLOPs (forward ones, or backward ones for a backward op).
fn finish(
    op: &OpArgs,
    semantics: Semantics,
    layout: Layout,
    a: Attention,
    mut params: Vec<(String, ParamValue)>,
    dtypes: Option<[String; 2]>,
    own_flops: f64,
) -> Result<Perf, ModelError> {
    let q_dtype = dtypes.as_ref().map(|d| d[0].as_str());
    let backward = sdpa_flops_bwd(&a, semantics, layout.align).map(|flops| Metrics {
        flops,
        bytes: Some(sdpa_bytes_bwd(&a, 2.0)),
    });
    let bytes = match layout.backward_op {
        None => {
            let bpe = match q_dtype {
                Some(d) if semantics.fixes(Fix::SdpaBytesDtype) => dtype::bpe(d).map(|b| b as f64),
                _ => Some(2.0),
            };
            bpe.map(|b| sdpa_bytes(&a, b))
        }
        Some(BackwardBytes::Two) => Some(sdpa_bytes_bwd(&a, 2.0)),
        Some(BackwardBytes::DtypeBpe) => {
            let bpe = q_dtype.and_then(dtype::bpe).ok_or_else(|| {
                ModelError::Invalid(format!("unknown dtype size for {}: {q_dtype:?}", op.name))
            })?;
            Some(sdpa_bytes_bwd(&a, bpe as f64))
        }
    };
    if let Some(d) = dtypes.as_ref() {
        params.push((
            "dtype_A_B".into(),
            ParamValue::Tuple(vec![d[0].as_str().into(), d[1].as_str().into()]),
        ));
    }
    Ok(Perf::new(own_flops, bytes, params)
        .with_backward(backward)
        .with_compute_spec(compute_spec(Maf::Matrix, q_dtype)))
}

fn dtypes_of(op: &OpArgs, layout: &Layout) -> Result<Option<[String; 2]>, ModelError> {
    if !layout.dtype {
        return Ok(None);
    }
    Ok(Some([op.dtype(0)?.to_string(), op.dtype(1)?.to_string()]))
}

fn base_params(cfg: &[f64; 7]) -> Vec<(String, ParamValue)> {
    ["B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v"]
        .iter()
        .zip(cfg)
        .map(|(k, &v)| param(k, v as i64))
        .collect()
}

fn strides_params(op: &OpArgs, qkv: [usize; 3]) -> Result<Vec<(String, ParamValue)>, ModelError> {
    Ok(vec![
        ("q_stride".into(), op.stride(qkv[0])?),
        ("k_stride".into(), op.stride(qkv[1])?),
        ("v_stride".into(), op.stride(qkv[2])?),
    ])
}

/// A fixed-length attention op with `layout`.
fn attention(op: &OpArgs, semantics: Semantics, layout: Layout) -> Result<Perf, ModelError> {
    let cfg = extract(op, layout.qkv, layout.bhnd)?;
    let dtypes = dtypes_of(op, &layout)?;
    let mut params = base_params(&cfg);
    if layout.strides {
        params.extend(strides_params(op, layout.qkv)?);
    }
    let dropout = read_dropout(op, layout.dropout)?;
    let causal = read_causal(op, layout.causal)?;
    let a = attention_of(&cfg, causal.truthy(), layout.flash_impl);
    params.extend([
        param("dropout", dropout),
        ("causal".into(), causal),
        param("flash_impl", layout.flash_impl),
    ]);
    let own_flops = if layout.backward_op.is_some() {
        sdpa_flops_bwd(&a, semantics, layout.align)?
    } else {
        sdpa_flops(&a, semantics, layout.align)?
    };
    finish(op, semantics, layout, a, params, dtypes, own_flops)
}

fn attention_of(cfg: &[f64; 7], causal: bool, flash_impl: bool) -> Attention {
    let [b, n_q, h_q, n_kv, h_kv, d_qk, d_v] = *cfg;
    Attention {
        b,
        n_q,
        h_q,
        n_kv,
        h_kv,
        d_qk,
        d_v,
        causal,
        flash_impl,
    }
}

fn torch_layout(dropout: usize, causal: usize, flash_impl: bool) -> Layout {
    Layout {
        qkv: [0, 1, 2],
        bhnd: BHND,
        dropout: Dropout::Lenient(dropout),
        causal: Causal::Lower(causal),
        flash_impl,
        strides: false,
        dtype: true,
        backward_op: None,
        align: CausalAlign::TopLeft,
    }
}

fn aiter_layout(qkv: [usize; 3], dropout: usize, causal: usize, backward: bool) -> Layout {
    Layout {
        qkv,
        bhnd: BNHD,
        dropout: Dropout::Lenient(dropout),
        causal: Causal::Lower(causal),
        flash_impl: true,
        strides: false,
        dtype: false,
        backward_op: backward.then_some(BackwardBytes::Two),
        align: CausalAlign::BottomRight,
    }
}

/// `aten::_scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, ...)`, BHND.
pub fn aten_sdpa_flash(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, torch_layout(3, 4, true))
}

/// `aten::_scaled_dot_product_{efficient,cudnn}_attention(q, k, v, attn_bias,
/// compute_log_sumexp, dropout_p, is_causal, ...)`, BHND, `flash_impl` false.
pub fn aten_sdpa_efficient(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, torch_layout(5, 6, false))
}

fn flash_layout(backward: bool) -> Layout {
    Layout {
        qkv: if backward { [1, 2, 3] } else { [0, 1, 2] },
        bhnd: BNHD,
        dropout: if backward {
            Dropout::IfPresent(8)
        } else {
            Dropout::Strict(3)
        },
        causal: if backward {
            Causal::EvalOrTrue(10)
        } else {
            Causal::Eval(5)
        },
        flash_impl: true,
        strides: true,
        dtype: true,
        backward_op: backward.then_some(BackwardBytes::DtypeBpe),
        align: CausalAlign::BottomRight,
    }
}

/// `FlashAttnFunc`, `flash_attn::_flash_attn_forward(q, k, v, dropout_p,
/// softmax_scale, causal, ...)`, BNHD, with q/k/v strides.
pub fn flash_attention(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, flash_layout(false))
}

/// `flash_attn::_flash_attn_backward(dout, q, k, v, ...)`: its own metrics are the
/// backward ones, bytes at the q dtype's size (an unknown size is `Invalid`).
pub fn flash_attention_backward(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, flash_layout(true))
}

/// The varlen ops: total tokens in `N`, `num_seqs` from the `cu_seqlens` lengths,
/// FLOPs estimated as one sequence of `max_seqlen` plus `num_seqs − 1` equal
/// sequences sharing the rest.
fn varlen(op: &OpArgs, semantics: Semantics, backward: bool) -> Result<Perf, ModelError> {
    let (qkv, cu, ci) = if backward {
        ([1, 2, 3], [9, 10], [11, 12, 13, 15])
    } else {
        ([0, 1, 2], [3, 4], [5, 6, 7, 9])
    };
    let layout = Layout {
        qkv,
        bhnd: BHND,
        dropout: Dropout::Strict(ci[2]),
        causal: Causal::Eval(ci[3]),
        flash_impl: true,
        strides: true,
        dtype: true,
        backward_op: backward.then_some(BackwardBytes::Two),
        align: CausalAlign::BottomRight,
    };
    let cfg = extract_varlen(op, qkv)?;
    let dtypes = dtypes_of(op, &layout)?;
    let mut params = base_params(&cfg);
    params.extend(strides_params(op, qkv)?);
    let num_seqs = |i: usize| -> Result<i64, ModelError> {
        let shape = op.shape(i)?;
        let first = shape
            .first()
            .ok_or_else(|| ModelError::Invalid(format!("cu_seqlens (input {i}) has no length")))?;
        Ok(first - 1)
    };
    let (num_seqs_q, num_seqs_kv) = (num_seqs(cu[0])?, num_seqs(cu[1])?);
    let max_q = float_arg(op.ci(ci[0])?, "max_seqlen_q")?;
    let max_kv = float_arg(op.ci(ci[1])?, "max_seqlen_kv")?;
    let dropout = read_dropout(op, layout.dropout)?;
    let causal = read_causal(op, layout.causal)?;
    let a = attention_of(&cfg, causal.truthy(), true);
    params.extend([
        param("dropout", dropout),
        ("causal".into(), causal),
        param("flash_impl", true),
    ]);
    let per_sequence = |n_q: f64, n_kv: f64| {
        let seq = Attention { n_q, n_kv, ..a };
        if backward {
            sdpa_flops_bwd(&seq, semantics, layout.align)
        } else {
            sdpa_flops(&seq, semantics, layout.align)
        }
    };
    let mut flops = per_sequence(max_q, max_kv)?;
    if num_seqs_q > 1 {
        let rest_q = floordiv(a.n_q - max_q, (num_seqs_q - 1) as f64)?;
        let rest_kv = floordiv(a.n_kv - max_kv, (num_seqs_kv - 1) as f64)?;
        flops += (num_seqs_q - 1) as f64 * per_sequence(rest_q, rest_kv)?;
    }
    let mut perf = finish(op, semantics, layout, a, params, dtypes, flops)?;
    perf.params.extend([
        param("num_seqs_q", num_seqs_q),
        param("num_seqs_kv", num_seqs_kv),
        param("max_seqlen_q", max_q),
        param("max_seqlen_kv", max_kv),
    ]);
    Ok(perf)
}

/// `flash_attn::_flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k,
/// max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal, ...)`.
pub fn flash_attention_varlen_forward(
    op: &OpArgs,
    semantics: Semantics,
) -> Result<Perf, ModelError> {
    varlen(op, semantics, false)
}

/// `flash_attn::_flash_attn_varlen_backward(dout, q, k, v, out, softmax_lse, dq,
/// dk, dv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
/// softmax_scale, causal, ...)`: backward FLOPs, `bytes_bwd(2)`.
pub fn flash_attention_varlen_backward(
    op: &OpArgs,
    semantics: Semantics,
) -> Result<Perf, ModelError> {
    varlen(op, semantics, true)
}

/// `aiter::_flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal, ...)`.
pub fn aiter_flash_attn_forward(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([0, 1, 2], 3, 5, false))
}

/// `aiter::_flash_attn_backward`: q, k, v at 0..3, dropout at 10, causal at 12.
pub fn aiter_flash_attn_backward(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([0, 1, 2], 10, 12, true))
}

/// `aiter::wrapper_fmha_v3_fwd`: q, k, v at 1..4, dropout at 4, causal at 6.
pub fn aiter_wrapper_fmha_v3_fwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([1, 2, 3], 4, 6, false))
}

/// `aiter::wrapper_fmha_v3_bwd`: q, k, v at 1..4, dropout at 7, causal at 9.
pub fn aiter_wrapper_fmha_v3_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([1, 2, 3], 7, 9, true))
}

/// `aiter::mha_fwd`, `aiter::fmha_v3_fwd(q, k, v, dropout_p, softmax_scale, is_causal, ...)`.
pub fn aiter_mha_fwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([0, 1, 2], 3, 5, false))
}

/// `aiter::mha_bwd(dout, q, k, v, out, softmax_lse, dropout_p, softmax_scale, is_causal, ...)`.
pub fn aiter_mha_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    attention(op, semantics, aiter_layout([1, 2, 3], 6, 8, true))
}

/// `flash_attn_3::fwd`: BNHD, no dropout, causal at `Concrete Inputs[24]`.
pub fn flash_attn_v3_forward(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let layout = Layout {
        dropout: Dropout::Zero,
        ..aiter_layout([0, 1, 2], 0, 24, false)
    };
    attention(op, semantics, layout)
}

/// `EvoformerAttention(Q, K, V, res_mask, pair_bias)` with 5-D
/// `(Batch, N_seq, N_res, Head, Dim)` inputs: `N_seq` folds into the batch; never
/// causal; keys `B … d_h_v, causal, flash_impl, dtype_A_B` (a one-element list).
pub fn evoformer_attention(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let q = op.shape(0)?;
    let &[b, n_seq, n_res, heads, dim] = q.as_slice() else {
        return Err(ModelError::Invalid(format!(
            "Evoformer Q is not 5-D: {q:?}"
        )));
    };
    let dtype = match op.types_opt() {
        Some(types) if !types.is_empty() => Some(op.dtype(0)?.to_string()),
        _ => None,
    };
    let cfg = [
        (b * n_seq) as f64,
        n_res as f64,
        heads as f64,
        n_res as f64,
        heads as f64,
        dim as f64,
        dim as f64,
    ];
    let a = attention_of(&cfg, false, false);
    let mut params = base_params(&cfg);
    params.extend([
        param("causal", false),
        param("flash_impl", false),
        (
            "dtype_A_B".into(),
            ParamValue::List(vec![ParamValue::opt_str(dtype.as_deref())]),
        ),
    ]);
    let bpe = match dtype.as_deref() {
        Some(d) if semantics.fixes(Fix::SdpaBytesDtype) => dtype::bpe(d).map(|b| b as f64),
        _ => Some(2.0),
    };
    Ok(Perf::new(
        sdpa_flops(&a, semantics, CausalAlign::TopLeft)?,
        bpe.map(|b| sdpa_bytes(&a, b)),
        params,
    )
    .with_backward(Ok(Metrics {
        flops: sdpa_flops_bwd(&a, semantics, CausalAlign::TopLeft)?,
        bytes: Some(sdpa_bytes_bwd(&a, 2.0)),
    }))
    .with_compute_spec(compute_spec(Maf::Matrix, dtype.as_deref())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};
    use crate::perf::Direction;

    const SDPA_TYPES: &str = r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"]"#;

    fn sdpa(
        b: i64,
        h: i64,
        n_q: i64,
        n_kv: i64,
        d: i64,
        causal: &str,
        semantics: Semantics,
    ) -> Result<Perf, ModelError> {
        run_with(
            "aten::_scaled_dot_product_flash_attention",
            &format!("[[{b}, {h}, {n_q}, {d}], [{b}, {h}, {n_kv}, {d}], [{b}, {h}, {n_kv}, {d}], [], [], [], []]"),
            SDPA_TYPES,
            None,
            &format!(r#"["", "", "", "0.", "{causal}", "False", "0.125"]"#),
            &[],
            semantics,
        )
    }

    #[test]
    fn bert_flash_attention_worked_example() {
        let perf = sdpa(1, 8, 141, 141, 64, "False", Semantics::TraceLens).unwrap();
        let flops = 2.0 * (8.0 * 2.0 * 141.0 * 141.0 * 64.0);
        assert_eq!(flops, 40_716_288.0);
        assert_eq!(perf.flops, flops);
        // Forward bytes: q, k, v, out at 2 bytes each.
        let bytes = 4.0 * (141.0 * 8.0 * 64.0) * 2.0;
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(bytes / 1048576.0, 0.55078125);
        assert_eq!(
            perf.params_repr(),
            "{'B': 1, 'N_Q': 141, 'H_Q': 8, 'N_KV': 141, 'H_KV': 8, 'd_h_qk': 64, 'd_h_v': 64, \
             'dropout': 0.0, 'causal': False, 'flash_impl': True, \
             'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16')}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_bf16"));
        // Backward: recompute + dV + dP + dQ + dK, MHA so no GQA terms.
        let gemm = 8.0 * 2.0 * 141.0 * 141.0 * 64.0;
        let bwd = perf.metrics(Direction::Bwd).unwrap();
        assert_eq!(bwd.flops, 5.0 * gemm);
        assert_eq!(bwd.bytes, Some(7.0 * 141.0 * 8.0 * 64.0 * 2.0));
    }

    #[test]
    fn causal_square_attention_halves_in_both_semantics() {
        for semantics in [Semantics::TraceLens, Semantics::Corrected] {
            let perf = sdpa(16, 16, 559, 559, 64, "True", semantics).unwrap();
            let full = 16.0 * 16.0 * 2.0 * 559.0 * 559.0 * 64.0 * 2.0;
            assert_eq!(perf.flops, full / 2.0);
            assert_eq!(perf.flops / 1e9, 10.239377408);
        }
    }

    #[test]
    fn causal_attention_with_unequal_lengths() {
        // The reference drops it.
        let err = sdpa(2, 4, 16, 64, 32, "True", Semantics::TraceLens).unwrap_err();
        assert!(matches!(err, ModelError::Invalid(_)), "{err}");
        // Corrected: PyTorch's top-left mask keeps queries' prefixes; with
        // N_Q = 16 <= N_KV = 64 the kept area is 16²/2 of 16·64.
        let perf = sdpa(2, 4, 16, 64, 32, "True", Semantics::Corrected).unwrap();
        let full = 2.0 * 4.0 * 2.0 * 16.0 * 64.0 * 32.0 * 2.0;
        assert_eq!(perf.flops, full * (16.0 * 16.0 / 2.0) / (16.0 * 64.0));
        // And the other way round: N_Q = 64 > N_KV = 16 keeps 16²/2 + 48·16.
        let perf = sdpa(2, 4, 64, 16, 32, "True", Semantics::Corrected).unwrap();
        assert_eq!(
            perf.flops,
            full * (16.0 * 16.0 / 2.0 + 48.0 * 16.0) / (16.0 * 64.0)
        );
        // flash-attention aligns bottom-right: N_Q = 16 queries see the first 48 keys fully.
        assert_eq!(
            causal_fraction(16.0, 64.0, CausalAlign::BottomRight),
            (16.0 * 48.0 + 16.0 * 16.0 / 2.0) / (16.0 * 64.0)
        );
    }

    #[test]
    fn corrected_forward_bytes_use_the_dtype() {
        let run_fp32 = |semantics| {
            run_with(
                "aten::_scaled_dot_product_efficient_attention",
                "[[1, 2, 8, 16], [1, 2, 8, 16], [1, 2, 8, 16], [], [], [], [], []]",
                r#"["float", "float", "float", "", "Scalar", "Scalar", "Scalar", "Scalar"]"#,
                None,
                r#"["", "", "", "", "True", "0.", "False", ""]"#,
                &[],
                semantics,
            )
            .unwrap()
        };
        let elems = 4.0 * 8.0 * 2.0 * 16.0;
        assert_eq!(run_fp32(Semantics::TraceLens).bytes, Some(elems * 2.0));
        assert_eq!(run_fp32(Semantics::Corrected).bytes, Some(elems * 4.0));
        assert_eq!(
            run_fp32(Semantics::TraceLens).param("flash_impl"),
            Some(&ParamValue::Bool(false))
        );
    }

    #[test]
    fn gqa_backward_adds_head_reductions() {
        // flash_attn::_flash_attn_forward, BNHD: q (B=2, N=32, H=8, d=16), k/v with 2 heads.
        let perf = run(
            "flash_attn::_flash_attn_forward",
            "[[2, 32, 8, 16], [2, 32, 2, 16], [2, 32, 2, 16], [], [], []]",
            r#"["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar", "Scalar"]"#,
            Some("[[4096, 128, 16, 1], [1024, 32, 16, 1], [1024, 32, 16, 1], [], [], []]"),
            r#"["", "", "", "0.0", "0.25", "False"]"#,
            &[],
        )
        .unwrap();
        let gemm = 2.0 * 8.0 * 2.0 * 32.0 * 32.0 * 16.0;
        assert_eq!(perf.flops, 2.0 * gemm);
        let reduce = 2.0 * 32.0 * 16.0 * (8.0 / 2.0 - 1.0);
        assert_eq!(perf.flops_bwd(), Some(5.0 * gemm + 2.0 * reduce));
        let keys: Vec<&str> = perf.params.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "B",
                "N_Q",
                "H_Q",
                "N_KV",
                "H_KV",
                "d_h_qk",
                "d_h_v",
                "q_stride",
                "k_stride",
                "v_stride",
                "dropout",
                "causal",
                "flash_impl",
                "dtype_A_B"
            ]
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_fp16"));
    }

    #[test]
    fn mismatched_kv_is_invalid() {
        let err = run(
            "aten::_scaled_dot_product_flash_attention",
            "[[1, 2, 8, 16], [1, 2, 8, 16], [1, 3, 8, 16], [], [], [], []]",
            SDPA_TYPES,
            None,
            r#"["", "", "", "0.", "False", "False", ""]"#,
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Invalid(_)), "{err}");
    }

    #[test]
    fn python_floor_division() {
        assert_eq!(floordiv(7.0, 2.0).unwrap(), 3.0);
        assert_eq!(floordiv(-7.0, 2.0).unwrap(), -4.0);
        assert_eq!(floordiv(7.5, 2.0).unwrap(), 3.0);
        assert!(floordiv(1.0, 0.0).is_err());
    }
}
