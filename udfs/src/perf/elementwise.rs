//! Elementwise models (spec §7.7), category `elementwise`, Compute Spec
//! `vector_<dtype of input 0>`.
//!
//! * Unary (`aten::copy_`, `silu`, `neg`, `pow`, ...): `flops = prod(op_shape)`,
//!   `bytes = n·bpe_in + n·bpe_out`; keys `op_shape, dtype_in_out, stride_input,
//!   stride_output`. For `copy_(self, src)` input 0 is the destination.
//! * `replication_pad{1,2,3}d`, `upsample_nearest{1,2,3}d`: `flops = prod(out)`,
//!   `bytes = (prod(in) + prod(out))·bpe`; keys `input_shape, output_shape,
//!   [padding], op_shape, dtype_in_out, stride_input, stride_output`.
//! * Binary (`aten::add`, `mul`, `div`, ...): output shape by broadcasting,
//!   `flops = prod(out)`, `bytes = prod(in1)·bpe1 + prod(in2)·bpe2 +
//!   prod(out)·bpe_out`; keys `shape_in1, shape_in2, dtype_in1_in2_out,
//!   stride_input1, stride_input2, stride_output`. Unbroadcastable shapes are
//!   `Invalid`.
//! * No backward (the classes have no backward method: `Invalid`).
//!
//! Quirk switch ([`Fix::UpsampleScaleFactors`], `Corrected` only): `upsample_nearest` without an `output_size`
//! (`Concrete Inputs[1]` empty) derives the output from the scale factors in
//! `Concrete Inputs[2]` instead of failing. Everything else is identical.

use super::args::{parse_int_list, parse_py_literal, prod, OpArgs};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{Fix, ModelError, Perf, Semantics};

fn vector_spec(dtype: &str) -> Option<String> {
    compute_spec(Maf::Vector, Some(dtype))
}

/// `n·bpe_in + n·bpe_out`, `None` when a size is unknown.
fn unary_bytes(n: i128, bpe_in: Option<i64>, bpe_out: Option<i64>) -> Option<f64> {
    Some((n * bpe_in? as i128 + n * bpe_out? as i128) as f64)
}

/// `aten::copy_`, `clamp_min`, `sigmoid`, `rsqrt`, `silu`, `neg`, `pow`, ...:
/// the output dtype and stride come from input 1 when it is a tensor, else the
/// output is taken to match the input.
pub fn aten_unary(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let shape = op.shape(0)?;
    let dtype_in = op.dtype(0)?;
    let stride_input = op.stride(0)?;
    let (dtype_out, stride_output) =
        if op.dims()?.len() > 1 && op.dim_entry(1)?.as_array().is_some_and(|a| !a.is_empty()) {
            (Some(op.dtype(1)?), op.stride(1)?)
        } else {
            (None, ParamValue::None)
        };
    let n = prod(&shape);
    let bpe_in = dtype::bpe(dtype_in);
    let bpe_out = match dtype_out {
        Some(d) => dtype::bpe(d),
        None => bpe_in,
    };
    let params = vec![
        ("op_shape".into(), ParamValue::int_tuple(&shape)),
        (
            "dtype_in_out".into(),
            ParamValue::Tuple(vec![dtype_in.into(), ParamValue::opt_str(dtype_out)]),
        ),
        ("stride_input".into(), stride_input),
        ("stride_output".into(), stride_output),
    ];
    Ok(Perf::new(n as f64, unary_bytes(n, bpe_in, bpe_out), params)
        .with_compute_spec(vector_spec(dtype_in)))
}

/// Shared tail of the resampling ops: `op_shape = output_shape`, one dtype.
fn resample(
    op: &OpArgs,
    input: Vec<i64>,
    output: Vec<i64>,
    padding: Option<ParamValue>,
) -> Result<Perf, ModelError> {
    let dtype_in = op.dtype(0)?;
    let stride_input = op.stride(0)?;
    let bpe = dtype::bpe(dtype_in);
    let (n_in, n_out) = (prod(&input), prod(&output));
    let bytes = bpe.map(|b| ((n_in + n_out) * b as i128) as f64);
    let mut params = vec![
        ("input_shape".into(), ParamValue::int_tuple(&input)),
        ("output_shape".into(), ParamValue::int_tuple(&output)),
    ];
    if let Some(padding) = padding {
        params.push(("padding".into(), padding));
    }
    params.extend([
        ("op_shape".into(), ParamValue::int_tuple(&output)),
        (
            "dtype_in_out".into(),
            ParamValue::Tuple(vec![dtype_in.into(), dtype_in.into()]),
        ),
        ("stride_input".into(), stride_input),
        ("stride_output".into(), ParamValue::None),
    ]);
    Ok(Perf::new(n_out as f64, bytes, params).with_compute_spec(vector_spec(dtype_in)))
}

