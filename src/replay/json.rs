//! JSON with its key order kept, written two ways: as Python's `json.dump`
//! writes it (TraceLens's IR files: float repr, `-Infinity`, unbounded ints)
//! and as strict JSON (the native IR: non-finite floats as strings).
//!
//! Why not serde_json's `Value`: its objects sort their keys (the crate is
//! built without `preserve_order`), and the compat IR must equal TraceLens's
//! file byte for byte, key order and float spelling included.

use std::fmt::Write;

use tracesql_udfs::python_float_repr;

/// A JSON value whose objects keep their insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// An integer as its decimal digits (Python ints are unbounded).
    Int(String),
    Float(f64),
    Str(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn int(v: i64) -> Json {
        Json::Int(v.to_string())
    }

    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    pub fn ints(values: &[i64]) -> Json {
        Json::List(values.iter().map(|&v| Json::int(v)).collect())
    }

    /// An object from `(key, value)` pairs, in that order.
    pub fn object<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// Appends `key: value` to an object (no-op on other values).
    pub fn push(&mut self, key: &str, value: Json) {
        if let Json::Object(pairs) = self {
            pairs.push((key.to_string(), value));
        }
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// From a serde_json value (objects in serde_json's order).
    pub fn from_serde(value: &serde_json::Value) -> Json {
        use serde_json::Value;
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) if n.is_i64() || n.is_u64() => Json::Int(n.to_string()),
            Value::Number(n) => Json::Float(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Json::Str(s.clone()),
            Value::Array(items) => Json::List(items.iter().map(Json::from_serde).collect()),
            Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Json::from_serde(v)))
                    .collect(),
            ),
        }
    }
}

/// How a document is spelled.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// `Some(n)`: one item per line, indented by n spaces per level
    /// (`json.dump(indent=n)`); None: one line with `, ` and `: ` separators
    /// (`json.dumps` defaults).
    pub indent: Option<usize>,
    /// Non-finite floats as Python writes them (`-Infinity`, `NaN`; not
    /// valid JSON), else as strings (`"-inf"`, `"nan"`).
    pub python_non_finite: bool,
}

impl Style {
    /// TraceLens's IR files: `json.dump(obj, f, indent=4)`.
    pub const PYTHON_INDENT4: Style = Style {
        indent: Some(4),
        python_non_finite: true,
    };
    /// Strict JSON, two-space indent: the native IR.
    pub const STRICT: Style = Style {
        indent: Some(2),
        python_non_finite: false,
    };
    /// Strict JSON on one line (SQL cells).
    pub const STRICT_LINE: Style = Style {
        indent: None,
        python_non_finite: false,
    };
}

/// `value` written in `style`.
pub fn to_string(value: &Json, style: Style) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, 0);
    out
}

fn write_value(out: &mut String, value: &Json, style: Style, level: usize) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(digits) => out.push_str(digits),
        Json::Float(x) => write_float(out, *x, style),
        Json::Str(s) => write_str(out, s),
        Json::List(items) => write_seq(out, '[', ']', items.len(), style, level, |out, i| {
            write_value(out, &items[i], style, level + 1)
        }),
        Json::Object(pairs) => write_seq(out, '{', '}', pairs.len(), style, level, |out, i| {
            write_str(out, &pairs[i].0);
            out.push_str(": ");
            write_value(out, &pairs[i].1, style, level + 1);
        }),
    }
}

/// Python's layout: empty containers as `[]`/`{}`; with an indent, each item
/// on its own line and `,` at line ends; without, `, ` between items.
fn write_seq(
    out: &mut String,
    open: char,
    close: char,
    len: usize,
    style: Style,
    level: usize,
    mut item: impl FnMut(&mut String, usize),
) {
    out.push(open);
    if len == 0 {
        out.push(close);
        return;
    }
    for i in 0..len {
        match style.indent {
            Some(n) => {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', n * (level + 1)));
            }
            None if i > 0 => out.push_str(", "),
            None => {}
        }
        item(out, i);
    }
    if let Some(n) = style.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n * level));
    }
    out.push(close);
}

fn write_float(out: &mut String, x: f64, style: Style) {
    if x.is_finite() {
        out.push_str(&python_float_repr(x));
        return;
    }
    let (python, text) = match (x.is_nan(), x > 0.0) {
        (true, _) => ("NaN", "nan"),
        (false, true) => ("Infinity", "inf"),
        (false, false) => ("-Infinity", "-inf"),
    };
    if style.python_non_finite {
        out.push_str(python);
    } else {
        write_str(out, text);
    }
}

/// A string as Python's json writes it with `ensure_ascii=True`.
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_layouts() {
        let v = Json::object([
            (
                "a",
                Json::List(vec![Json::Float(1.0), Json::Float(f64::NEG_INFINITY)]),
            ),
            ("b", Json::List(vec![])),
            ("c", Json::Int("9223372036854775807".into())),
        ]);
        assert_eq!(
            to_string(&v, Style::PYTHON_INDENT4),
            "{\n    \"a\": [\n        1.0,\n        -Infinity\n    ],\n    \"b\": [],\n    \"c\": 9223372036854775807\n}"
        );
        assert_eq!(
            to_string(&v, Style::STRICT_LINE),
            "{\"a\": [1.0, \"-inf\"], \"b\": [], \"c\": 9223372036854775807}"
        );
        assert_eq!(
            to_string(&Json::str("é\"x"), Style::STRICT_LINE),
            "\"\\u00e9\\\"x\""
        );
    }
}
