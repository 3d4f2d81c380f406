//! Normalization models (spec §7.10): batch, layer, group, instance and RMS norm,
//! forward and backward classes. Compute Spec `vector_<input dtype>`.
//!
//! With `E` the elements of `op_shape` and `C = num_channels`:
//! * `flops = (3C + (3E if training) + 3C) + 2E`;
//! * `bytes = E·bpe_in + E·bpe_out + W·C·bpe_in`,
//!   `W = 2 + (1 if affine, +1 more if affine and has_bias) + (2 if training)`;
//! * backward, driven by `output_mask[0]`: [`norm_flops_bwd`], and
//!   `bytes = E·bpe + E·bpe·(2 if mask[0] and training else 1) + (C·bpe if training)
//!   + (C·bpe if affine) + (C·bpe·(2 if has_bias else 1) if affine and training)`;
//! * RMSNorm and its backward have their own formulas.
//! * Keys `op_shape, dtype_in_out, stride_input, stride_output, num_channels,
//!   has_bias, is_affine, is_training`, plus `output_mask` for backward classes.
//! * Forward classes have no backward (`NotImplemented`); a backward class's
//!   backward metrics equal its own. `instance_norm_backward` is always
//!   `NotImplemented` (the reference then drops it even from the unified table).
//! * An input dtype of unknown size is `Invalid` (the reference multiplies by
//!   `None` and fails).
//!
//! Quirk switches:
//! * [`Fix::NormTrainingFlag`] (a bug: `BugFixes` and `Corrected`):
//!   `is_training = bool(string)`, so `"False"` is true (§11 item 11) for
//!   batch/instance norm and `native_batch_norm_backward`. Fixed, the flag is
//!   parsed.
//! * [`Fix::NormArgs`] (`Corrected` only): `is_affine`/`has_bias` test
//!   `Input Dims[i] is not None`, which is always true since a missing tensor is
//!   `[]` (§11 item 11); batch/instance/native group norm even look at the bias
//!   slot for `is_affine`. Corrected: `is_affine` when the weight is a tensor,
//!   `has_bias` when the bias is (for the schema of each op); backward classes
//!   take `has_bias` from `output_mask[2]`. The cudnn/miopen batch-norm backward
//!   (which only exist in training) count as training, where the reference takes
//!   them as not training, and the batch-norm backward's `output_mask` is read
//!   from its argument.
//! * [`Fix::NormUnknownDtype`] (`Corrected` only): an unknown dtype size gives no
//!   bytes instead of `Invalid`.

use super::args::{parse_bool_list, parse_int_list, parse_py_literal, prod, OpArgs};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, Fix, Metrics, ModelError, Perf, Semantics};

/// One normalization instance, as the reference's `param_details`.
#[derive(Debug, Clone)]
struct Norm {
    shape: Vec<i64>,
    dtype: String,
    stride_input: ParamValue,
    /// An int except for `group_norm_backward` (`C / groups`, a float).
    channels: ParamValue,
    has_bias: bool,
    is_affine: bool,
    is_training: bool,
    output_mask: Option<Vec<bool>>,
}

impl Norm {
    fn e(&self) -> f64 {
        prod(&self.shape) as f64
    }

    fn c(&self) -> f64 {
        match self.channels {
            ParamValue::Int(c) => c as f64,
            ParamValue::Float(c) => c,
            _ => f64::NAN,
        }
    }

    /// bpe of the input (and output) dtype: `Invalid` when unknown in the
    /// reference, `None` when corrected.
    fn bpe(&self, semantics: Semantics) -> Result<Option<f64>, ModelError> {
        match dtype::bpe(&self.dtype) {
            Some(b) => Ok(Some(b as f64)),
            None if semantics.fixes(Fix::NormUnknownDtype) => Ok(None),
            None => Err(ModelError::Invalid(format!(
                "unknown size of dtype {:?} (the reference fails on it)",
                self.dtype
            ))),
        }
    }

    fn mask0(&self) -> bool {
        self.output_mask
            .as_ref()
            .and_then(|m| m.first().copied())
            .unwrap_or(false)
    }

