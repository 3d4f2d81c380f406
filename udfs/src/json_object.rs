//! `json_object(key1, value1, key2, value2, …)`: one JSON object per row.
//!
//! Why: the analyzer's rules report the numbers they used as a JSON text
//! (`metrics`). Building it by string concatenation in SQL leaves strings
//! unescaped (a quote in an op name breaks the JSON), turns the whole object NULL
//! when one value is NULL, and writes `NaN`/`inf`, which JSON has no words for.
//!
//! ```sql
//! SELECT json_object('idle_us', idle_time, 'total_us', total_time) FROM gpu_time_totals
//! -- {"idle_us":1520.5,"total_us":98000.0}
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

/// `json_object(key UTF8, value, …) -> UTF8`: `{"key":value,…}`, keys in argument
/// order, no spaces.
///
/// * Keys are any non-NULL text; keys and string values are escaped as JSON
///   strings (quotes, backslashes, control characters).
/// * Numbers are written as `CAST(x AS VARCHAR)` writes them (`1.5`, `2.0`, `7`),
///   so an object of plain numbers reads as the SQL's own text of them.
/// * NULL, NaN and ±infinity are written `null`; booleans `true` / `false`.
/// * Other value types (lists, structs, timestamps) are refused when planned.
/// * Never NULL itself: a row with NULL values still gives an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonObject {
    signature: Signature,
}

impl JsonObject {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for JsonObject {
    fn default() -> Self {
        Self::new()
    }
}

/// How a value column is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    /// JSON string, escaped.
    Text,
    /// Its SQL text, as is (integers, decimals, booleans).
    Literal,
    /// Its SQL text when finite, else `null`.
    Float,
    /// Always `null`.
    Null,
}

fn value_kind(t: &DataType) -> Option<ValueKind> {
    if *t == DataType::Null {
        return Some(ValueKind::Null);
    }
    if crate::is_text(t) {
        return Some(ValueKind::Text);
    }
    if t.is_floating() {
        return Some(ValueKind::Float);
    }
    if t.is_integer() || t.is_decimal() || *t == DataType::Boolean {
        return Some(ValueKind::Literal);
    }
    None
}

/// A JSON string literal of `s` (RFC 8259 escaping).
fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// One value column as JSON fragments, one per row.
fn fragments(values: &ArrayRef, kind: ValueKind) -> Result<Vec<Option<String>>> {
    let n = values.len();
    if kind == ValueKind::Null {
        return Ok(vec![None; n]);
    }
    let text = cast(values, &DataType::Utf8)?;
    let text: &StringArray = text.as_string::<i32>();
    let finite = match kind {
        ValueKind::Float => Some(cast(values, &DataType::Float64)?),
        _ => None,
    };
    let finite = finite.as_ref().map(|a| a.as_primitive::<Float64Type>());
    Ok((0..n)
        .map(|i| {
            if text.is_null(i) || finite.is_some_and(|f| !f.value(i).is_finite()) {
                return None;
            }
            Some(match kind {
                ValueKind::Text => json_string(text.value(i)),
                _ => text.value(i).to_string(),
            })
        })
        .collect())
}

