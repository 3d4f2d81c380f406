//! Convolution models (spec §7.5): `aten::convolution`, `aten::convolution_backward`
//! and Apex's fused `ConvBias_`/`ConvBiasReLU_` forward.
//!
//! With `x` the input, `w` the filter and `out` the output shape:
//! * `flops = 2·prod(w[1:])·(prod(x) if transposed else prod(out)) + (prod(out) if bias)`
//!   (`w[1]` is the per-group input channel count, so groups need no extra term);
//! * `bytes = (prod(x) + prod(w) + (out[1] if bias) + prod(out))·bpe(dtype[0])`;
//! * backward: data gradient plus weight gradient as convolutions, and the bias
//!   gradient in elements (§7.5), see [`conv_flops_bwd`] and [`conv_bytes_bwd`].
//! * Param keys: `convNd, input_shape, filter_shape, dtype_input_weight,
//!   input_stride, weight_stride, bias, stride, padding, dilation,
//!   transposed_conv, output_padding, groups`.
//! * Mixed input/weight dtypes are `Invalid` (the reference raises) in both
//!   semantics.
//!
//! Quirk switches ([`Fix::ConvBias`], a bug: `BugFixes` and `Corrected`):
//! * `aten::convolution`: the reference's bias test is `len(Input Dims) == 3`, but
//!   the op always records 9 inputs, so bias is never counted (§11 item 8).
//!   Corrected: bias is counted when input 2 is a tensor.
//! * `aten::convolution_backward`: the reference's bias is `Input Dims[3]`, which
//!   is always `[]` (printed `[]`, counted as false). Corrected: bias (a bool) when
//!   `bias_sizes` (`Concrete Inputs[3]`) is a non-empty list, or input 3 is a
//!   tensor, and `output_mask[2]` (`Concrete Inputs[10]`) asks for its gradient.

use super::args::{
    eval_flag, int_arg, json_to_param, parse_bool_list, parse_py_literal, prod, str_to_int_tuple,
    OpArgs,
};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, Fix, Metrics, ModelError, Perf, Semantics};

/// `2·prod(w[1:])·(prod(x) if transposed else prod(out)) + (prod(out) if bias)`.
pub fn conv_flops(x: &[i64], w: &[i64], out: &[i64], bias: bool, transposed: bool) -> i128 {
    let per_element = 2 * prod(w.get(1..).unwrap_or(&[]));
    let conv = per_element * if transposed { prod(x) } else { prod(out) };
    conv + if bias { prod(out) } else { 0 }
}

/// `(prod(x) + prod(w) + (out[1] if bias) + prod(out))·bpe`, `None` for an unknown bpe.
pub fn conv_bytes(x: &[i64], w: &[i64], out: &[i64], bias: bool, bpe: Option<i64>) -> Option<i128> {
    let bias_elems = if bias {
        out.get(1).copied().unwrap_or(0) as i128
    } else {
        0
    };
    Some((prod(x) + prod(w) + bias_elems + prod(out)) * bpe? as i128)
}

/// `(s[1], s[0], s[2:]…)`: swaps the batch and channel roles.
fn t(shape: &[i64]) -> Vec<i64> {
    let mut swapped = shape.to_vec();
    if swapped.len() >= 2 {
        swapped.swap(0, 1);
    }
    swapped
}

/// Backward FLOPs: the data gradient (a convolution of `out` with `w`, transposed
/// flag flipped), the weight gradient (a convolution of `t(x)` with `t(out)`, or of
/// `t(out)` with `t(x)` when transposed), and `prod(out)` for the bias gradient.
pub fn conv_flops_bwd(out: &[i64], x: &[i64], w: &[i64], bias: bool, transposed: bool) -> i128 {
    let input_grad = conv_flops(out, w, x, false, !transposed);
    let weight_grad = if transposed {
        conv_flops(&t(out), &t(x), &t(w), false, false)
    } else {
        conv_flops(&t(x), &t(out), &t(w), false, false)
    };
    input_grad + weight_grad + if bias { prod(out) } else { 0 }
}