    fn params(&self) -> Vec<(String, ParamValue)> {
        let mut params = vec![
            ("op_shape".into(), ParamValue::int_tuple(&self.shape)),
            (
                "dtype_in_out".into(),
                ParamValue::Tuple(vec![self.dtype.as_str().into(), ParamValue::None]),
            ),
            ("stride_input".into(), self.stride_input.clone()),
            ("stride_output".into(), ParamValue::None),
            ("num_channels".into(), self.channels.clone()),
            param("has_bias", self.has_bias),
            param("is_affine", self.is_affine),
            param("is_training", self.is_training),
        ];
        if let Some(mask) = &self.output_mask {
            params.push((
                "output_mask".into(),
                ParamValue::List(mask.iter().map(|&b| b.into()).collect()),
            ));
        }
        params
    }

    fn spec(&self) -> Option<String> {
        compute_spec(Maf::Vector, Some(&self.dtype))
    }

    /// A forward class: shared formulas, no backward.
    fn forward(&self, semantics: Semantics) -> Result<Perf, ModelError> {
        let bpe = self.bpe(semantics)?;
        Ok(Perf::new(
            norm_flops(self.e(), self.c(), self.is_training),
            bpe.map(|b| norm_bytes(self, b)),
            self.params(),
        )
        .with_backward(Err(not_implemented()))
        .with_compute_spec(self.spec()))
    }

    /// A backward class: its own metrics are the backward formulas.
    fn backward(&self, semantics: Semantics) -> Result<Perf, ModelError> {
        let bpe = self.bpe(semantics)?;
        let flops = norm_flops_bwd(self.e(), self.c(), self.is_training, self.mask0());
        let bytes = bpe.map(|b| norm_bytes_bwd(self, b));
        Ok(Perf::new(flops, bytes, self.params())
            .with_backward(Ok(Metrics { flops, bytes }))
            .with_compute_spec(self.spec()))
    }
}

fn not_implemented() -> ModelError {
    ModelError::NotImplemented(
        "backward pass of a forward normalization class is not defined".into(),
    )
}

/// `(3C + (3E if training) + 3C) + 2E`.
pub fn norm_flops(e: f64, c: f64, training: bool) -> f64 {
    let mut param_compute = c * 3.0;
    if training {
        param_compute += e * 3.0;
    }
    param_compute += c * 3.0;
    param_compute + 2.0 * e
}

fn norm_bytes(n: &Norm, bpe: f64) -> f64 {
    let mut weights = 2.0;
    if n.is_affine {
        weights += 1.0;
        if n.has_bias {
            weights += 1.0;
        }
    }
    if n.is_training {
        weights += 2.0;
    }
    let (e, c) = (n.e(), n.c());
    (e * bpe + e * bpe) + weights * c * bpe
}

/// `C·((3 if not training) + 4·E/C + (5·E/C if mask0 and training) + (2·E/C if not mask0))`.
pub fn norm_flops_bwd(e: f64, c: f64, training: bool, mask0: bool) -> f64 {
    let per_channel_elems = e / c;
    let mut per_channel = if training { 0.0 } else { 3.0 };
    per_channel += 4.0 * per_channel_elems;
    if mask0 {
        if training {
            per_channel += 5.0 * per_channel_elems;
        }
    } else {
        per_channel += 2.0 * per_channel_elems;
    }
    c * per_channel
}

/// `E·bpe + E·bpe·(2 if mask0 and training else 1) + (C·bpe if training) +
/// (C·bpe if affine) + (C·bpe·(2 if has_bias else 1) if affine and training)`.
fn norm_bytes_bwd(n: &Norm, bpe: f64) -> f64 {
    let (e, c) = (n.e(), n.c());
    let mut bytes = e * bpe + e * bpe * if n.mask0() && n.is_training { 2.0 } else { 1.0 };
    if n.is_training {
        bytes += c * bpe;
    }
    if n.is_affine {
        bytes += c * bpe;
        if n.is_training {
            bytes += c * bpe * if n.has_bias { 2.0 } else { 1.0 };
        }
    }
    bytes
}

