//! What a traced op gives a replay: its name and the four argument lists that
//! Kineto records with `record_shapes=True` (one entry per schema argument).

use serde_json::Value;

/// A traced op's name and argument lists. A list is None when the event lacks
/// its key (older PyTorch omits `Input Strides` or `Concrete Inputs`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpEvent {
    pub name: String,
    /// `Input type`: `c10::BFloat16`, `Scalar`, `ScalarList`, `TensorList`, `''`, ...
    pub types: Option<Vec<String>>,
    /// `Input Dims`: a shape per argument, nested for a TensorList.
    pub dims: Option<Vec<Value>>,
    /// `Input Strides`, laid out like `dims`.
    pub strides: Option<Vec<Value>>,
    /// `Concrete Inputs`: scalar values as PyTorch prints them, `''` otherwise.
    pub concrete: Option<Vec<String>>,
    /// Not from the event: the dtype (as the trace spells it) to assume for
    /// tensor lists, whose dtype Kineto does not record; the caller's guess,
    /// e.g. the trace's most common floating dtype. None: float32.
    pub list_dtype_hint: Option<String>,
}

impl OpEvent {
    /// From the JSON texts of the four lists (the `ops.*_json` columns; None
    /// where the event has no such key).
    pub fn from_json_texts(
        name: &str,
        types: Option<&str>,
        dims: Option<&str>,
        strides: Option<&str>,
        concrete: Option<&str>,
    ) -> OpEvent {
        OpEvent {
            name: name.to_string(),
            types: types.and_then(strings),
            dims: dims.and_then(values),
            strides: strides.and_then(values),
            concrete: concrete.and_then(strings),
            list_dtype_hint: None,
        }
    }

    /// From an event's `args` object (the conformance references' layout).
    pub fn from_args(name: &str, args: &Value) -> OpEvent {
        let list = |key: &str| args.get(key).and_then(Value::as_array).cloned();
        let texts =
            |key: &str| list(key).map(|items| items.iter().map(value_text).collect::<Vec<_>>());
        OpEvent {
            name: name.to_string(),
            types: texts("Input type"),
            dims: list("Input Dims"),
            strides: list("Input Strides"),
            concrete: texts("Concrete Inputs"),
            list_dtype_hint: None,
        }
    }

    /// The number of recorded arguments (the longest list).
    pub fn len(&self) -> usize {
        [
            self.types.as_ref().map_or(0, Vec::len),
            self.dims.as_ref().map_or(0, Vec::len),
            self.concrete.as_ref().map_or(0, Vec::len),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `Input type` of argument `i`, `''` when absent.
    pub fn ty(&self, i: usize) -> &str {
        self.types
            .as_ref()
            .and_then(|t| t.get(i))
            .map_or("", String::as_str)
    }

    /// `Concrete Inputs` of argument `i`, `''` when absent.
    pub fn concrete(&self, i: usize) -> &str {
        self.concrete
            .as_ref()
            .and_then(|c| c.get(i))
            .map_or("", String::as_str)
    }

    pub fn dims(&self, i: usize) -> Option<&Value> {
        self.dims.as_ref().and_then(|d| d.get(i))
    }

    pub fn strides(&self, i: usize) -> Option<&Value> {
        self.strides.as_ref().and_then(|d| d.get(i))
    }
}

fn strings(text: &str) -> Option<Vec<String>> {
    let items: Vec<Value> = serde_json::from_str(text).ok()?;
    Some(items.iter().map(value_text).collect())
}

fn values(text: &str) -> Option<Vec<Value>> {
    serde_json::from_str(text).ok()
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A flat shape or stride list (`[768, 1]`); None for anything else.
pub fn int_list(v: Option<&Value>) -> Option<Vec<i64>> {
    v?.as_array()?.iter().map(Value::as_i64).collect()
}

/// Python's `str.isdigit()` over ASCII: non-empty, all `0-9`.
pub fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

pub use tracesql_udfs::perf::args::py_float;

/// Python's `int(s)` as decimal digits with a sign, leading zeros dropped
/// (`'-007'` → `-7`); None where Python raises.
pub fn py_int_digits(s: &str) -> Option<String> {
    let t = s.trim();
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let plain: String = digits.chars().filter(|&c| c != '_').collect();
    if !is_digits(&plain)
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let trimmed = plain.trim_start_matches('0');
    let magnitude = if trimmed.is_empty() { "0" } else { trimmed };
    Some(if negative && magnitude != "0" {
        format!("-{magnitude}")
    } else {
        magnitude.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_number_parsing() {
        assert_eq!(py_float("1"), Some(1.0));
        assert_eq!(py_float(" 0. "), Some(0.0));
        assert_eq!(py_float("9.9999999999999998e-13"), Some(1e-12));
        assert_eq!(py_float("1_0"), Some(10.0));
        assert_eq!(py_float("-inf"), Some(f64::NEG_INFINITY));
        assert!(py_float("nan").unwrap().is_nan());
        assert_eq!(py_float("1__0"), None);
        assert_eq!(py_float("False"), None);
        assert_eq!(py_float(""), None);
        assert_eq!(py_int_digits("-007").as_deref(), Some("-7"));
        assert_eq!(
            py_int_digits("9223372036854775807").as_deref(),
            Some("9223372036854775807")
        );
        assert_eq!(py_int_digits("1.5"), None);
    }

    #[test]
    fn events_from_json_texts_and_args() {
        let e = OpEvent::from_json_texts(
            "aten::add",
            Some(r#"["float", "Scalar"]"#),
            Some("[[2, 3], []]"),
            None,
            Some(r#"["", "1"]"#),
        );
        assert_eq!((e.len(), e.ty(0), e.concrete(1)), (2, "float", "1"));
        assert!(e.strides.is_none());
        assert_eq!(int_list(e.dims(0)), Some(vec![2, 3]));
    }
}
