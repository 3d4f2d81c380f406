//! TritonCompiled model (spec §7.9): kernels that torch.compile launches as cpu_ops
//! named `triton_{poi,red,per}_fused_<ops>_<n>`.
//!
//! * `can_model`: `Concrete Inputs`, `Input Dims` and `Input type` non-empty and at
//!   least one concrete input parsing as an int; otherwise [`ModelError::CannotModel`]
//!   (the reference then treats the op as having no model).
//! * `xnumel`/`rnumel`: the int concrete inputs; reductions (`red`, `per`) with two
//!   or more take the last two, otherwise `xnumel` is the last and `rnumel = 1`.
//! * Fused ops: `<ops>` split on `_` and segmented into ATen op names
//!   ([`segment_fused_ops`]), printed `aten.x, aten.y`.
//! * `flops = Σ FLOPS_PER_ELEM[op] · xnumel · rnumel` ([`flops_per_element`]);
//! * `bytes = Σ prod(dims)·C10_BPE[type]` over tensor arguments (type not
//!   `Scalar`, dims non-empty), plus `bpe(first tensor)·xnumel` for pointwise
//!   kernels (the output). `C10_BPE` only knows `c10::` names, so plain `float`
//!   counts 0 bytes.
//! * Keys `fused_ops, xnumel, rnumel`; Compute Spec `vector_<suffix after :: of the
//!   first tensor dtype, lower-cased>` (`vector_bfloat16`, which no arch table
//!   knows); no backward (`NotImplemented`).
//!
//! Quirk switches ([`Fix::TritonDtypes`], `Corrected` only): dtypes outside `C10_BPE` (`float`, `long int`)
//! use the general size table instead of 0 bytes, and the precision goes through
//! the general precision table (`vector_bf16`).
//!
//! Exact parity of `fused_ops` needs the reference's vendored op-name list
//! (`_known_aten_ops.py`, generated from a PyTorch build). [`KNOWN_OPS`] is our
//! own list of the ATen ops Inductor commonly fuses; a name it cannot segment
//! falls back to single `_`-separated tokens for the unknown parts.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::args::{int_list, prod, py_int, OpArgs};
use super::dtype::{self, Maf};
use super::{param, Fix, ModelError, Perf, Semantics};

