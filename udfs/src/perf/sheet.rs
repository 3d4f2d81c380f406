//! SQL helpers for the perf-metric sheets (spec §8.5): reading one `param:` value
//! out of `op_perf`'s params list, listing its keys, and printing the raw trace
//! args the way the sheets do.
//!
//! ```sql
//! SELECT name,
//!        perf_param(op_perf(name, dims, types, strides, concrete)['params'], 'M') AS "param: M",
//!        perf_param_keys(op_perf(name, dims, types, strides, concrete)['params']) AS keys,
//!        py_json(dims) AS "Input Dims_first"
//! FROM ops
//! ```
//!
//! | function | returns |
//! |---|---|
//! | `perf_param(params, key UTF8)` | `UTF8` the param's `py_str` (its sheet cell), NULL if absent |
//! | `perf_param_keys(params [, prefix UTF8])` | `LIST<UTF8>` the keys in the model's order, each after `prefix` |
//! | `py_json(json UTF8)` | `UTF8` Python `str()` of the JSON value, lists kept as lists |

use std::fmt::Write as _;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListBuilder, StringArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_datafusion_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use serde_json::Value;

use crate::nested::{coerce_list_of_structs, list_of_structs, required_child};
use crate::pyfmt::{python_float_repr, python_str_repr};

/// Registers `perf_param`, `perf_param_keys` and `py_json` with `ctx`.
pub fn register(ctx: &datafusion::prelude::SessionContext) {
    use datafusion::logical_expr::ScalarUDF;
    ctx.register_udf(ScalarUDF::from(PerfParamUdf::new(ParamOutput::Value)));
    ctx.register_udf(ScalarUDF::from(PerfParamUdf::new(ParamOutput::Keys)));
    ctx.register_udf(ScalarUDF::from(PyJsonUdf::new()));
}

fn as_utf8(array: &ArrayRef) -> Result<StringArray> {
    Ok(cast(array, &DataType::Utf8)?.as_string::<i32>().clone())
}

/// Which params helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamOutput {
    /// `perf_param(params, key)`: one value.
    Value,
    /// `perf_param_keys(params)`: the keys.
    Keys,
}

/// `perf_param(params LIST<STRUCT<key, py_str, …>>, key UTF8) -> UTF8` and
/// `perf_param_keys(params [, prefix UTF8]) -> LIST<UTF8>`, over the `params` field of
/// [`op_perf`](super::udf::OpPerfUdf).
///
/// * `perf_param` gives the `py_str` of the first entry named `key`: what a
///   perf-sheet `param: <key>` cell prints (`141`, `True`, `(512, 1)`,
///   `('c10::BFloat16', None)`, `conv2d`). NULL when `params` is NULL or has no
///   such key, or `key` is NULL.
/// * `perf_param_keys` gives the keys in the model's order (the reference's
///   `param_details` order), each prefixed with `prefix` when given (e.g.
///   `'param: '`, making them sheet column names); NULL for NULL params.
/// * The structs are matched by field name (`key`, and `py_str` for
///   `perf_param`); other fields are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PerfParamUdf {
    output: ParamOutput,
    signature: Signature,
}

impl PerfParamUdf {
    pub fn new(output: ParamOutput) -> Self {
        Self {
            output,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }

    fn required(&self) -> &'static [&'static str] {
        match self.output {
            ParamOutput::Value => &["key", "py_str"],
            ParamOutput::Keys => &["key"],
        }
    }
}

