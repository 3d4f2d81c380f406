//! Reduce model (spec §7.8): `aten::sum, mean, max, min, norm, linalg_norm, std,
//! var, logsumexp, cumsum, cumprod, amin, amax`.
//!
//! * `flops = num_input_elems`; `bytes = n_in·bpe_in + n_out·bpe_out`;
//! * backward: `flops = n_in`, `bytes = n_out·bpe_out + n_in·bpe_in`;
//! * keys `num_input_elems, num_output_elems, dtype_in_out, reduce_type`;
//!   `reduce_type` is the first of `mean`, `max`, `min`, `norm` found in the name,
//!   else `sum`.
//! * Without `Input Dims` (or with an empty list) every count is 0 and the keys are
//!   only `num_input_elems, num_output_elems, dtype_in_out = (None, None)`.
//! * The output dtype would come from an `Output type` arg, which PyTorch traces
//!   do not record, so `bpe_out = bpe_in`.
//!
//! Quirk switch ([`Fix::ReduceOutputSize`], a bug: `BugFixes` and `Corrected`):
//! the reference looks for `dim`/`keepdim` among the
//! concrete inputs as Python ints/lists/bools, but concrete inputs are strings, so
//! every non-cumulative reduce has `num_output_elems = 1` (§11 item 9). Fixed, it
//! parses `dim` and `keepdim` from their positions in the op's schema
//! ([`dim_positions`]) and reduces the input shape accordingly; the elementwise
//! overloads `max(self, other)`/`min(self, other)` (a tensor at input 1) output
//! the broadcast shape.

use super::args::{json_to_param, parse_py_literal, prod, OpArgs};
use super::dtype::{self, compute_spec, Maf};
use super::value::ParamValue;
use super::{param, Fix, Metrics, ModelError, Perf, Semantics};

/// `(dim, keepdim)` positions in `Concrete Inputs` for each reduce op's schema.
pub fn dim_positions(name: &str) -> (usize, usize) {
    let op = name.rsplit("::").next().unwrap_or(name);
    match op {
        // std/var(self, dim, unbiased | correction, keepdim)
        "std" | "var" => (1, 3),
        // norm(self, p, dim, keepdim), linalg_norm(self, ord, dim, keepdim, dtype)
        "norm" | "linalg_norm" | "linalg_vector_norm" => (2, 3),
        // sum/mean/amax/amin/logsumexp/max/min(self, dim, keepdim, ...)
        _ => (1, 2),
    }
}