/// `bool(string)`: any non-empty string, `"False"` included, is true.
fn python_bool_of_str(s: &str) -> bool {
    !s.is_empty()
}

/// The flag parsed as a Python literal: `"True"`/`"1"` true, anything else false.
fn parse_flag(s: &str) -> bool {
    parse_py_literal(s).is_some_and(|v| v.truthy())
}

/// A batch/instance norm `training` flag: `bool(string)` in the reference,
/// parsed with [`Fix::NormTrainingFlag`].
fn training_flag(s: &str, semantics: Semantics) -> bool {
    if semantics.fixes(Fix::NormTrainingFlag) {
        parse_flag(s)
    } else {
        python_bool_of_str(s)
    }
}

fn channel(shape: &[i64], i: usize) -> Result<i64, ModelError> {
    shape
        .get(i)
        .copied()
        .ok_or_else(|| ModelError::Invalid(format!("op_shape {shape:?} has no dimension {i}")))
}

/// The input tensor at `i`: shape, dtype, stride (`Input Strides` required).
fn input(op: &OpArgs, i: usize) -> Result<(Vec<i64>, String, ParamValue), ModelError> {
    Ok((op.shape(i)?, op.dtype(i)?.to_string(), op.stride(i)?))
}

/// `aten::{,native_,cudnn_,miopen_}batch_norm(input, weight, bias, running_mean,
/// running_var, training, ...)`: `C = op_shape[1]`.
pub fn batch_norm(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    channel_norm_forward(op, semantics)
}

/// `aten::{,native_}batch_norm_backward(grad_out, input, weight, running_mean,
/// running_var, save_mean, save_invstd, train, eps, output_mask)`, and the
/// cudnn/miopen ones `(input, grad_output, weight, ...)`.
pub fn batch_norm_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let vendor = matches!(
        op.name,
        "aten::cudnn_batch_norm_backward" | "aten::miopen_batch_norm_backward"
    );
    let at = if vendor { 0 } else { 1 };
    let (shape, dtype, stride_input) = input(op, at)?;
    let is_training = if vendor {
        semantics.fixes(Fix::NormArgs)
    } else {
        training_flag(op.ci(7)?, semantics)
    };
    let (is_affine, has_bias, output_mask) = if semantics.fixes(Fix::NormArgs) {
        let mask = if vendor {
            vec![true]
        } else {
            op.ci_nonempty(9)
                .and_then(|m| parse_bool_list(m, "output_mask").ok())
                .unwrap_or_else(|| vec![true])
        };
        let has_bias = mask.get(2).copied().unwrap_or(true);
        (op.has_tensor(2), has_bias, mask)
    } else {
        let has_output = vendor || op.dim_is_not_none(0)?;
        (op.dim_is_not_none(2)?, true, vec![has_output])
    };
    Norm {
        channels: ParamValue::Int(channel(&shape, 1)?),
        shape,
        dtype,
        stride_input,
        has_bias,
        is_affine,
        is_training,
        output_mask: Some(output_mask),
    }
    .backward(semantics)
}

/// `aten::{,native_,cudnn_,miopen_}layer_norm(input, normalized_shape, weight,
/// bias, ...)`: `C = prod(normalized_shape)`, always training.
pub fn layer_norm(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 0)?;
    let channels = prod(&parse_int_list(op.ci(1)?, "normalized_shape")?) as i64;
    let (is_affine, has_bias) = if semantics.fixes(Fix::NormArgs) {
        (op.has_tensor(2), op.has_tensor(3))
    } else {
        (op.dim_is_not_none(2)?, op.dim_is_not_none(3)?)
    };
    Norm {
        shape,
        dtype,
        stride_input,
        channels: ParamValue::Int(channels),
        has_bias,
        is_affine,
        is_training: true,
        output_mask: None,
    }
    .forward(semantics)
}