impl ScalarUDFImpl for PerfParamUdf {
    fn name(&self) -> &str {
        match self.output {
            ParamOutput::Value => "perf_param",
            ParamOutput::Keys => "perf_param_keys",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name();
        let arity_ok = match self.output {
            ParamOutput::Value => arg_types.len() == 2,
            ParamOutput::Keys => matches!(arg_types.len(), 1 | 2),
        };
        if !arity_ok {
            let expected = match self.output {
                ParamOutput::Value => "(params, key)",
                ParamOutput::Keys => "(params [, prefix])",
            };
            return plan_err!("{name} takes {expected}, got {} arguments", arg_types.len());
        }
        let params = match &arg_types[0] {
            DataType::Null => {
                DataType::new_list(DataType::Struct(super::udf::param_fields()), true)
            }
            t => coerce_list_of_structs(name, t, self.required())?,
        };
        let mut out = vec![params];
        if let Some(second) = arg_types.get(1) {
            match second {
                t if crate::is_text(t) => out.push(DataType::Utf8),
                other => return plan_err!("{name}: argument 2 must be a string, got {other}"),
            }
        }
        Ok(out)
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.output {
            ParamOutput::Value => DataType::Utf8,
            ParamOutput::Keys => DataType::new_list(DataType::Utf8, true),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let name = self.name();
        let params = args.args[0].to_array(rows)?;
        let (lists, structs) = list_of_structs(name, &params)?;
        let keys = required_child(name, structs, "key", &DataType::Utf8)?;
        let keys = keys.as_string::<i32>();
        let offsets = lists.value_offsets();
        let entries = |row: usize| offsets[row] as usize..offsets[row + 1] as usize;
        match self.output {
            ParamOutput::Value => {
                let values = required_child(name, structs, "py_str", &DataType::Utf8)?;
                let values = values.as_string::<i32>();
                let wanted = as_utf8(&args.args[1].to_array(rows)?)?;
                let mut out = StringBuilder::with_capacity(rows, rows * 8);
                for row in 0..rows {
                    let found = (lists.is_valid(row) && wanted.is_valid(row))
                        .then(|| {
                            entries(row)
                                .find(|&j| keys.is_valid(j) && keys.value(j) == wanted.value(row))
                        })
                        .flatten();
                    match found {
                        Some(j) if values.is_valid(j) => out.append_value(values.value(j)),
                        _ => out.append_null(),
                    }
                }
                Ok(ColumnarValue::Array(Arc::new(out.finish())))
            }
            ParamOutput::Keys => {
                let prefixes = match args.args.get(1) {
                    Some(p) => Some(as_utf8(&p.to_array(rows)?)?),
                    None => None,
                };
                let mut out = ListBuilder::new(StringBuilder::new());
                for row in 0..rows {
                    if !lists.is_valid(row) {
                        out.append_null();
                        continue;
                    }
                    let prefix = prefixes
                        .as_ref()
                        .filter(|p| p.is_valid(row))
                        .map_or("", |p| p.value(row));
                    for j in entries(row) {
                        out.values().append_option(
                            keys.is_valid(j)
                                .then(|| format!("{prefix}{}", keys.value(j))),
                        );
                    }
                    out.append(true);
                }
                Ok(ColumnarValue::Array(Arc::new(out.finish())))
            }
        }
    }
}

/// Python's `str(json.loads(text))`: lists stay lists (`[[512], [141, 512]]`),
/// strings are quoted inside containers (`['c10::BFloat16', 'Scalar']`), a
/// top-level string prints bare, `null`/`true`/`false` are `None`/`True`/`False`,
/// integers keep their digits and other numbers print as Python floats. This is
/// how the perf sheets print the raw `Input Dims`, `Input type`, `Input Strides`
/// and `Concrete Inputs` args (spec §8.5), where ops_unique_args prints tuples
/// ([`crate::pyfmt::json_to_python_repr`]).
pub fn json_to_python_str(json: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| format!("invalid JSON: {e}"))?;
    Ok(match &value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::with_capacity(json.len() + 8);
            write_python_repr(other, &mut out);
            out
        }
    })
}

fn write_python_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            write!(out, "{n}").expect("String write");
        }
        Value::Number(n) => out.push_str(&python_float_repr(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => out.push_str(&python_str_repr(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_python_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&python_str_repr(key));
                out.push_str(": ");
                write_python_repr(item, out);
            }
            out.push('}');
        }
    }
}

/// `py_json(json UTF8) -> UTF8`: [`json_to_python_str`]. NULL stays NULL (an
/// absent arg is an empty cell); invalid JSON is an execution error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyJsonUdf {
    signature: Signature,
}

impl PyJsonUdf {
    pub fn new() -> Self {
        Self {
            signature: Signature::string(1, Volatility::Immutable),
        }
    }
}