/// `aten::replication_pad{1,2,3}d(input, padding)`: `padding[2i] + padding[2i+1]`
/// is added to dimension `−1−i`.
pub fn aten_replication_pad(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let input = op.shape(0)?;
    let padding = parse_int_list(op.ci(1)?, "padding")?;
    let mut output = input.clone();
    for (i, pair) in padding.chunks(2).enumerate() {
        let pad: i64 = pair.iter().sum();
        let at = output.len().checked_sub(1 + i).ok_or_else(|| {
            ModelError::Invalid(format!(
                "padding {padding:?} has more dims than input {input:?}"
            ))
        })?;
        output[at] += pad;
    }
    resample(op, input, output, Some(ParamValue::int_tuple(&padding)))
}

/// `aten::upsample_nearest{1,2,3}d(input, output_size, scales)`:
/// `out = in[:2] + output_size`.
pub fn aten_upsample_nearest(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let input = op.shape(0)?;
    let size_text = op.ci(1)?;
    let spatial = if semantics.fixes(Fix::UpsampleScaleFactors)
        && (size_text.is_empty() || size_text == "None")
    {
        let scales = match op.ci_nonempty(2).and_then(parse_py_literal) {
            Some(ParamValue::List(s) | ParamValue::Tuple(s)) => s,
            _ => {
                return Err(ModelError::Invalid(
                    "upsample_nearest has neither output_size nor scale factors".into(),
                ))
            }
        };
        let spatial_in = input.get(2..).unwrap_or(&[]);
        spatial_in
            .iter()
            .zip(&scales)
            .map(|(&d, s)| match s {
                ParamValue::Float(f) => Ok((d as f64 * f).floor() as i64),
                ParamValue::Int(i) => Ok(d * i),
                other => Err(ModelError::Invalid(format!(
                    "scale factor {other} is not a number"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        parse_int_list(size_text, "output_size")?
    };
    let mut output: Vec<i64> = input.iter().take(2).copied().collect();
    output.extend(spatial);
    resample(op, input, output, None)
}

/// Right-aligned broadcast of two shapes; `Invalid` when a pair differs and
/// neither is 1.
pub fn broadcast_shape(a: &[i64], b: &[i64]) -> Result<Vec<i64>, ModelError> {
    let n = a.len().max(b.len());
    let pad = |s: &[i64]| -> Vec<i64> {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a, b) = (pad(a), pad(b));
    a.iter()
        .zip(&b)
        .map(|(&x, &y)| {
            if x != y && x != 1 && y != 1 {
                Err(ModelError::Invalid(format!(
                    "shapes not broadcastable: {a:?} and {b:?}"
                )))
            } else {
                Ok(x.max(y))
            }
        })
        .collect()
}

/// The binary model once its inputs are read.
fn binary(
    shape1: Vec<i64>,
    shape2: Vec<i64>,
    dtypes: [&str; 2],
    dtype_out: Option<&str>,
    strides: [ParamValue; 3],
) -> Result<Perf, ModelError> {
    let out = broadcast_shape(&shape1, &shape2)?;
    let (bpe1, bpe2) = (dtype::bpe(dtypes[0]), dtype::bpe(dtypes[1]));
    let bpe_out = match (dtype_out, bpe1, bpe2) {
        (Some(d), _, _) => dtype::bpe(d),
        // Both tensors: the wider type; a scalar operand keeps input 1's type.
        (None, Some(a), Some(b)) => Some(if !shape1.is_empty() && !shape2.is_empty() {
            a.max(b)
        } else {
            a
        }),
        _ => None,
    };
    let n_out = prod(&out);
    let bytes = match (bpe1, bpe2, bpe_out) {
        (Some(a), Some(b), Some(o)) => {
            Some((prod(&shape1) * a as i128 + prod(&shape2) * b as i128 + n_out * o as i128) as f64)
        }
        _ => None,
    };
    let [s1, s2, s_out] = strides;
    let params = vec![
        ("shape_in1".into(), ParamValue::int_tuple(&shape1)),
        ("shape_in2".into(), ParamValue::int_tuple(&shape2)),
        (
            "dtype_in1_in2_out".into(),
            ParamValue::Tuple(vec![
                dtypes[0].into(),
                dtypes[1].into(),
                ParamValue::opt_str(dtype_out),
            ]),
        ),
        ("stride_input1".into(), s1),
        ("stride_input2".into(), s2),
        ("stride_output".into(), s_out),
    ];
    Ok(Perf::new(n_out as f64, bytes, params).with_compute_spec(vector_spec(dtypes[0])))
}

/// `aten::add`, `mul`, `div` (and in-place forms), `sigmoid_backward`,
/// `threshold_backward`: output dtype and stride from input 2 when it is a
/// tensor (an `out=` argument).
pub fn aten_binary(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (shape1, shape2) = (op.shape(0)?, op.shape(1)?);
    let dtypes = [op.dtype(0)?, op.dtype(1)?];
    let (s1, s2) = (op.stride(0)?, op.stride(1)?);
    let (dtype_out, s_out) =
        if op.dims()?.len() > 2 && op.dim_entry(2)?.as_array().is_some_and(|a| !a.is_empty()) {
            (Some(op.dtype(2)?), op.stride(2)?)
        } else {
            (None, ParamValue::None)
        };
    binary(shape1, shape2, dtypes, dtype_out, [s1, s2, s_out])
}

/// `LigerSiLUMulFunction(a, b)`: `SiLU(a)·b` as a binary op, output like the inputs.
pub fn liger_silu_mul(op: &OpArgs, _: Semantics) -> Result<Perf, ModelError> {
    let (shape1, shape2) = (op.shape(0)?, op.shape(1)?);
    let dtypes = [op.dtype(0)?, op.dtype(1)?];
    let (s1, s2) = (op.stride(0)?, op.stride(1)?);
    binary(shape1, shape2, dtypes, None, [s1, s2, ParamValue::None])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};
    use crate::perf::Direction;

    #[test]
    fn unary_copy_with_output_dtype() {
        let perf = run(
            "aten::copy_",
            "[[1, 559, 64], [1, 559, 64], []]",
            r#"["c10::BFloat16", "float", "Scalar"]"#,
            Some("[[35776, 64, 1], [35776, 64, 1], []]"),
            r#"["", "", "False"]"#,
            &[],
        )
        .unwrap();
        let n = 559.0 * 64.0;
        assert_eq!(perf.flops, n);
        assert_eq!(perf.bytes, Some(n * 2.0 + n * 4.0));
        assert_eq!(
            perf.params_repr(),
            "{'op_shape': (1, 559, 64), 'dtype_in_out': ('c10::BFloat16', 'float'), \
             'stride_input': (35776, 64, 1), 'stride_output': (35776, 64, 1)}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("vector_bf16"));
        assert!(matches!(
            perf.metrics(Direction::Bwd),
            Err(ModelError::Invalid(_))
        ));
    }

    #[test]
    fn unary_with_scalar_second_input() {
        let perf = run(
            "aten::pow",
            "[[16, 559, 1024], []]",
            r#"["float", "Scalar"]"#,
            Some("[[572416, 1024, 1], []]"),
            r#"["", "2"]"#,
            &[],
        )
        .unwrap();
        let n = 16.0 * 559.0 * 1024.0;
        assert_eq!(perf.bytes, Some(n * 8.0));
        assert_eq!(perf.bytes.unwrap() / 1048576.0, 69.875);
        assert_eq!(
            perf.param("dtype_in_out").unwrap().repr(),
            "('float', None)"
        );
        assert_eq!(perf.param("stride_output"), Some(&ParamValue::None));
    }

    #[test]
    fn binary_broadcasts() {
        let perf = run(
            "aten::add_",
            "[[4, 768, 14, 14], [1, 768, 1, 1], []]",
            r#"["c10::BFloat16", "c10::BFloat16", "Scalar"]"#,
            Some("[[150528, 196, 14, 1], [768, 1, 1, 1], []]"),
            r#"["", "", "1"]"#,
            &[],
        )
        .unwrap();
        let (n1, n2) = (4.0 * 768.0 * 196.0, 768.0);
        assert_eq!(perf.flops, n1);
        assert_eq!(perf.flops / 1e9, 0.000602112);
        assert_eq!(perf.bytes, Some((n1 + n2 + n1) * 2.0));
        assert_eq!(perf.bytes.unwrap() / 1048576.0, 2.29833984375);
        assert_eq!(
            perf.param("dtype_in1_in2_out").unwrap().repr(),
            "('c10::BFloat16', 'c10::BFloat16', None)"
        );
    }

    #[test]
    fn binary_scalar_operand_keeps_input_dtype() {
        let perf = run(
            "aten::mul",
            "[[8, 12, 64, 64], []]",
            r#"["c10::BFloat16", "double"]"#,
            Some("[[49152, 4096, 64, 1], []]"),
            r#"["", ""]"#,
            &[],
        )
        .unwrap();
        let n = 8.0 * 12.0 * 64.0 * 64.0;
        // in1 bf16, the scalar double counted once (prod(()) = 1), out as in1.
        assert_eq!(perf.bytes, Some(n * 2.0 + 8.0 + n * 2.0));
        // Both tensors: the wider type wins.
        let perf = run(
            "aten::mul",
            "[[16, 559, 1024], [16, 559, 1]]",
            r#"["c10::BFloat16", "float"]"#,
            Some("[[572416, 1024, 1], [559, 1, 1]]"),
            r#"["", ""]"#,
            &[],
        )
        .unwrap();
        let (n1, n2) = (16.0 * 559.0 * 1024.0, 16.0 * 559.0);
        assert_eq!(perf.bytes, Some(n1 * 2.0 + n2 * 4.0 + n1 * 4.0));
    }

    #[test]
    fn unbroadcastable_is_invalid() {
        let err = run(
            "aten::add",
            "[[4, 3], [4, 2], []]",
            r#"["float", "float", "Scalar"]"#,
            Some("[[3, 1], [2, 1], []]"),
            r#"["", "", "1"]"#,
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Invalid(_)), "{err}");
    }

    #[test]
    fn upsample_and_pad() {
        let perf = run(
            "aten::upsample_nearest1d",
            "[[1, 768, 8], [], []]",
            r#"["c10::BFloat16", "ScalarList", ""]"#,
            Some("[[6144, 1, 768], [], []]"),
            r#"["", "[128]", ""]"#,
            &[],
        )
        .unwrap();
        assert_eq!(perf.flops, 768.0 * 128.0);
        assert_eq!(perf.bytes, Some((768.0 * 8.0 + 768.0 * 128.0) * 2.0));
        assert_eq!(
            perf.params_repr(),
            "{'input_shape': (1, 768, 8), 'output_shape': (1, 768, 128), 'op_shape': (1, 768, 128), \
             'dtype_in_out': ('c10::BFloat16', 'c10::BFloat16'), 'stride_input': (6144, 1, 768), \
             'stride_output': None}"
        );
        let scaled = |semantics| {
            run_with(
                "aten::upsample_nearest2d",
                "[[1, 3, 4, 5], [], []]",
                r#"["float", "", "ScalarList"]"#,
                Some("[[60, 20, 5, 1], [], []]"),
                r#"["", "", "[2., 3.]"]"#,
                &[],
                semantics,
            )
        };
        assert!(scaled(Semantics::TraceLens).is_err());
        assert_eq!(
            scaled(Semantics::Corrected)
                .unwrap()
                .param("output_shape")
                .unwrap()
                .repr(),
            "(1, 3, 8, 15)"
        );

        let perf = run(
            "aten::replication_pad2d",
            "[[2, 3, 4, 5], []]",
            r#"["float", "ScalarList"]"#,
            Some("[[60, 20, 5, 1], []]"),
            r#"["", "[1, 2, 3, 4]"]"#,
            &[],
        )
        .unwrap();
        assert_eq!(perf.param("output_shape").unwrap().repr(), "(2, 3, 11, 8)");
        assert_eq!(perf.flops, 2.0 * 3.0 * 11.0 * 8.0);
        assert_eq!(perf.bytes, Some((120.0 + 528.0) * 4.0));
    }
}