/// Backward bytes: `bytes(out, w, x) + bytes(out, x, w)` without bias, plus
/// `prod(out) + out[1]` *elements* (not bytes) for the bias gradient, as in the
/// reference.
pub fn conv_bytes_bwd(
    x: &[i64],
    w: &[i64],
    out: &[i64],
    bias: bool,
    bpe: Option<i64>,
) -> Option<i128> {
    let input_grad = conv_bytes(out, w, x, false, bpe)?;
    let weight_grad = conv_bytes(out, x, w, false, bpe)?;
    let bias_grad = if bias {
        prod(out) + out.get(1).copied().unwrap_or(0) as i128
    } else {
        0
    };
    Some(input_grad + weight_grad + bias_grad)
}

/// One convolution's parameters, as the reference's `param_details`.
struct Conv {
    x: Vec<i64>,
    w: Vec<i64>,
    dtypes: [String; 2],
    input_stride: ParamValue,
    weight_stride: ParamValue,
    bias: ParamValue,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    transposed: ParamValue,
    output_padding: Vec<i64>,
    groups: i64,
}

impl Conv {
    fn conv_nd(&self) -> Result<&'static str, ModelError> {
        match self.x.len() {
            3 => Ok("conv1d"),
            4 => Ok("conv2d"),
            5 => Ok("conv3d"),
            rank => Err(ModelError::Invalid(format!(
                "unknown convolution dimension: input rank {rank}"
            ))),
        }
    }

    fn check_dtypes(&self) -> Result<(), ModelError> {
        if self.dtypes[0] != self.dtypes[1] {
            return Err(ModelError::Invalid(format!(
                "data types of input and weight are different: {:?}",
                self.dtypes
            )));
        }
        Ok(())
    }

    /// `(N, filter[0] (filter[1] if transposed), spatial…)`.
    fn out_shape(&self) -> Result<Vec<i64>, ModelError> {
        let missing = |what: &str| ModelError::Invalid(format!("convolution: {what} is too short"));
        let transposed = self.transposed.truthy();
        let n = *self.x.first().ok_or_else(|| missing("input shape"))?;
        let filters = *self
            .w
            .get(if transposed { 1 } else { 0 })
            .ok_or_else(|| missing("filter shape"))?;
        let mut out = vec![n, filters];
        for i in 0..self.x.len().saturating_sub(2) {
            let get = |v: &[i64], what: &str| v.get(i).copied().ok_or_else(|| missing(what));
            let input = self.x[i + 2];
            let kernel = *self.w.get(i + 2).ok_or_else(|| missing("filter shape"))?;
            let (s, p, d) = (
                get(&self.stride, "stride")?,
                get(&self.padding, "padding")?,
                get(&self.dilation, "dilation")?,
            );
            // In i128: every int is within ±2^40 (`args::MAX_INT`), so no term
            // overflows; a dimension out of that range is no tensor's.
            let (input, kernel) = (i128::from(input), i128::from(kernel));
            let (s, p, d) = (i128::from(s), i128::from(p), i128::from(d));
            let dim = if transposed {
                let op = i128::from(get(&self.output_padding, "output_padding")?);
                (input - 1) * s - 2 * p + d * (kernel - 1) + op + 1
            } else {
                if s == 0 {
                    return Err(ModelError::Invalid("convolution stride 0".into()));
                }
                // Python: int(((in + 2p - d(k-1) - 1) / s) + 1), true division.
                let numerator = (input + 2 * p - d * (kernel - 1) - 1) as f64;
                ((numerator / s as f64) + 1.0).trunc() as i128
            };
            let dim = i64::try_from(dim)
                .ok()
                .and_then(super::args::in_range)
                .ok_or_else(|| ModelError::Invalid(format!("convolution output size {dim}")))?;
            out.push(dim);
        }
        super::args::checked_shape(out, "convolution output")
    }

    fn params(&self) -> Result<Vec<(String, ParamValue)>, ModelError> {
        Ok(vec![
            param("convNd", self.conv_nd()?),
            ("input_shape".into(), ParamValue::int_tuple(&self.x)),
            ("filter_shape".into(), ParamValue::int_tuple(&self.w)),
            (
                "dtype_input_weight".into(),
                ParamValue::Tuple(self.dtypes.iter().map(|d| d.as_str().into()).collect()),
            ),
            ("input_stride".into(), self.input_stride.clone()),
            ("weight_stride".into(), self.weight_stride.clone()),
            ("bias".into(), self.bias.clone()),
            ("stride".into(), ParamValue::int_tuple(&self.stride)),
            ("padding".into(), ParamValue::int_tuple(&self.padding)),
            ("dilation".into(), ParamValue::int_tuple(&self.dilation)),
            ("transposed_conv".into(), self.transposed.clone()),
            (
                "output_padding".into(),
                ParamValue::int_tuple(&self.output_padding),
            ),
            param("groups", self.groups),
        ])
    }

    /// Forward and backward metrics; `as_backward` makes the backward metrics the
    /// op's own (`aten::convolution_backward`).
    fn perf(&self, as_backward: bool) -> Result<Perf, ModelError> {
        self.check_dtypes()?;
        let params = self.params()?;
        let out = self.out_shape()?;
        let (bias, transposed) = (self.bias.truthy(), self.transposed.truthy());
        let bpe = dtype::bpe(&self.dtypes[0]);
        let fwd = Metrics {
            flops: conv_flops(&self.x, &self.w, &out, bias, transposed) as f64,
            bytes: conv_bytes(&self.x, &self.w, &out, bias, bpe).map(|b| b as f64),
        };
        let bwd = Metrics {
            flops: conv_flops_bwd(&out, &self.x, &self.w, bias, transposed) as f64,
            bytes: conv_bytes_bwd(&self.x, &self.w, &out, bias, bpe).map(|b| b as f64),
        };
        let own = if as_backward { bwd } else { fwd };
        Ok(Perf::new(own.flops, own.bytes, params)
            .with_backward(Ok(bwd))
            .with_compute_spec(compute_spec(Maf::Matrix, Some(&self.dtypes[0]))))
    }
}

