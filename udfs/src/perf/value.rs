//! [`ParamValue`]: one `param:` value of a perf model, as the Python value the
//! reference stores in `param_details`.
//!
//! Why a Python value model: the reference prints these values with `str()`
//! (perf-sheet `param:` cells) and `repr()` (inside the unified `perf_params` dict),
//! and groups rows on that text, so `(4, 197, 768)`, `('c10::BFloat16', None)`,
//! `[True, True, True]` and `768` vs `768.0` must come out exactly as Python writes
//! them. The same type doubles as the result of parsing a `Concrete Inputs` string
//! as a Python literal ([`super::args::parse_py_literal`]).

use std::fmt;

use crate::pyfmt::{python_float_repr, python_str_repr};

/// A Python value: what `param_details` holds.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A Python tuple: `(4, 197, 768)`, `(512,)`, `()`.
    Tuple(Vec<ParamValue>),
    /// A Python list: `[True, True, True]`, `[]`.
    List(Vec<ParamValue>),
}

impl ParamValue {
    /// A tuple of ints, e.g. a shape or a stride.
    pub fn int_tuple(values: &[i64]) -> Self {
        ParamValue::Tuple(values.iter().map(|&v| ParamValue::Int(v)).collect())
    }

    /// A string, or `None` for a missing one (e.g. an absent output dtype).
    pub fn opt_str(value: Option<&str>) -> Self {
        value.map_or(ParamValue::None, |s| ParamValue::Str(s.to_string()))
    }

    /// Python's `repr(value)`: strings quoted, as inside a dict or tuple.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    /// Python's `str(value)`: like [`Self::repr`] except that a top-level string is
    /// printed without quotes (`conv2d`, not `'conv2d'`). This is the text of a
    /// perf-sheet `param:` cell whose column holds objects.
    pub fn py_str(&self) -> String {
        match self {
            ParamValue::Str(s) => s.clone(),
            other => other.repr(),
        }
    }

    /// The Python type name: `NoneType`, `bool`, `int`, `float`, `str`, `tuple`,
    /// `list`. pandas infers a `param:` column's dtype from these (§10.4): all
    /// `int` → int64, `int`/`float` mixed → float64 (`768` prints `768.0`).
    pub fn kind(&self) -> &'static str {
        match self {
            ParamValue::None => "NoneType",
            ParamValue::Bool(_) => "bool",
            ParamValue::Int(_) => "int",
            ParamValue::Float(_) => "float",
            ParamValue::Str(_) => "str",
            ParamValue::Tuple(_) => "tuple",
            ParamValue::List(_) => "list",
        }
    }

    /// Python truthiness: `0`, `0.0`, `''`, `()`, `[]`, `None` and `False` are false.
    pub fn truthy(&self) -> bool {
        match self {
            ParamValue::None => false,
            ParamValue::Bool(b) => *b,
            ParamValue::Int(i) => *i != 0,
            ParamValue::Float(f) => *f != 0.0,
            ParamValue::Str(s) => !s.is_empty(),
            ParamValue::Tuple(v) | ParamValue::List(v) => !v.is_empty(),
        }
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            ParamValue::None => out.push_str("None"),
            ParamValue::Bool(true) => out.push_str("True"),
            ParamValue::Bool(false) => out.push_str("False"),
            ParamValue::Int(i) => out.push_str(&i.to_string()),
            ParamValue::Float(f) => out.push_str(&python_float_repr(*f)),
            ParamValue::Str(s) => out.push_str(&python_str_repr(s)),
            ParamValue::Tuple(items) => {
                out.push('(');
                write_items(out, items);
                if items.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            ParamValue::List(items) => {
                out.push('[');
                write_items(out, items);
                out.push(']');
            }
        }
    }
}

fn write_items(out: &mut String, items: &[ParamValue]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_repr(out);
    }
}

impl fmt::Display for ParamValue {
    /// Same as [`ParamValue::repr`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

impl From<bool> for ParamValue {
    fn from(b: bool) -> Self {
        ParamValue::Bool(b)
    }
}

impl From<i64> for ParamValue {
    fn from(i: i64) -> Self {
        ParamValue::Int(i)
    }
}

impl From<f64> for ParamValue {
    fn from(f: f64) -> Self {
        ParamValue::Float(f)
    }
}

impl From<&str> for ParamValue {
    fn from(s: &str) -> Self {
        ParamValue::Str(s.to_string())
    }
}

impl From<String> for ParamValue {
    fn from(s: String) -> Self {
        ParamValue::Str(s)
    }
}

impl<T: Into<ParamValue>> From<Option<T>> for ParamValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(ParamValue::None, Into::into)
    }
}

/// Renders ordered params as a Python dict: `{'M': 141, 'bias': True}`.
pub fn params_dict_repr(params: &[(String, ParamValue)]) -> String {
    let mut out = String::from("{");
    for (i, (key, value)) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&python_str_repr(key));
        out.push_str(": ");
        value.write_repr(&mut out);
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_like_python() {
        assert_eq!(
            ParamValue::int_tuple(&[4, 197, 768]).repr(),
            "(4, 197, 768)"
        );
        assert_eq!(ParamValue::int_tuple(&[512]).repr(), "(512,)");
        assert_eq!(ParamValue::int_tuple(&[]).repr(), "()");
        let dtypes = ParamValue::Tuple(vec!["c10::BFloat16".into(), ParamValue::None]);
        assert_eq!(dtypes.repr(), "('c10::BFloat16', None)");
        let mask = ParamValue::List(vec![true.into(), true.into(), false.into()]);
        assert_eq!(mask.repr(), "[True, True, False]");
        assert_eq!(ParamValue::List(vec![]).repr(), "[]");
        assert_eq!(ParamValue::Float(0.0).repr(), "0.0");
        assert_eq!(ParamValue::Float(4.0).repr(), "4.0");
        assert_eq!(ParamValue::Int(768).repr(), "768");
        assert_eq!(ParamValue::from("conv2d").repr(), "'conv2d'");
        assert_eq!(ParamValue::from("conv2d").py_str(), "conv2d");
        assert_eq!(dtypes.py_str(), "('c10::BFloat16', None)");
    }

    #[test]
    fn dicts_keep_key_order() {
        let params = vec![
            ("M".to_string(), ParamValue::Int(141)),
            ("bias".to_string(), ParamValue::Bool(true)),
            (
                "fused_ops".to_string(),
                ParamValue::from("aten.add, aten.mul"),
            ),
        ];
        assert_eq!(
            params_dict_repr(&params),
            "{'M': 141, 'bias': True, 'fused_ops': 'aten.add, aten.mul'}"
        );
    }
}
