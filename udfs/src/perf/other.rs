//! The small built-in models of spec §7.11: MoE token dispatch/combine, Mamba's
//! causal conv1d, TransformerEngine's fused RoPE and the fused cross-entropy.
//! Both semantics agree here.
//!
//! * `MoEDispatch`/`MoECombine`: `flops = 0`, `bytes = tokens·hidden·bpe(types[0])`;
//!   keys `num_tokens, hidden_dim, bpe`; no Compute Spec; the backward equals the
//!   forward.
//! * `DaoAILab::_causal_conv1d_fwd_cpp`: `flops = 2·B·C·L·k`,
//!   `bytes = (2·B·C·L + C·k + (C if bias))·bpe` (bpe 2 when unknown); keys
//!   `batch, channels, seq_len, kernel_size, has_bias`; `matrix`.
//! * `FusedRoPEFunc`: `flops = 3·n`, `bytes = 2·n·bpe`; keys `seq_len, batch,
//!   heads, head_dim, num_elements`; `vector`.
//! * `CrossEntropyFunction`: `flops = 5·batch·vocab`,
//!   `bytes = prod(logits)·bpe + 8·batch + 4·batch`; keys `batch, vocab_size,
//!   logits_shape` (a list); `vector`.
//! * The last three have no backward method (`Invalid`).

use serde_json::Value;

use super::args::{int_list, prod, OpArgs};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, Metrics, ModelError, Perf, Semantics};

/// The first input dtype when `Input type` is non-empty.
fn first_dtype<'a>(op: &'a OpArgs) -> Option<&'a str> {
    op.types_opt()?.first()?.as_str()
}

/// bpe of the first input, 2 when it is missing or unknown.
fn bpe_or_two(op: &OpArgs) -> i128 {
    let dtype = match op.types_opt() {
        Some(types) if !types.is_empty() => first_dtype(op),
        _ => Some("c10::BFloat16"),
    };
    dtype
        .filter(|d| !d.is_empty())
        .and_then(dtype::bpe)
        .unwrap_or(2) as i128
}

fn dim(shape: &[i64], i: usize) -> Result<i64, ModelError> {
    shape
        .get(i)
        .copied()
        .ok_or_else(|| ModelError::Invalid(format!("shape {shape:?} has no dimension {i}")))
}

/// `MoEDispatch`/`MoECombine`: pure communication of `num_tokens × hidden_dim`.
pub fn moe_comm(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let tokens = op
        .dims_opt()
        .and_then(|d| d.first())
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let int = |v: &Value| v.as_i64().and_then(super::args::in_range);
    let num_tokens = tokens.first().and_then(int);
    let hidden_dim = tokens.get(1).and_then(int);
    let bpe = first_dtype(op)
        .filter(|d| !d.is_empty())
        .and_then(dtype::bpe);
    let bytes = match (num_tokens, hidden_dim, bpe) {
        (Some(t), Some(h), Some(b)) => Some((t as i128 * h as i128 * b as i128) as f64),
        _ => None,
    };
    let params = vec![
        param("num_tokens", num_tokens),
        param("hidden_dim", hidden_dim),
        param("bpe", bpe),
    ];
    Ok(Perf::new(0.0, bytes, params).with_backward(Ok(Metrics { flops: 0.0, bytes })))
}

/// `DaoAILab::_causal_conv1d_fwd_cpp(x (B, C, L), weight (C, k), bias (C,), ...)`.
pub fn causal_conv1d_fwd(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (x, w) = (op.shape(0)?, op.shape(1)?);
    let (b, c, l, k) = (dim(&x, 0)?, dim(&x, 1)?, dim(&x, 2)?, dim(&w, 1)?);
    let has_bias = op.dims()?.len() > 2 && op.has_tensor(2);
    let bpe = bpe_or_two(op);
    let (b_, c_, l_, k_) = (b as i128, c as i128, l as i128, k as i128);
    let flops = 2 * b_ * c_ * l_ * k_;
    let bytes = b_ * c_ * l_ * bpe
        + c_ * k_ * bpe
        + b_ * c_ * l_ * bpe
        + if has_bias { c_ * bpe } else { 0 };
    let params = vec![
        param("batch", b),
        param("channels", c),
        param("seq_len", l),
        param("kernel_size", k),
        param("has_bias", has_bias),
    ];
    Ok(Perf::new(flops as f64, Some(bytes as f64), params)
        .with_compute_spec(compute_spec(Maf::Matrix, first_dtype(op))))
}