/// Parses a `[a, b]` size argument; `""` gives `default` repeated; a 1-tuple is
/// broadcast to the spatial rank.
fn size_arg(
    op: &OpArgs,
    i: usize,
    default: i64,
    ndims: usize,
    what: &str,
) -> Result<Vec<i64>, ModelError> {
    let text = op.ci(i)?;
    let values = if text.is_empty() {
        vec![default; ndims]
    } else {
        str_to_int_tuple(text, what)?
    };
    Ok(broadcast(values, ndims))
}

fn broadcast(values: Vec<i64>, ndims: usize) -> Vec<i64> {
    if values.len() == 1 {
        vec![values[0]; ndims]
    } else {
        values
    }
}

/// The shared argument layout of `convolution` (`first = 0`) and
/// `convolution_backward` (`first = 1`, after `grad_output`).
fn parse_conv(
    op: &OpArgs,
    first: usize,
    ci_first: usize,
    bias: ParamValue,
) -> Result<Conv, ModelError> {
    let x = op.shape(first)?;
    let ndims = x.len().saturating_sub(2);
    let w = op.shape(first + 1)?;
    let stride = size_arg(op, ci_first, 1, ndims, "stride")?;
    let padding = size_arg(op, ci_first + 1, 0, ndims, "padding")?;
    let dilation = size_arg(op, ci_first + 2, 1, ndims, "dilation")?;
    let transposed = eval_flag(op.ci(ci_first + 3)?, "transposed")?;
    let output_padding = size_arg(op, ci_first + 4, 0, ndims, "output_padding")?;
    let groups = int_arg(op.ci(ci_first + 5)?, "groups")?;
    let conv = Conv {
        x,
        w,
        dtypes: [
            op.dtype(first)?.to_string(),
            op.dtype(first + 1)?.to_string(),
        ],
        input_stride: op.stride_or_none(first)?,
        weight_stride: op.stride_or_none(first + 1)?,
        bias,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    };
    conv.check_dtypes()?;
    Ok(conv)
}

/// `aten::convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups)`.
pub fn aten_conv(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let bias = if semantics.fixes(Fix::ConvBias) {
        op.has_tensor(2)
    } else {
        op.dims()?.len() == 3
    };
    parse_conv(op, 0, 3, bias.into())?.perf(false)
}

/// `aten::convolution_backward(grad_output, input, weight, bias_sizes, stride,
/// padding, dilation, transposed, output_padding, groups, output_mask)`: its own
/// FLOPs/bytes are the backward ones of the equivalent forward.
pub fn aten_conv_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let dims = op.dims()?;
    let bias = if semantics.fixes(Fix::ConvBias) {
        let sizes_given = op.ci_nonempty(3).and_then(parse_py_literal).is_some_and(
            |v| matches!(v, ParamValue::List(s) | ParamValue::Tuple(s) if !s.is_empty()),
        ) || op.has_tensor(3);
        let grad_wanted = op
            .ci_nonempty(10)
            .and_then(|mask| parse_bool_list(mask, "output_mask").ok())
            .and_then(|mask| mask.get(2).copied())
            .unwrap_or(true);
        ParamValue::Bool(sizes_given && grad_wanted)
    } else if dims.len() <= 3 {
        ParamValue::Bool(false)
    } else {
        // `len(dims) > 3 and dims[3] and len(dims[3]) > 0`: a falsy dims[3] is the value.
        let entry = json_to_param(&dims[3]);
        if entry.truthy() {
            ParamValue::Bool(true)
        } else {
            entry
        }
    };
    parse_conv(op, 1, 4, bias)?.perf(true)
}

