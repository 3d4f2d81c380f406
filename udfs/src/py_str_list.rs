//! `py_str_list(list)`: a list of strings printed as a Python list.
//!
//! Why: some reference cells hold Python lists of names, e.g. the categories of a
//! unified row, printed by pandas as `['GEMM', 'other']`.
//!
//! ```sql
//! SELECT py_str_list(array_agg(DISTINCT category ORDER BY category)) FROM ops
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::pyfmt::python_str_repr;

/// `py_str_list(LIST<UTF8>) -> UTF8`: `['GEMM']`, `['GEMM', 'other']`, `[]`.
///
/// * Elements are quoted like Python's `repr(str)`; a NULL element prints `None`.
/// * A NULL list gives NULL.
/// * Any string flavour (`Utf8`, `Utf8View`, `LargeUtf8`) and `LargeList` are accepted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyStrList {
    signature: Signature,
}

impl PyStrList {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for PyStrList {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PyStrList {
    fn name(&self) -> &str {
        "py_str_list"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [arg] = arg_types else {
            return plan_err!("py_str_list takes 1 argument, got {}", arg_types.len());
        };
        let item = match arg {
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => f,
            DataType::Null => return Ok(vec![DataType::new_list(DataType::Utf8, true)]),
            other => return plan_err!("py_str_list expects a LIST of strings, got {other}"),
        };
        match item.data_type() {
            t if crate::is_text(t) => Ok(vec![DataType::new_list(DataType::Utf8, true)]),
            other => plan_err!("py_str_list expects a LIST of strings, got a LIST of {other}"),
        }
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let input = args.args[0].to_array(args.number_rows)?;
        let Some(lists) = input.as_list_opt::<i32>() else {
            return exec_err!(
                "py_str_list expects a LIST of strings, got {}",
                input.data_type()
            );
        };
        let items = cast(lists.values(), &DataType::Utf8)?;
        let items = items.as_string::<i32>();
        let offsets = lists.value_offsets();
        let mut out = StringBuilder::new();
        for row in 0..lists.len() {
            if lists.is_null(row) {
                out.append_null();
                continue;
            }
            let range = offsets[row] as usize..offsets[row + 1] as usize;
            let rendered: Vec<String> = range
                .map(|j| {
                    if items.is_null(j) {
                        "None".to_string()
                    } else {
                        python_str_repr(items.value(j))
                    }
                })
                .collect();
            out.append_value(format!("[{}]", rendered.join(", ")));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, i64_column, run_sql, str_column, string_values};

    #[tokio::test]
    async fn sql_renders_python_lists() {
        let t = batch(vec![
            ("g", i64_column(&[1, 2, 2, 3])),
            (
                "c",
                str_column(&[Some("GEMM"), Some("other"), Some("GEMM"), Some("it's")]),
            ),
        ]);
        let sql = "SELECT g, py_str_list(array_agg(c ORDER BY c)) AS l FROM t GROUP BY g \
                   UNION ALL SELECT 4, py_str_list(make_array()) \
                   UNION ALL SELECT 5, py_str_list(CAST(NULL AS VARCHAR[])) \
                   ORDER BY g";
        let out = run_sql(vec![t], sql).await;
        assert_eq!(
            string_values(&out, "l"),
            vec![
                Some("['GEMM']".into()),
                Some("['GEMM', 'other']".into()),
                Some("[\"it's\"]".into()),
                Some("[]".into()),
                None,
            ]
        );
    }
}