/// `FusedRoPEFunc(t (seq_len, batch, heads, head_dim), freqs, ...)`.
pub fn fused_rope_fwd(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let t = op.shape(0)?;
    let n = prod(&t);
    let params = vec![
        param("seq_len", dim(&t, 0)?),
        param("batch", dim(&t, 1)?),
        param("heads", dim(&t, 2)?),
        param("head_dim", dim(&t, 3)?),
        param("num_elements", n as i64),
    ];
    Ok(Perf::new(
        (3 * n) as f64,
        Some((2 * n * bpe_or_two(op)) as f64),
        params,
    )
    .with_compute_spec(compute_spec(Maf::Vector, first_dtype(op))))
}

/// `CrossEntropyFunction(logits (batch, …, vocab), targets, ...)`: targets are
/// 8-byte ints and the loss 4-byte floats.
pub fn cross_entropy_fwd(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let entry = op.dim_entry(0)?;
    let logits = int_list(entry).ok_or_else(|| {
        ModelError::Invalid(format!("logits shape is not a list of ints: {entry}"))
    })?;
    let logits = super::args::checked_shape(logits, "logits shape")?;
    let batch = dim(&logits, 0)?;
    let vocab = *logits
        .last()
        .ok_or_else(|| ModelError::Invalid("empty logits shape".into()))?;
    let b = batch as i128;
    let bytes = prod(&logits) * bpe_or_two(op) + b * 8 + b * 4;
    let params = vec![
        param("batch", batch),
        param("vocab_size", vocab),
        (
            "logits_shape".into(),
            ParamValue::List(logits.iter().map(|&d| d.into()).collect()),
        ),
    ];
    Ok(
        Perf::new((5 * b * vocab as i128) as f64, Some(bytes as f64), params)
            .with_compute_spec(compute_spec(Maf::Vector, first_dtype(op))),
    )
}

#[cfg(test)]
mod tests {
    use crate::perf::tests::run;
    use crate::perf::Direction;

    #[test]
    fn moe_dispatch_moves_tokens() {
        let perf = run(
            "MoEDispatch",
            "[[4096, 7168], []]",
            r#"["c10::BFloat16", ""]"#,
            None,
            "[]",
            &[],
        )
        .unwrap();
        assert_eq!(perf.flops, 0.0);
        assert_eq!(perf.bytes, Some(4096.0 * 7168.0 * 2.0));
        assert_eq!(perf.compute_spec, None);
        assert_eq!(
            perf.params_repr(),
            "{'num_tokens': 4096, 'hidden_dim': 7168, 'bpe': 2}"
        );
        assert_eq!(perf.metrics(Direction::Bwd).unwrap().bytes, perf.bytes);
    }

    #[test]
    fn causal_conv1d() {
        let perf = run(
            "DaoAILab::_causal_conv1d_fwd_cpp",
            "[[2, 64, 128], [64, 4], [64], []]",
            r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", ""]"#,
            None,
            "[]",
            &[],
        )
        .unwrap();
        assert_eq!(perf.flops, 2.0 * 2.0 * 64.0 * 128.0 * 4.0);
        assert_eq!(
            perf.bytes,
            Some((2.0 * 2.0 * 64.0 * 128.0 + 64.0 * 4.0 + 64.0) * 2.0)
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_bf16"));
    }
}