/// `aten::{,native_,...}layer_norm_backward(grad_out, input, normalized_shape,
/// mean, rstd, weight, bias, output_mask)`: affine and bias from the mask.
pub fn layer_norm_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 1)?;
    let channels = prod(&parse_int_list(op.ci(2)?, "normalized_shape")?) as i64;
    let mask = parse_bool_list(op.ci(7)?, "output_mask")?;
    let flag = |i: usize| {
        mask.get(i)
            .copied()
            .ok_or_else(|| ModelError::Invalid(format!("output_mask {mask:?} has no index {i}")))
    };
    let (is_affine, has_bias) = (flag(1)?, flag(2)?);
    Norm {
        shape,
        dtype,
        stride_input,
        channels: ParamValue::Int(channels),
        has_bias,
        is_affine,
        is_training: true,
        output_mask: Some(mask),
    }
    .backward(semantics)
}

/// `aten::group_norm(input, num_groups, weight, bias, ...)`,
/// `aten::native_group_norm(input, weight, bias, N, C, HxW, group, eps)` and
/// `aiter::_groupnorm_run`: `C = op_shape[1]`, always training.
pub fn group_norm(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 0)?;
    let corrected = semantics.fixes(Fix::NormArgs);
    let (is_affine, has_bias) = match op.name {
        "aten::group_norm" if corrected => (op.has_tensor(2), op.has_tensor(3)),
        name if corrected && name.starts_with("aten::") => (op.has_tensor(1), op.has_tensor(2)),
        _ => (op.dim_is_not_none(2)?, true),
    };
    Norm {
        channels: ParamValue::Int(channel(&shape, 1)?),
        shape,
        dtype,
        stride_input,
        has_bias,
        is_affine,
        is_training: true,
        output_mask: None,
    }
    .forward(semantics)
}

/// `aten::native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C,
/// HxW, group, output_mask)`: `num_channels = op_shape[1] / group`, a float.
pub fn group_norm_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 1)?;
    let mask = parse_bool_list(op.ci(9)?, "output_mask")?;
    let groups = super::args::int_arg(op.ci(8)?, "group")?;
    if groups == 0 {
        return Err(ModelError::Invalid(
            "group_norm_backward with 0 groups".into(),
        ));
    }
    let (is_affine, has_bias) = if semantics.fixes(Fix::NormArgs) {
        (op.has_tensor(4), mask.get(2).copied().unwrap_or(true))
    } else {
        (op.dim_is_not_none(5)?, true)
    };
    Norm {
        channels: ParamValue::Float(channel(&shape, 1)? as f64 / groups as f64),
        shape,
        dtype,
        stride_input,
        has_bias,
        is_affine,
        is_training: true,
        output_mask: Some(mask),
    }
    .backward(semantics)
}

/// `aten::instance_norm(input, weight, bias, running_mean, running_var,
/// use_input_stats, ...)`: `C = op_shape[1]`, training = `use_input_stats`; the
/// same arguments in the same places as batch norm, so the same model.
pub fn instance_norm(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    channel_norm_forward(op, semantics)
}

/// The forward of a norm over channels `C = op_shape[1]` whose arguments are
/// `(input, weight, bias, running_mean, running_var, training-like flag, ...)`.
fn channel_norm_forward(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 0)?;
    let is_training = training_flag(op.ci(5)?, semantics);
    let (is_affine, has_bias) = if semantics.fixes(Fix::NormArgs) {
        (op.has_tensor(1), op.has_tensor(2))
    } else {
        (op.dim_is_not_none(2)?, true)
    };
    Norm {
        channels: ParamValue::Int(channel(&shape, 1)?),
        shape,
        dtype,
        stride_input,
        has_bias,
        is_affine,
        is_training,
        output_mask: None,
    }
    .forward(semantics)
}

/// `aten::instance_norm_backward`: not modelled by the reference.
pub fn instance_norm_bwd(_: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    Err(ModelError::NotImplemented(
        "backward pass for InstanceNorm is not defined".into(),
    ))
}