/// ATen op names (without the `aten.` prefix) that may appear in an Inductor
/// kernel name. Our own list; see the module doc.
pub static KNOWN_OPS: &[&str] = &[
    // arithmetic
    "abs",
    "add",
    "addcdiv",
    "addcmul",
    "atan2",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "cos",
    "cosh",
    "div",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floor_divide",
    "fmod",
    "frac",
    "lerp",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "maximum",
    "minimum",
    "mul",
    "neg",
    "pow",
    "reciprocal",
    "remainder",
    "round",
    "rsqrt",
    "rsub",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "sub",
    "tan",
    "trunc",
    "true_divide",
    "xlogy",
    "nan_to_num",
    "where",
    "hypot",
    "copysign",
    "fma",
    "sgn",
    "signbit",
    // comparisons and logic
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "eq",
    "ge",
    "gt",
    "isinf",
    "isnan",
    "isfinite",
    "le",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "ne",
    // activations and their backwards
    "elu",
    "elu_backward",
    "gelu",
    "gelu_backward",
    "glu",
    "glu_backward",
    "hardsigmoid",
    "hardsigmoid_backward",
    "hardswish",
    "hardswish_backward",
    "hardtanh",
    "hardtanh_backward",
    "leaky_relu",
    "leaky_relu_backward",
    "log_sigmoid_forward",
    "log_sigmoid_backward",
    "logit",
    "mish",
    "mish_backward",
    "prelu",
    "relu",
    "relu6",
    "sigmoid",
    "sigmoid_backward",
    "silu",
    "silu_backward",
    "softplus",
    "softplus_backward",
    "tanh",
    "tanh_backward",
    "threshold",
    "threshold_backward",
    "celu",
    "selu",
    "softshrink",
    "hardshrink",
    // reductions and scans
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "logcumsumexp",
    "logsumexp",
    "max",
    "mean",
    "min",
    "nansum",
    "norm",
    "linalg_vector_norm",
    "prod",
    "std",
    "std_mean",
    "sum",
    "var",
    "var_mean",
    "sort",
    "topk",
    "cummax",
    "cummin",
    // softmax, losses
    "_log_softmax",
    "_log_softmax_backward_data",
    "_softmax",
    "_softmax_backward_data",
    "_safe_softmax",
    "log_softmax",
    "softmax",
    "nll_loss_forward",
    "nll_loss_backward",
    "nll_loss2d_forward",
    "nll_loss2d_backward",
    "mse_loss",
    "mse_loss_backward",
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "binary_cross_entropy_with_logits",
    "smooth_l1_loss",
    "smooth_l1_loss_backward",
    "huber_loss",
    "cross_entropy_loss",
    // normalization
    "native_batch_norm",
    "native_batch_norm_backward",
    "_native_batch_norm_legit",
    "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training",
    "native_group_norm",
    "native_group_norm_backward",
    "native_layer_norm",
    "native_layer_norm_backward",
    "_fused_rms_norm",
    "_fused_rms_norm_backward",
    "batch_norm",
    "layer_norm",
    "group_norm",
    "instance_norm",
    "rms_norm",
    "_batch_norm_with_update",
    "_batch_norm_no_update",
    "batch_norm_backward",
    // dropout and random
    "native_dropout",
    "native_dropout_backward",
    "bernoulli",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "dropout",
    "_fused_dropout",
    "philox_rand",
    // copies, views, layout
    "_to_copy",
    "_unsafe_view",
    "_reshape_alias",
    "alias",
    "as_strided",
    "as_strided_scatter",
    "clone",
    "contiguous",
    "copy",
    "copy_",
    "detach",
    "expand",
    "expand_as",
    "flatten",
    "lift_fresh",
    "lift_fresh_copy",
    "permute",
    "repeat",
    "reshape",
    "select",
    "select_backward",
    "select_scatter",
    "slice",
    "slice_backward",
    "slice_scatter",
    "split",
    "split_with_sizes",
    "squeeze",
    "t",
    "transpose",
    "unbind",
    "unfold",
    "unsqueeze",
    "view",
    "view_as_complex",
    "view_as_real",
    "diagonal",
    "diagonal_scatter",
    "narrow",
    "movedim",
    "roll",
    "flip",
    "tril",
    "triu",
    // creation
    "arange",
    "empty",
    "empty_like",
    "fill",
    "fill_",
    "full",
    "full_like",
    "iota",
    "new_empty",
    "new_full",
    "new_ones",
    "new_zeros",
    "ones",
    "ones_like",
    "scalar_tensor",
    "zeros",
    "zeros_like",
    "linspace",
    // indexing, gather/scatter
    "_unsafe_index",
    "_unsafe_index_put",
    "_unsafe_masked_index",
    "embedding",
    "embedding_dense_backward",
    "gather",
    "index",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "take",
    // joining and padding
    "cat",
    "stack",
    "constant_pad_nd",
    "reflection_pad1d",
    "reflection_pad2d",
    "reflection_pad3d",
    "replication_pad1d",
    "replication_pad2d",
    "replication_pad3d",
    "reflection_pad2d_backward",
    "replication_pad2d_backward",
    // pooling and resampling
    "_adaptive_avg_pool2d",
    "_adaptive_avg_pool2d_backward",
    "_adaptive_avg_pool3d",
    "adaptive_max_pool2d",
    "avg_pool2d",
    "avg_pool2d_backward",
    "avg_pool3d",
    "max_pool2d_with_indices",
    "max_pool2d_with_indices_backward",
    "max_pool3d_with_indices",
    "upsample_bilinear2d",
    "upsample_bilinear2d_backward",
    "upsample_nearest1d",
    "upsample_nearest2d",
    "upsample_nearest2d_backward",
    "upsample_nearest3d",
    "upsample_bicubic2d",
    "_upsample_bilinear2d_aa",
    "_upsample_nearest_exact2d",
    "grid_sampler_2d",
    "pixel_shuffle",
    "pixel_unshuffle",
    "col2im",
    "im2col",
    // matmul, conv, attention (epilogues fused by Inductor)
    "addmm",
    "bmm",
    "baddbmm",
    "mm",
    "convolution",
    "convolution_backward",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention",
    "_scaled_mm",
];