/// Apex `ConvBias_`/`ConvBiasReLU_(input, weight, bias, stride, padding)`: bias
/// always, scalar stride and padding broadcast to the spatial rank, no dilation,
/// groups 1. (Their `_Backward` ops need the forward's params, matched by
/// sequence number across events, and are not implemented.)
pub fn conv_bias(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let x = op.shape(0)?;
    let ndims = x.len().saturating_sub(2);
    let w = op.shape(1)?;
    let concrete = op
        .concrete_opt()
        .ok_or_else(|| ModelError::Invalid("the op has no Concrete Inputs".into()))?;
    let scalar = |i: usize, default: i64, what: &str| -> Result<Vec<i64>, ModelError> {
        match concrete.get(i).and_then(|v| v.as_str()) {
            Some(text) if !text.is_empty() => Ok(vec![int_arg(text, what)?; ndims]),
            _ => Ok(vec![default; ndims]),
        }
    };
    let conv = Conv {
        dtypes: [op.dtype(0)?.to_string(), op.dtype(1)?.to_string()],
        input_stride: op.stride_lenient(0),
        weight_stride: op.stride_lenient(1),
        bias: ParamValue::Bool(true),
        stride: scalar(3, 1, "stride")?,
        padding: scalar(4, 0, "padding")?,
        dilation: vec![1; ndims],
        transposed: ParamValue::Bool(false),
        output_padding: vec![0; ndims],
        groups: 1,
        x,
        w,
    };
    conv.perf(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};
    use crate::perf::Direction;

    const CONV_TYPES: &str = r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"]"#;

    /// The Falconsai ViT patch embedding: 16x16 stride-16 conv with a bias tensor.
    fn patch_embed(semantics: Semantics) -> Perf {
        run_with(
            "aten::convolution",
            "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
            CONV_TYPES,
            Some("[[150528, 50176, 224, 1], [768, 256, 16, 1], [1], [], [], [], [], [], []]"),
            r#"["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"]"#,
            &[],
            semantics,
        )
        .unwrap()
    }

    #[test]
    fn patch_embedding_ignores_bias_like_the_reference() {
        let perf = patch_embed(Semantics::TraceLens);
        let out = 4.0 * 768.0 * 14.0 * 14.0;
        let flops = 2.0 * (3.0 * 16.0 * 16.0) * out;
        assert_eq!(flops, 924_844_032.0);
        assert_eq!(perf.flops, flops);
        let bytes = (4.0 * 3.0 * 224.0 * 224.0 + 768.0 * 3.0 * 256.0 + out) * 2.0;
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(bytes / 1048576.0, 3.421875);
        assert_eq!(perf.param("bias"), Some(&ParamValue::Bool(false)));
        assert_eq!(
            perf.params_repr(),
            "{'convNd': 'conv2d', 'input_shape': (4, 3, 224, 224), 'filter_shape': (768, 3, 16, 16), \
             'dtype_input_weight': ('c10::BFloat16', 'c10::BFloat16'), \
             'input_stride': (150528, 50176, 224, 1), 'weight_stride': (768, 256, 16, 1), \
             'bias': False, 'stride': (16, 16), 'padding': (0, 0), 'dilation': (1, 1), \
             'transposed_conv': False, 'output_padding': (0, 0), 'groups': 1}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("matrix_bf16"));
        // The backward of the forward op: data grad + weight grad.
        let x = 4.0 * 3.0 * 224.0 * 224.0;
        let w = 768.0 * 3.0 * 256.0;
        let dx = 2.0 * (3.0 * 16.0 * 16.0) * out;
        let dw = 2.0 * (4.0 * 14.0 * 14.0) * w;
        let bwd = perf.metrics(Direction::Bwd).unwrap();
        assert_eq!(bwd.flops, dx + dw);
        assert_eq!(bwd.bytes, Some(2.0 * (out + w + x) * 2.0));
    }

    #[test]
    fn corrected_counts_the_bias_tensor() {
        let perf = patch_embed(Semantics::Corrected);
        let out = 4.0 * 768.0 * 14.0 * 14.0;
        assert_eq!(perf.flops, 2.0 * (3.0 * 16.0 * 16.0) * out + out);
        let bytes = (4.0 * 3.0 * 224.0 * 224.0 + 768.0 * 3.0 * 256.0 + 768.0 + out) * 2.0;
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(perf.param("bias"), Some(&ParamValue::Bool(true)));
    }

    #[test]
    fn grouped_depthwise_conv() {
        // 3x3 depthwise conv, padding 1, 32 groups: w[1] = 1 input channel per group.
        let perf = run(
            "aten::convolution",
            "[[2, 32, 56, 56], [32, 1, 3, 3], [], [], [], [], [], [], []]",
            r#"["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"]"#,
            None,
            r#"["", "", "", "[1]", "[1]", "[1]", "False", "[0]", "32"]"#,
            &[],
        )
        .unwrap();
        let out = 2.0 * 32.0 * 56.0 * 56.0; // padding 1 keeps 56
        assert_eq!(perf.flops, 2.0 * 9.0 * out);
        let bytes = (2.0 * 32.0 * 56.0 * 56.0 + 32.0 * 9.0 + out) * 4.0;
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(perf.param("groups"), Some(&ParamValue::Int(32)));
        assert_eq!(perf.param("stride").unwrap().repr(), "(1, 1)");
        assert_eq!(perf.param("input_stride"), Some(&ParamValue::None));
    }

    #[test]
    fn transposed_conv_output_shape() {
        let perf = run(
            "aten::convolution",
            "[[1, 8, 5], [8, 4, 3], [], [], [], [], [], [], []]",
            r#"["float", "float", "", "", "", "", "", "", ""]"#,
            None,
            r#"["", "", "", "[2]", "[1]", "[1]", "True", "[1]", "1"]"#,
            &[],
        )
        .unwrap();
        // (5-1)*2 - 2*1 + 1*(3-1) + 1 + 1 = 10, with w[1] = 4 output channels.
        let (x, w, out) = (8.0 * 5.0, 8.0 * 4.0 * 3.0, 4.0 * 10.0);
        assert_eq!(perf.flops, 2.0 * (4.0 * 3.0) * x);
        assert_eq!(perf.bytes, Some((x + w + out) * 4.0));
    }

    #[test]
    fn mixed_dtypes_are_invalid() {
        let err = run(
            "aten::convolution",
            "[[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], []]",
            r#"["c10::BFloat16", "float", "", "", "", "", "", "", ""]"#,
            None,
            r#"["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"]"#,
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Invalid(_)), "{err}");
    }

    #[test]
    fn convolution_backward_bias_quirk() {
        let dims = "[[2, 4, 6, 6], [2, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], [], []]";
        let types = r#"["float", "float", "float", "ScalarList", "", "", "", "", "", "", ""]"#;
        let ci = r#"["", "", "", "[4]", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, True]"]"#;
        let reference = run_with(
            "aten::convolution_backward",
            dims,
            types,
            None,
            ci,
            &[],
            Semantics::TraceLens,
        )
        .unwrap();
        assert_eq!(reference.param("bias").unwrap().repr(), "[]");
        let (x, w, out) = (2.0 * 3.0 * 64.0, 4.0 * 27.0, 2.0 * 4.0 * 36.0);
        let dx = 2.0 * 27.0 * out;
        let dw = 2.0 * (2.0 * 36.0) * w;
        assert_eq!(reference.flops, dx + dw);
        assert_eq!(reference.bytes, Some(2.0 * (out + w + x) * 4.0));
        assert_eq!(reference.metrics(Direction::Bwd).unwrap().flops, dx + dw);

        let corrected = run_with(
            "aten::convolution_backward",
            dims,
            types,
            None,
            ci,
            &[],
            Semantics::Corrected,
        )
        .unwrap();
        assert_eq!(corrected.param("bias"), Some(&ParamValue::Bool(true)));
        assert_eq!(corrected.flops, dx + dw + out);
        assert_eq!(corrected.bytes, Some(2.0 * (out + w + x) * 4.0 + out + 4.0));
    }
}