/// The reduced dims of `Concrete Inputs[at]`: an int or a list of ints; `None`
/// when absent (a full reduction).
fn parse_dims(text: Option<&str>) -> Option<Vec<i64>> {
    match parse_py_literal(text?)? {
        ParamValue::Int(d) => Some(vec![d]),
        ParamValue::List(items) | ParamValue::Tuple(items) => items
            .iter()
            .map(|v| match v {
                ParamValue::Int(d) => Some(*d),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Output elements of reducing `shape` over `dims` (all dims when `None` or empty).
fn reduced_elems(shape: &[i64], dims: Option<Vec<i64>>, keepdim: bool) -> i128 {
    let rank = shape.len() as i64;
    let mut dims: Vec<usize> = match dims {
        Some(d) if !d.is_empty() => d
            .into_iter()
            .map(|d| if d < 0 { rank + d } else { d })
            .filter(|d| (0..rank).contains(d))
            .map(|d| d as usize)
            .collect(),
        _ => (0..shape.len()).collect(),
    };
    dims.sort_unstable();
    dims.dedup();
    let kept: Vec<i64> = shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (dims.contains(&i), keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if kept.is_empty() {
        1
    } else {
        prod(&kept)
    }
}

/// `aten::sum`, `mean`, `amax`, ... (see the module doc).
pub fn aten_reduce(op: &OpArgs, semantics: Semantics) -> Result<Perf, ModelError> {
    let first = op.dims_opt().and_then(|d| d.first());
    let Some(first) = first.filter(|v| !v.is_null()) else {
        let params = vec![
            param("num_input_elems", 0_i64),
            param("num_output_elems", 0_i64),
            (
                "dtype_in_out".into(),
                ParamValue::Tuple(vec![ParamValue::None, ParamValue::None]),
            ),
        ];
        return Ok(Perf::new(0.0, None, params).with_backward(Ok(Metrics {
            flops: 0.0,
            bytes: None,
        })));
    };
    let shape = match json_to_param(first) {
        ParamValue::List(items) => items
            .iter()
            .map(|v| match v {
                ParamValue::Int(d) => Ok(*d),
                other => Err(ModelError::Invalid(format!("Input Dims[0] holds {other}"))),
            })
            .collect::<Result<Vec<_>, _>>()?,
        other => return Err(ModelError::Invalid(format!("Input Dims[0] is {other}"))),
    };
    let shape = super::args::checked_shape(shape, "Input Dims[0]")?;
    let n_in = prod(&shape);
    let dtype_in = match op.types_opt().and_then(|t| t.first()) {
        Some(serde_json::Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let name = op.name;
    let n_out = if name.contains("cumsum") || name.contains("cumprod") {
        n_in
    } else if semantics.fixes(Fix::ReduceOutputSize) && op.has_tensor(1) {
        // `max(self, other)`/`min(self, other)` are elementwise: the broadcast shape.
        let other = op.shape(1)?;
        prod(&super::elementwise::broadcast_shape(&shape, &other)?)
    } else if semantics.fixes(Fix::ReduceOutputSize) {
        let (dim_at, keepdim_at) = dim_positions(name);
        let dims = parse_dims(op.ci_nonempty(dim_at));
        let keepdim = op
            .ci_nonempty(keepdim_at)
            .and_then(parse_py_literal)
            .is_some_and(|v| v == ParamValue::Bool(true));
        reduced_elems(&shape, dims, keepdim)
    } else {
        1
    };
    let reduce_type = ["mean", "max", "min", "norm"]
        .into_iter()
        .find(|t| name.contains(t))
        .unwrap_or("sum");
    let bpe = dtype_in
        .filter(|d| !d.is_empty())
        .and_then(dtype::bpe)
        .map(|b| b as i128);
    let bytes = bpe.map(|b| (n_in * b + n_out * b) as f64);
    let params = vec![
        param("num_input_elems", n_in as i64),
        param("num_output_elems", n_out as i64),
        (
            "dtype_in_out".into(),
            ParamValue::Tuple(vec![ParamValue::opt_str(dtype_in), ParamValue::None]),
        ),
        param("reduce_type", reduce_type),
    ];
    Ok(Perf::new(n_in as f64, bytes, params)
        .with_backward(Ok(Metrics {
            flops: n_in as f64,
            bytes,
        }))
        .with_compute_spec(compute_spec(Maf::Vector, dtype_in)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tests::{run, run_with};
    use crate::perf::Direction;

    fn mean(semantics: Semantics, ci: &str) -> Perf {
        run_with(
            "aten::mean",
            "[[16, 559, 1024], [], [], []]",
            r#"["float", "ScalarList", "Scalar", ""]"#,
            Some("[[572416, 1024, 1], [], [], []]"),
            ci,
            &[],
            semantics,
        )
        .unwrap()
    }

    #[test]
    fn reference_reduces_to_one_element() {
        let perf = mean(Semantics::TraceLens, r#"["", "[-1]", "True", ""]"#);
        let n = 16.0 * 559.0 * 1024.0;
        assert_eq!(perf.flops, n);
        assert_eq!(perf.bytes, Some(n * 4.0 + 4.0));
        assert_eq!(perf.bytes.unwrap() / 1048576.0, 34.937503814697266);
        assert_eq!(
            perf.params_repr(),
            "{'num_input_elems': 9158656, 'num_output_elems': 1, \
             'dtype_in_out': ('float', None), 'reduce_type': 'mean'}"
        );
        assert_eq!(perf.compute_spec.as_deref(), Some("vector_fp32"));
        let bwd = perf.metrics(Direction::Bwd).unwrap();
        assert_eq!((bwd.flops, bwd.bytes), (n, Some(n * 4.0 + 4.0)));
    }

    #[test]
    fn corrected_reads_dim_and_keepdim() {
        let n = 16.0 * 559.0 * 1024.0;
        // mean over the last dim, keepdim: (16, 559, 1).
        let perf = mean(Semantics::Corrected, r#"["", "[-1]", "True", ""]"#);
        assert_eq!(
            perf.param("num_output_elems"),
            Some(&ParamValue::Int(16 * 559))
        );
        assert_eq!(perf.bytes, Some(n * 4.0 + 16.0 * 559.0 * 4.0));
        // Two dims without keepdim: (1024,).
        let perf = mean(Semantics::Corrected, r#"["", "[0, 1]", "False", ""]"#);
        assert_eq!(perf.param("num_output_elems"), Some(&ParamValue::Int(1024)));
        // An empty dim list reduces everything.
        let perf = mean(Semantics::Corrected, r#"["", "[]", "False", ""]"#);
        assert_eq!(perf.param("num_output_elems"), Some(&ParamValue::Int(1)));
        // norm(self, p, dim, keepdim) reads dim at 2.
        let perf = run_with(
            "aten::norm",
            "[[8, 16], [], [], []]",
            r#"["float", "Scalar", "ScalarList", "Scalar"]"#,
            None,
            r#"["", "2", "[1]", "False"]"#,
            &[],
            Semantics::Corrected,
        )
        .unwrap();
        assert_eq!(perf.param("num_output_elems"), Some(&ParamValue::Int(8)));
        assert_eq!(perf.param("reduce_type").unwrap().py_str(), "norm");
        // max(self, other) is elementwise.
        let perf = run_with(
            "aten::max",
            "[[4, 1], [1, 3]]",
            r#"["float", "float"]"#,
            None,
            r#"["", ""]"#,
            &[],
            Semantics::Corrected,
        )
        .unwrap();
        assert_eq!(perf.param("num_output_elems"), Some(&ParamValue::Int(12)));
    }

    #[test]
    fn cumulative_and_missing_dims() {
        let perf = run(
            "aten::cumsum",
            "[[4, 5], [], []]",
            r#"["float", "Scalar", ""]"#,
            None,
            r#"["", "1", ""]"#,
            &[],
        )
        .unwrap();
        assert_eq!(perf.param("num_output_elems"), Some(&ParamValue::Int(20)));
        assert_eq!(perf.param("reduce_type").unwrap().py_str(), "sum");
        // A trace without args (HTA): zeros, no bytes, no reduce_type key.
        let perf = crate::perf::compute("aten::sum", &Default::default(), Semantics::TraceLens)
            .unwrap()
            .unwrap();
        assert_eq!(perf.flops, 0.0);
        assert_eq!(perf.bytes, None);
        assert_eq!(perf.compute_spec, None);
        assert_eq!(
            perf.params_repr(),
            "{'num_input_elems': 0, 'num_output_elems': 0, 'dtype_in_out': (None, None)}"
        );
        let perf = run(
            "aten::amax",
            "[[5184]]",
            r#"["float"]"#,
            None,
            r#"[""]"#,
            &[],
        )
        .unwrap();
        assert_eq!(perf.param("reduce_type").unwrap().py_str(), "max");
    }
}
