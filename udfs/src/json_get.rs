//! `json_get_float(json, key)`, `json_get_int(json, key)`, `json_get_str(json,
//! key)`: one top-level field of a JSON object held as text.
//!
//! Why: `events.args` keeps each event's args object as written, because its
//! keys vary by event kind and profiler version (a `[memory]` instant has
//! `Bytes`, `Total Allocated`, `Device Id`; a copy has `memory bandwidth (GB/s)`).
//! A report that needs one of them reads it by name rather than each key
//! becoming a column of every event:
//!
//! ```sql
//! SELECT ts, json_get_int(args, 'Total Allocated') AS allocated
//! FROM events WHERE name = '[memory]'
//! ```
//!
//! The names and behaviour follow datafusion-functions-json's functions of the
//! same names (NULL when the text is no object, the key is absent or the value
//! is of another kind), which users may know; this crate keeps to the three a
//! trace's args need. Numbers convert: an integer reads as a float, a float
//! with no fraction as an integer.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, StringBuilder,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use serde_json::Value;

/// What a `json_get_*` function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonKind {
    Float,
    Int,
    Str,
}

/// `json_get_<kind>(json UTF8, key UTF8)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonGet {
    kind: JsonKind,
    name: &'static str,
    signature: Signature,
}

impl JsonGet {
    pub fn new(kind: JsonKind) -> Self {
        let name = match kind {
            JsonKind::Float => "json_get_float",
            JsonKind::Int => "json_get_int",
            JsonKind::Str => "json_get_str",
        };
        Self {
            kind,
            name,
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

/// The field `key` of the object `text`, when `text` is one.
fn field(text: &str, key: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(mut map) => map.remove(key),
        _ => None,
    }
}

fn as_int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

impl ScalarUDFImpl for JsonGet {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 2 || !arg_types.iter().all(crate::is_text) {
            return exec_err!("{}(json, key) takes two texts", self.name);
        }
        Ok(vec![DataType::Utf8, DataType::Utf8])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            JsonKind::Float => DataType::Float64,
            JsonKind::Int => DataType::Int64,
            JsonKind::Str => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let [json, key] = arrays.as_slice() else {
            return exec_err!("{}(json, key) takes two arguments", self.name);
        };
        let json = cast(json, &DataType::Utf8)?;
        let key = cast(key, &DataType::Utf8)?;
        let (json, key) = (json.as_string::<i32>(), key.as_string::<i32>());
        let value = |i: usize| -> Option<Value> {
            if json.is_null(i) || key.is_null(i) {
                return None;
            }
            field(json.value(i), key.value(i))
        };
        let out: ArrayRef = match self.kind {
            JsonKind::Float => {
                let mut b = Float64Builder::with_capacity(rows);
                (0..rows).for_each(|i| b.append_option(value(i).and_then(|v| v.as_f64())));
                Arc::new(b.finish())
            }
            JsonKind::Int => {
                let mut b = Int64Builder::with_capacity(rows);
                (0..rows).for_each(|i| b.append_option(value(i).as_ref().and_then(as_int)));
                Arc::new(b.finish())
            }
            JsonKind::Str => {
                let mut b = StringBuilder::with_capacity(rows, rows * 8);
                (0..rows).for_each(|i| {
                    b.append_option(value(i).and_then(|v| v.as_str().map(str::to_string)))
                });
                Arc::new(b.finish())
            }
        };
        Ok(ColumnarValue::Array(out))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::prelude::SessionContext;

    async fn one(sql: &str) -> String {
        let ctx = SessionContext::new();
        crate::register_all(&ctx);
        let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        datafusion::arrow::util::pretty::pretty_format_batches(&batches)
            .unwrap()
            .to_string()
    }

    #[tokio::test]
    async fn reads_fields_by_kind() {
        let args = r#"'{"Bytes": -512, "Total Allocated": 9437184, "bw": 1.5, "Device Type": 1, "name": "x"}'"#;
        let out = one(&format!(
            "SELECT json_get_int({args}, 'Bytes') a, json_get_float({args}, 'bw') b, \
             json_get_float({args}, 'Total Allocated') c, json_get_str({args}, 'name') d, \
             json_get_int({args}, 'bw') e, json_get_str({args}, 'Bytes') f, \
             json_get_int({args}, 'missing') g, json_get_int('not json', 'Bytes') h"
        ))
        .await;
        let row = out.lines().nth(3).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(
            cells[1..9],
            ["-512", "1.5", "9437184.0", "x", "", "", "", ""],
            "{out}"
        );
    }
}