static KNOWN: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| KNOWN_OPS.iter().copied().collect());

/// FLOPs per element of a fused op (`aten.add` → 1); ops without arithmetic (and
/// unknown ones) count 0.
pub fn flops_per_element(op: &str) -> u32 {
    match op.strip_prefix("aten.").unwrap_or(op) {
        "add" | "sub" | "mul" | "div" | "abs" | "neg" | "relu" | "mean" | "sum" | "ne" | "eq"
        | "lt" | "gt" => 1,
        "pow" | "sqrt" | "rsqrt" | "var" | "reciprocal" => 2,
        "exp" | "log" | "sigmoid" | "tanh" | "silu" => 4,
        "gelu" => 8,
        _ => 0,
    }
}

/// The parts of `triton_<kind>_fused_<ops>_<n>`: `(kind, ops)`.
fn split_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("triton_")?;
    let (kind, rest) = rest.split_once('_')?;
    if !matches!(kind, "poi" | "red" | "per") {
        return None;
    }
    let rest = rest.strip_prefix("fused_")?;
    let (ops, number) = rest.rsplit_once('_')?;
    (!ops.is_empty() && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then_some((kind, ops))
}

/// Splits Inductor's `_`-joined op list into ATen op names: the segmentation into
/// known names that uses the fewest unknown single tokens, preferring at each step
/// the longest known name (`_unsafe_view_mul_silu` → `_unsafe_view`, `mul`, `silu`).
pub fn segment_fused_ops(ops: &str) -> Vec<String> {
    let tokens: Vec<&str> = ops.split('_').collect();
    let n = tokens.len();
    // cost[i]: fewest unknown tokens to segment tokens[i..]; next[i]: where the
    // chosen segment starting at i ends.
    let mut cost = vec![usize::MAX; n + 1];
    let mut next = vec![0; n + 1];
    cost[n] = 0;
    for i in (0..n).rev() {
        for j in (i + 1..=n).rev() {
            let known = KNOWN.contains(tokens[i..j].join("_").as_str());
            let step = match (known, j - i) {
                (true, _) => 0,
                (false, 1) => 1,
                (false, _) => continue,
            };
            let total = cost[j].saturating_add(step);
            if total < cost[i] {
                cost[i] = total;
                next[i] = j;
            }
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let j = next[i];
        let name = tokens[i..j].join("_");
        if !name.is_empty() {
            out.push(format!("aten.{name}"));
        }
        i = j;
    }
    out
}

/// `C10_BPE`: sizes of the `c10::` dtype names the reference knows.
fn c10_bpe(dtype: &str) -> Option<i64> {
    match dtype {
        "c10::BFloat16" | "c10::Half" => Some(2),
        "c10::Float" | "c10::Int" => Some(4),
        "c10::Double" | "c10::Long" => Some(8),
        "c10::Byte" | "c10::Char" => Some(1),
        _ => None,
    }
}

/// `triton_{poi,red,per}_fused_…` (see the module doc).
pub fn triton_compiled(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let concrete = op.concrete_opt().unwrap_or_default();
    let dims = op.dims_opt().unwrap_or_default();
    let types = op.types_opt().unwrap_or_default();
    let scalars: Vec<i64> = concrete
        .iter()
        .filter_map(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .filter_map(py_int)
        .collect();
    if concrete.is_empty() || dims.is_empty() || types.is_empty() || scalars.is_empty() {
        return Err(ModelError::CannotModel(format!(
            "{} has no usable Concrete Inputs / Input Dims / Input type",
            op.name
        )));
    }
    let (kind, fused) = split_name(op.name).map_or(("", Vec::new()), |(kind, ops)| {
        (kind, segment_fused_ops(ops))
    });
    let reduction = op.name.starts_with("triton_red_") || op.name.starts_with("triton_per_");
    let (xnumel, rnumel) = match scalars.as_slice() {
        [.., x, r] if reduction => (*x, *r),
        [.., x] => (*x, 1),
        [] => unreachable!("checked above"),
    };
    let per_element: u32 = fused.iter().map(|op| flops_per_element(op)).sum();
    let flops = per_element as f64 * xnumel as f64 * rnumel as f64;

    let general_sizes = semantics.fixes(Fix::TritonDtypes);
    let size = |dtype: &str| match c10_bpe(dtype) {
        Some(b) => b,
        None if general_sizes => dtype::bpe(dtype).unwrap_or(0),
        None => 0,
    };
    let mut bytes: i128 = 0;
    let mut first_pointer: Option<&str> = None;
    // The precision comes from the first pointer of a known size: inputs that
    // are all plain `int` / `bool` (size 0 in the reference's table) leave the
    // Compute Spec empty, as TraceLens does.
    let mut first_sized: Option<&str> = None;
    for (shape, dtype) in dims.iter().zip(types) {
        let Some(dtype) = dtype.as_str() else {
            continue;
        };
        let is_tensor = shape.as_array().is_some_and(|a| !a.is_empty());
        if dtype == "Scalar" || !is_tensor {
            continue;
        }
        let shape = int_list(shape).ok_or_else(|| {
            ModelError::Invalid(format!("tensor shape is not a list of ints: {shape}"))
        })?;
        let shape = super::args::checked_shape(shape, "tensor shape")?;
        bytes += prod(&shape) * size(dtype) as i128;
        first_pointer.get_or_insert(dtype);
        if size(dtype) > 0 {
            first_sized.get_or_insert(dtype);
        }
    }
    if kind == "poi" {
        if let Some(first) = first_pointer {
            bytes += size(first) as i128 * xnumel as i128;
        }
    }
    let precision = first_sized.and_then(|d| {
        if semantics.fixes(Fix::TritonDtypes) {
            dtype::precision(d).map(str::to_string)
        } else {
            Some(d.rsplit("::").next().unwrap_or(d).to_lowercase())
        }
    });
    let params = vec![
        param("fused_ops", fused.join(", ")),
        param("xnumel", xnumel),
        param("rnumel", rnumel),
    ];
    Ok(Perf::new(flops, Some(bytes as f64), params)
        .with_backward(Err(ModelError::NotImplemented(
            "Triton kernels have no backward model".into(),
        )))
        .with_compute_spec(precision.map(|p| format!("{}_{p}", Maf::Vector.as_str()))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};

    #[test]
    fn segmentation_prefers_longest_known_names() {
        assert_eq!(
            segment_fused_ops("_unsafe_view_add_mean_mul_pow_rsqrt"),
            [
                "aten._unsafe_view",
                "aten.add",
                "aten.mean",
                "aten.mul",
                "aten.pow",
                "aten.rsqrt"
            ]
        );
        assert_eq!(
            segment_fused_ops("native_layer_norm_native_layer_norm_backward"),
            ["aten.native_layer_norm", "aten.native_layer_norm_backward"]
        );
        assert_eq!(segment_fused_ops("copy__add"), ["aten.copy_", "aten.add"]);
        assert_eq!(
            segment_fused_ops("add_frobnicate_mul"),
            ["aten.add", "aten.frobnicate", "aten.mul"]
        );
    }

    #[test]
    fn pointwise_kernel() {
        let perf = run(
            "triton_poi_fused__unsafe_view_mul_silu_2",
            "[[8, 4096, 8192], [32768, 8192], []]",
            r#"["c10::BFloat16", "c10::BFloat16", "Scalar"]"#,
            None,
            r#"["", "", "268435456"]"#,
            &[],
        )
        .unwrap();
        let n = 268_435_456.0;
        // _unsafe_view 0 + mul 1 + silu 4 FLOPs per element.
        assert_eq!(perf.flops, 5.0 * n);
        // Two tensors of n bf16 elements read, plus the output (first pointer's size).
        assert_eq!(perf.bytes, Some(2.0 * n * 2.0 + 2.0 * n));
        assert_eq!(perf.bytes.unwrap() / 1048576.0, 1536.0);
        assert_eq!(
            perf.params_repr(),
            "{'fused_ops': 'aten._unsafe_view, aten.mul, aten.silu', 'xnumel': 268435456, 'rnumel': 1}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("vector_bfloat16"));
        assert_eq!(perf.model_class, TRITON_CLASS_NAME);
    }

    const TRITON_CLASS_NAME: &str = crate::perf::TRITON_CLASS;

    #[test]
    fn reduction_kernel() {
        let args = (
            "[[8, 4096, 2048], [2048], [8, 4096, 2048], [], []]",
            r#"["c10::BFloat16", "c10::BFloat16", "float", "Scalar", "Scalar"]"#,
            r#"["", "", "", "32768", "2048"]"#,
        );
        let name = "triton_red_fused_add_mean_mul_pow_rsqrt_0";
        let perf = run(name, args.0, args.1, None, args.2, &[]).unwrap();
        let (x, r) = (32768.0, 2048.0);
        assert_eq!(perf.flops, 7.0 * x * r);
        // The plain `float` tensor counts 0 bytes in the reference; no output term.
        let big = 8.0 * 4096.0 * 2048.0;
        assert_eq!(perf.bytes, Some(big * 2.0 + 2048.0 * 2.0));
        let corrected = run_with(
            name,
            args.0,
            args.1,
            None,
            args.2,
            &[],
            Semantics::Corrected,
        )
        .unwrap();
        assert_eq!(corrected.bytes, Some(big * 2.0 + 2048.0 * 2.0 + big * 4.0));
        assert_eq!(corrected.compute_spec.as_deref(), Some("vector_bf16"));
    }

    /// Precision is the first pointer of a known size: `int` / `bool` tensors
    /// (size 0 in the reference's table) are skipped, and a kernel with only such
    /// inputs has no Compute Spec (TraceLens leaves the cell empty).
    #[test]
    fn compute_spec_skips_pointers_of_unknown_size() {
        let mixed = run(
            "triton_poi_fused_add_0",
            "[[64], [64], []]",
            r#"["int", "c10::Half", "Scalar"]"#,
            None,
            r#"["", "", "64"]"#,
            &[],
        )
        .unwrap();
        assert_eq!(mixed.compute_spec.as_deref(), Some("vector_half"));
        // The pointwise output term still takes the first pointer's size (0).
        assert_eq!(mixed.bytes, Some(64.0 * 2.0));
        let ints = run(
            "triton_poi_fused_eq_1",
            "[[64], [64], []]",
            r#"["int", "bool", "Scalar"]"#,
            None,
            r#"["", "", "64"]"#,
            &[],
        )
        .unwrap();
        assert_eq!(ints.compute_spec, None);
        assert_eq!(ints.bytes, Some(0.0));
    }

    #[test]
    fn without_args_it_cannot_model() {
        let err = run(
            "triton_poi_fused_add_0",
            "[[4]]",
            r#"["float"]"#,
            None,
            r#"[""]"#,
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::CannotModel(_)), "{err}");
    }
}