/// `aten::_fused_rms_norm(input, normalized_shape, weight, eps)`:
/// `flops = (E/C)·(2C + 2) + E·(2 if affine else 1)`,
/// `bytes = E·bpe_in + E·bpe_out + (C·bpe_in if affine)`.
pub fn rms_norm(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 0)?;
    let is_affine = if semantics.fixes(Fix::NormArgs) {
        op.has_tensor(2)
    } else {
        op.dim_is_not_none(2)?
    };
    let channels = prod(&parse_int_list(op.ci(1)?, "normalized_shape")?) as i64;
    let n = Norm {
        shape,
        dtype,
        stride_input,
        channels: ParamValue::Int(channels),
        has_bias: false,
        is_affine,
        is_training: false,
        output_mask: None,
    };
    let (e, c) = (n.e(), n.c());
    let mut flops = e / c * (2.0 * c + 2.0);
    flops += e * if is_affine { 2.0 } else { 1.0 };
    let bytes = n
        .bpe(semantics)?
        .map(|b| e * b + e * b + if is_affine { c * b } else { 0.0 });
    Ok(Perf::new(flops, bytes, n.params())
        .with_backward(Err(not_implemented()))
        .with_compute_spec(n.spec()))
}

/// `aten::_fused_rms_norm_backward(grad_out, input, normalized_shape, rstd,
/// weight, output_mask)` and the `*rms_norm_backward` ops:
/// `flops = (E if affine) + E + (6E if mask[0]) + (E + (E if E/C > 1) if mask[1] and affine)`,
/// `bytes = E·bpe_out + 2E·bpe_in + (2C·bpe_in if affine)`.
pub fn rms_norm_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let (shape, dtype, stride_input) = input(op, 1)?;
    let is_affine = if semantics.fixes(Fix::NormArgs) {
        op.has_tensor(4)
    } else {
        op.dim_is_not_none(4)?
    };
    let channels = prod(&parse_int_list(op.ci(2)?, "normalized_shape")?) as i64;
    let mask = parse_bool_list(op.ci(5)?, "output_mask")?;
    let flag = |i: usize| {
        mask.get(i)
            .copied()
            .ok_or_else(|| ModelError::Invalid(format!("output_mask {mask:?} has no index {i}")))
    };
    let (mask0, mask1) = (flag(0)?, flag(1)?);
    let n = Norm {
        shape,
        dtype,
        stride_input,
        channels: ParamValue::Int(channels),
        has_bias: false,
        is_affine,
        is_training: false,
        output_mask: Some(mask.clone()),
    };
    let (e, c) = (n.e(), n.c());
    let mut flops = if is_affine { e } else { 0.0 };
    flops += e;
    if mask0 {
        flops += 2.0 * e + 4.0 * e;
    }
    if mask1 && is_affine {
        flops += e;
        if e / c > 1.0 {
            flops += e;
        }
    }
    let bytes = n
        .bpe(semantics)?
        .map(|b| e * b + e * b * 2.0 + if is_affine { c * b * 2.0 } else { 0.0 });
    Ok(Perf::new(flops, bytes, n.params())
        .with_backward(Ok(Metrics { flops, bytes }))
        .with_compute_spec(n.spec()))
}

/// `primus::fused_ln_modulate(x (T, B, H), scale, shift, eps)`: `flops = 12·E`,
/// `bytes = 2E·bpe + 2·B·H·bpe + 2·T·B·4`.
pub fn fused_ln_modulate(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    fused_ln(op, semantics, false)
}

/// `primus::fused_ln_modulate_backward(grad_out (T, B, H), ...)`: `flops = 15·E`,
/// `bytes = 3E·bpe + 2·B·T·4 + 3·B·H·bpe`.
pub fn fused_ln_modulate_bwd(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    fused_ln(op, semantics, true)
}