impl Default for PyJsonUdf {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PyJsonUdf {
    fn name(&self) -> &str {
        "py_json"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let input = as_utf8(&args.args[0].to_array(args.number_rows)?)?;
        let mut out = StringBuilder::with_capacity(input.len(), input.value_data().len() + 8);
        for json in input.iter() {
            match json {
                None => out.append_null(),
                Some(json) => out.append_value(
                    json_to_python_str(json)
                        .map_err(|e| exec_datafusion_err!("py_json({json:?}): {e}"))?,
                ),
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, run_sql, str_column, string_values};

    #[test]
    fn python_str_of_json() {
        let cases = [
            (
                "[[512], [141, 512], [512, 512], [], []]",
                "[[512], [141, 512], [512, 512], [], []]",
            ),
            (
                r#"["c10::BFloat16", "Scalar", "", "it's"]"#,
                r#"['c10::BFloat16', 'Scalar', '', "it's"]"#,
            ),
            (
                r#"["", "1", "[14, 14]", "False"]"#,
                "['', '1', '[14, 14]', 'False']",
            ),
            (
                "[null, true, false, 0.5, 1e-05, 12345678901234567890]",
                "[None, True, False, 0.5, 1e-05, 12345678901234567890]",
            ),
            (r#""conv2d""#, "conv2d"),
            ("7", "7"),
        ];
        for (json, python) in cases {
            assert_eq!(json_to_python_str(json).unwrap(), python, "{json}");
        }
        assert!(json_to_python_str("[1,").is_err());
    }

    #[tokio::test]
    async fn perf_param_reads_one_value() {
        let t = batch(vec![
            (
                "name",
                str_column(&[Some("aten::addmm"), Some("aten::gelu"), Some("aten::mm")]),
            ),
            (
                "dims",
                str_column(&[
                    Some("[[512], [141, 512], [512, 512], [], []]"),
                    Some("[[4, 8]]"),
                    Some("[[4, 8]]"),
                ]),
            ),
            (
                "types",
                str_column(&[
                    Some(
                        r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]"#,
                    ),
                    Some(r#"["float"]"#),
                    Some(r#"["float"]"#),
                ]),
            ),
            (
                "strides",
                str_column(&[Some("[[1], [512, 1], [1, 512], [], []]"), None, None]),
            ),
            (
                "ci",
                str_column(&[
                    Some(r#"["", "", "", "1", "1"]"#),
                    Some(r#"[""]"#),
                    Some(r#"[""]"#),
                ]),
            ),
        ]);
        let out = run_sql(
            vec![t],
            "SELECT perf_param(p, 'M') AS m,
                    perf_param(p, 'dtype_A_B') AS dtypes,
                    perf_param(p, 'bias') AS bias,
                    perf_param(p, 'transpose') AS transpose,
                    perf_param(p, NULL) AS nothing,
                    array_to_string(perf_param_keys(p), ',') AS keys,
                    array_to_string(perf_param_keys(p, 'param: '), ',') AS columns,
                    py_json(dims) AS dims_text,
                    py_json(strides) AS strides_text
             FROM (SELECT op_perf(name, dims, types, strides, ci)['params'] AS p, dims, strides FROM t)",
        )
        .await;
        assert_eq!(
            string_values(&out, "m"),
            vec![Some("141".into()), None, None]
        );
        assert_eq!(
            string_values(&out, "dtypes")[0].as_deref(),
            Some("('c10::BFloat16', 'c10::BFloat16')")
        );
        assert_eq!(string_values(&out, "bias")[0].as_deref(), Some("True"));
        // No kernel name parsed: no transpose key. aten::gelu has no model and
        // aten::mm fails on a 1-input Input Dims: NULL params.
        assert_eq!(string_values(&out, "transpose"), vec![None, None, None]);
        assert_eq!(string_values(&out, "nothing"), vec![None, None, None]);
        assert_eq!(
            string_values(&out, "keys")[0].as_deref(),
            Some("M,N,K,bias,stride_A,stride_B,dtype_A_B,B")
        );
        assert_eq!(string_values(&out, "keys")[1], None);
        assert!(string_values(&out, "columns")[0]
            .as_deref()
            .unwrap()
            .starts_with("param: M,param: N,"));
        assert_eq!(
            string_values(&out, "dims_text")[0].as_deref(),
            Some("[[512], [141, 512], [512, 512], [], []]")
        );
        assert_eq!(string_values(&out, "strides_text")[1], None);
    }
}
