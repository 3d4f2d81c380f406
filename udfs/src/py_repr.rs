//! `py_repr(json)`: the Python text of a JSON value, as TraceLens prints it.
//!
//! Why: ops_unique_args and the unified table group on `str(value)` of the op's
//! arguments, and print that text (spec §10.3). Lists there are tuples, so
//! `[[512], []]` must become `((512,), ())`. See [`crate::pyfmt::json_to_python_repr`]
//! for the exact rules.
//!
//! ```sql
//! SELECT py_repr(input_dims_json) AS "Input Dims" FROM launchers
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_datafusion_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::pyfmt::json_to_python_repr;

/// `py_repr(json UTF8) -> UTF8`.
///
/// * A NULL input prints as `None` (a missing argument is `None` in Python).
/// * Invalid JSON is an execution error naming the offending text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyRepr {
    signature: Signature,
}

impl PyRepr {
    pub fn new() -> Self {
        Self {
            signature: Signature::string(1, Volatility::Immutable),
        }
    }
}

impl Default for PyRepr {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PyRepr {
    fn name(&self) -> &str {
        "py_repr"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let input = args.args[0].to_array(args.number_rows)?;
        let input = cast(&input, &DataType::Utf8)?;
        let input = input.as_string::<i32>();
        let mut out = StringBuilder::with_capacity(input.len(), input.value_data().len() + 8);
        // Thousands of ops share a few dozen shapes: each distinct text is
        // converted once per batch.
        let mut converted: HashMap<&str, String> = HashMap::new();
        for json in input.iter() {
            let Some(json) = json else {
                out.append_value("None");
                continue;
            };
            if let Some(text) = converted.get(json) {
                out.append_value(text);
                continue;
            }
            let text = json_to_python_repr(json)
                .map_err(|e| exec_datafusion_err!("py_repr({}): {e}", crate::quoted_start(json)))?;
            out.append_value(&text);
            converted.insert(json, text);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, run_sql, str_column, string_values};

    #[tokio::test]
    async fn sql_renders_each_row() {
        let t = batch(vec![(
            "j",
            str_column(&[
                Some("[[512], [141, 512], [], []]"),
                Some(r#"["c10::BFloat16", null, "it's"]"#),
                Some("1.5e-5"),
                None,
                Some("[[512], [141, 512], [], []]"),
            ]),
        )]);
        let out = run_sql(vec![t], "SELECT py_repr(j) AS r FROM t").await;
        assert_eq!(
            string_values(&out, "r"),
            vec![
                Some("((512,), (141, 512), (), ())".into()),
                Some("('c10::BFloat16', None, \"it's\")".into()),
                Some("1.5e-05".into()),
                Some("None".into()),
                Some("((512,), (141, 512), (), ())".into()),
            ]
        );
    }

    #[tokio::test]
    async fn sql_literals_and_errors() {
        let t = batch(vec![("j", str_column(&[Some("[]")]))]);
        let out = run_sql(
            vec![t.clone()],
            "SELECT py_repr('{\"a\": [1]}') AS r, py_repr(NULL) AS n FROM t",
        )
        .await;
        assert_eq!(string_values(&out, "r"), vec![Some("{'a': (1,)}".into())]);
        assert_eq!(string_values(&out, "n"), vec![Some("None".into())]);

        let ctx = datafusion::prelude::SessionContext::new();
        crate::register_all(&ctx);
        // Constant folding may run the function while planning; either stage may fail.
        let result = match ctx.sql("SELECT py_repr('[1,')").await {
            Ok(df) => df.collect().await.map(|_| ()),
            Err(e) => Err(e),
        };
        let err = result.unwrap_err();
        assert!(err.to_string().contains("invalid JSON at byte"), "{err}");

        // A long value is shown by its start only.
        let long = format!("[{}", "1,".repeat(1000));
        let result = match ctx.sql(&format!("SELECT py_repr('{long}')")).await {
            Ok(df) => df.collect().await.map(|_| ()),
            Err(e) => Err(e),
        };
        let err = result.unwrap_err().to_string();
        assert!(
            err.contains(r#"py_repr("[1,1,1,"#) && err.len() < 300,
            "{err}"
        );
    }
}