fn fused_ln(op: &OpArgs, semantics: Semantics, backward: bool) -> Result<Perf, ModelError> {
    let shape = op.shape(0)?;
    let &[t, b, h, ..] = shape.as_slice() else {
        return Err(ModelError::Invalid(format!(
            "fused_ln_modulate input is not 3-D: {shape:?}"
        )));
    };
    let n = Norm {
        dtype: op.dtype(0)?.to_string(),
        stride_input: op.stride_lenient(0),
        channels: ParamValue::Int(h),
        has_bias: true,
        is_affine: true,
        is_training: true,
        output_mask: backward.then(|| vec![true; 3]),
        shape,
    };
    let (e, t, b, h) = (n.e(), t as f64, b as f64, h as f64);
    let bytes = n.bpe(semantics)?.map(|bpe| {
        if backward {
            2.0 * e * bpe + 2.0 * b * t * 4.0 + e * bpe + 2.0 * b * h * bpe + b * h * bpe
        } else {
            e * bpe + e * bpe + 2.0 * b * h * bpe + 2.0 * t * b * 4.0
        }
    });
    let flops = e * if backward { 15.0 } else { 12.0 };
    Ok(Perf::new(flops, bytes, n.params())
        .with_backward(Err(ModelError::NotImplemented(
            "backward of fused_ln_modulate classes is not defined".into(),
        )))
        .with_compute_spec(n.spec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};
    use crate::perf::Direction;

    #[test]
    fn layer_norm_worked_example() {
        let perf = run(
            "aten::layer_norm",
            "[[4, 197, 768], [], [768], [768], [], []]",
            r#"["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]"#,
            Some("[[151296, 768, 1], [], [1], [1], [], []]"),
            r#"["", "[768]", "", "", "9.9999999999999998e-13", "True"]"#,
            &[],
        )
        .unwrap();
        let (e, c) = (4.0 * 197.0 * 768.0, 768.0);
        assert_eq!(e, 605_184.0);
        let flops = 3.0 * c + 3.0 * e + 3.0 * c + 2.0 * e;
        assert_eq!(flops, 3_030_528.0);
        assert_eq!(perf.flops, flops);
        // Activations in and out, plus 6 channel vectors (mean, var, weight, bias, 2 stats).
        let bytes = 2.0 * e * 2.0 + 6.0 * c * 2.0;
        assert_eq!(bytes, 2_429_952.0);
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(
            perf.params_repr(),
            "{'op_shape': (4, 197, 768), 'dtype_in_out': ('c10::BFloat16', None), \
             'stride_input': (151296, 768, 1), 'stride_output': None, 'num_channels': 768, \
             'has_bias': True, 'is_affine': True, 'is_training': True}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("vector_bf16"));
        assert!(matches!(
            perf.metrics(Direction::Bwd),
            Err(ModelError::NotImplemented(_))
        ));
    }

    fn batch_norm_eval(semantics: Semantics) -> Perf {
        // Inference batch norm without affine params: training "False", weight/bias [].
        run_with(
            "aten::batch_norm",
            "[[8, 16, 32, 32], [], [], [16], [16], [], [], [], []]",
            r#"["float", "", "", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar"]"#,
            Some("[[16384, 1024, 32, 1], [], [], [1], [1], [], [], [], []]"),
            r#"["", "", "", "", "", "False", "0.1", "1e-05", "True"]"#,
            &[],
            semantics,
        )
        .unwrap()
    }

    #[test]
    fn batch_norm_training_quirk() {
        let (e, c) = (8.0 * 16.0 * 1024.0, 16.0);
        let reference = batch_norm_eval(Semantics::TraceLens);
        assert_eq!(
            reference.param("is_training"),
            Some(&ParamValue::Bool(true))
        );
        assert_eq!(reference.param("is_affine"), Some(&ParamValue::Bool(true)));
        assert_eq!(reference.flops, 6.0 * c + 3.0 * e + 2.0 * e);
        assert_eq!(reference.bytes, Some(2.0 * e * 4.0 + 6.0 * c * 4.0));

        let corrected = batch_norm_eval(Semantics::Corrected);
        assert_eq!(
            corrected.param("is_training"),
            Some(&ParamValue::Bool(false))
        );
        assert_eq!(corrected.param("is_affine"), Some(&ParamValue::Bool(false)));
        assert_eq!(corrected.param("has_bias"), Some(&ParamValue::Bool(false)));
        assert_eq!(corrected.flops, 6.0 * c + 2.0 * e);
        assert_eq!(corrected.bytes, Some(2.0 * e * 4.0 + 2.0 * c * 4.0));
    }

    #[test]
    fn group_norm_backward_has_float_channels() {
        let perf = run(
            "aten::native_group_norm_backward",
            "[[8, 16, 32, 32], [8, 16, 32, 32], [8, 4], [8, 4], [16], [], [], [], [], []]",
            r#"["float", "float", "float", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar", "ScalarList"]"#,
            Some("[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [4, 1], [4, 1], [1], [], [], [], [], []]"),
            r#"["", "", "", "", "", "8", "16", "1024", "4", "[True, True, True]"]"#,
            &[],
        )
        .unwrap();
        let (e, c) = (8.0 * 16.0 * 1024.0, 4.0);
        assert_eq!(perf.param("num_channels"), Some(&ParamValue::Float(4.0)));
        assert_eq!(perf.flops, c * (4.0 * e / c + 5.0 * e / c));
        assert_eq!(perf.flops / 1e9, 0.001179648);
        let bytes = e * 4.0 + e * 4.0 * 2.0 + c * 4.0 + c * 4.0 + c * 4.0 * 2.0;
        assert_eq!(perf.bytes, Some(bytes));
        assert_eq!(
            perf.param("output_mask").unwrap().repr(),
            "[True, True, True]"
        );
        assert_eq!(perf.metrics(Direction::Bwd).unwrap().flops, perf.flops);
    }

    #[test]
    fn rms_norm_and_backward() {
        let dims = "[[8, 16, 32, 32], [], [32, 32], []]";
        let perf = run(
            "aten::_fused_rms_norm",
            dims,
            r#"["float", "ScalarList", "float", ""]"#,
            Some("[[16384, 1024, 32, 1], [], [32, 1], []]"),
            r#"["", "[32, 32]", "", ""]"#,
            &[],
        )
        .unwrap();
        let (e, c) = (131072.0, 1024.0);
        assert_eq!(perf.flops, e / c * (2.0 * c + 2.0) + 2.0 * e);
        assert_eq!(perf.flops / 1e9, 0.000524544);
        assert_eq!(perf.bytes, Some(2.0 * e * 4.0 + c * 4.0));
        assert_eq!(perf.param("has_bias"), Some(&ParamValue::Bool(false)));

        let perf = run(
            "aten::_fused_rms_norm_backward",
            "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 16, 1, 1], [32, 32], []]",
            r#"["float", "float", "ScalarList", "float", "float", "ScalarList"]"#,
            Some("[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [16, 1, 1, 1], [32, 1], []]"),
            r#"["", "", "[32, 32]", "", "", "[True, True]"]"#,
            &[],
        )
        .unwrap();
        assert_eq!(perf.flops, 10.0 * e);
        assert_eq!(perf.bytes, Some(3.0 * e * 4.0 + 2.0 * c * 4.0));
        assert_eq!(perf.bytes.unwrap() / 1048576.0, 1.5078125);
    }

    #[test]
    fn instance_norm_backward_is_not_implemented() {
        let err = run(
            "aten::instance_norm_backward",
            "[[1]]",
            r#"["float"]"#,
            None,
            "[]",
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::NotImplemented(_)), "{err}");
    }

    #[test]
    fn unknown_dtype_size() {
        let args = (
            "[[2, 8], [], [8], [8], [], []]",
            r#"["bool", "ScalarList", "bool", "bool", "Scalar", "Scalar"]"#,
            Some("[[8, 1], [], [1], [1], [], []]"),
            r#"["", "[8]", "", "", "1e-05", "True"]"#,
        );
        let reference = run_with(
            "aten::layer_norm",
            args.0,
            args.1,
            args.2,
            args.3,
            &[],
            Semantics::TraceLens,
        );
        assert!(matches!(reference, Err(ModelError::Invalid(_))));
        let corrected = run_with(
            "aten::layer_norm",
            args.0,
            args.1,
            args.2,
            args.3,
            &[],
            Semantics::Corrected,
        )
        .unwrap();
        assert_eq!(corrected.bytes, None);
    }
}