impl ScalarUDFImpl for JsonObject {
    fn name(&self) -> &str {
        "json_object"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.is_empty() || arg_types.len() % 2 != 0 {
            return plan_err!(
                "json_object takes key, value pairs, got {} arguments",
                arg_types.len()
            );
        }
        for (i, pair) in arg_types.chunks(2).enumerate() {
            if !crate::is_text(&pair[0]) || pair[0] == DataType::Null {
                return plan_err!(
                    "json_object: key {} is {}, expected a string",
                    i + 1,
                    pair[0]
                );
            }
            if value_kind(&pair[1]).is_none() {
                return plan_err!(
                    "json_object: the value of key {} is {}, expected a string, number, \
                     boolean or NULL",
                    i + 1,
                    pair[1]
                );
            }
        }
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let mut keys = Vec::new();
        let mut values = Vec::new();
        for pair in args.args.chunks(2) {
            let key = cast(&pair[0].to_array(n)?, &DataType::Utf8)?;
            let key = key.as_string::<i32>();
            let key: Vec<String> = (0..n)
                .map(|i| match key.is_null(i) {
                    true => exec_err!("json_object: a key is NULL"),
                    false => Ok(json_string(key.value(i))),
                })
                .collect::<Result<_>>()?;
            keys.push(key);
            let value = pair[1].to_array(n)?;
            let Some(kind) = value_kind(value.data_type()) else {
                return exec_err!("json_object: cannot write a {} value", value.data_type());
            };
            values.push(fragments(&value, kind)?);
        }
        let mut out = StringBuilder::new();
        let mut row = String::new();
        for i in 0..n {
            row.clear();
            row.push('{');
            for (k, (key, value)) in keys.iter().zip(&values).enumerate() {
                if k > 0 {
                    row.push(',');
                }
                row.push_str(&key[i]);
                row.push(':');
                row.push_str(value[i].as_deref().unwrap_or("null"));
            }
            row.push('}');
            out.append_value(&row);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, f64_column, i64_column, run_sql, str_column, string_values};

    async fn one(sql: &str) -> Option<String> {
        let t = batch(vec![("x", i64_column(&[1]))]);
        string_values(&run_sql(vec![t], sql).await, "j")
            .pop()
            .expect("one row")
    }

    #[tokio::test]
    async fn numbers_read_as_their_sql_text() {
        let t = batch(vec![
            ("d", f64_column(&[1.5, 2.0, 1e20, 0.1 + 0.2])),
            ("i", i64_column(&[7, -3, 0, 12345678901])),
        ]);
        let sql = "SELECT json_object('d', d, 'i', i) AS j, \
                   '{\"d\":' || CAST(d AS VARCHAR) || ',\"i\":' || CAST(i AS VARCHAR) || '}' AS c \
                   FROM t";
        let out = run_sql(vec![t], sql).await;
        let (json, concat) = (string_values(&out, "j"), string_values(&out, "c"));
        assert_eq!(
            json, concat,
            "byte-identical to the concatenation it replaces"
        );
        assert_eq!(json[0].as_deref(), Some(r#"{"d":1.5,"i":7}"#));
        for text in json.iter().flatten() {
            serde_json::from_str::<serde_json::Value>(text).expect("valid JSON");
        }
    }

    #[tokio::test]
    async fn escapes_strings_and_keys() {
        let t = batch(vec![(
            "s",
            str_column(&[
                Some("plain"),
                Some("say \"hi\""),
                Some(r"C:\temp"),
                Some("tab\tnew\nline\u{1}"),
                Some("µs ✓"),
            ]),
        )]);
        let out = run_sql(vec![t], "SELECT json_object('k\"1', s) AS j FROM t").await;
        let got = string_values(&out, "j");
        let want = [
            r#"{"k\"1":"plain"}"#,
            r#"{"k\"1":"say \"hi\""}"#,
            r#"{"k\"1":"C:\\temp"}"#,
            r#"{"k\"1":"tab\tnew\nline\u0001"}"#,
            r#"{"k\"1":"µs ✓"}"#,
        ];
        assert_eq!(got, want.map(|w| Some(w.to_string())));
        let back: serde_json::Value =
            serde_json::from_str(got[3].as_deref().unwrap_or("")).expect("valid JSON");
        assert_eq!(back["k\"1"], "tab\tnew\nline\u{1}");
    }

    #[tokio::test]
    async fn nulls_and_non_finite_floats_are_null() {
        let t = batch(vec![(
            "d",
            f64_column(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
        )]);
        let sql =
            "SELECT json_object('d', d, 'n', CAST(NULL AS DOUBLE), 's', CAST(NULL AS VARCHAR), \
                   'u', NULL, 'b', d < 0) AS j FROM t";
        let got = string_values(&run_sql(vec![t], sql).await, "j");
        assert_eq!(
            got,
            [
                r#"{"d":null,"n":null,"s":null,"u":null,"b":false}"#,
                r#"{"d":null,"n":null,"s":null,"u":null,"b":false}"#,
                r#"{"d":null,"n":null,"s":null,"u":null,"b":true}"#,
            ]
            .map(|w| Some(w.to_string()))
        );
    }

    #[tokio::test]
    async fn refuses_odd_arguments_and_lists() {
        let ctx = datafusion::prelude::SessionContext::new();
        crate::register_all(&ctx);
        for (sql, want) in [
            ("SELECT json_object('a')", "key, value pairs"),
            ("SELECT json_object(1, 2)", "key 1 is Int64"),
            (
                "SELECT json_object('a', make_array(1, 2))",
                "expected a string, number",
            ),
        ] {
            let e = ctx.sql(sql).await.expect_err(sql).to_string();
            assert!(e.contains(want), "{sql}: {e}");
        }
        assert_eq!(
            one("SELECT json_object('a', 1, 'b', 'x') AS j")
                .await
                .as_deref(),
            Some(r#"{"a":1,"b":"x"}"#)
        );
    }
}
