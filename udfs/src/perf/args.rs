//! Reading an op's trace arguments the way the reference's models index them.
//!
//! PyTorch's profiler records four parallel lists per cpu_op: `Input Dims` (one
//! shape per argument, `[]` for non-tensors), `Input type` (dtype strings, or
//! `Scalar`, `ScalarList`, `''`), `Input Strides`, and `Concrete Inputs` (the
//! *string* form of every scalar argument: `"[16, 16]"`, `"False"`, `"0."`, `""`
//! for tensors). A model reads fixed positions of these lists.
//!
//! Every way the reference's Python can fail on them (a missing key, an index out
//! of range, `int("")`, `literal_eval` of garbage) is a [`ModelError::Invalid`]
//! here: the reference catches all of them alike and skips the instance.
//! The helpers at the bottom reproduce the Python conversions the models apply to
//! `Concrete Inputs` strings: `float()`, `int()`, `ast.literal_eval`, `eval` of a
//! bool, and conv's `str_to_tuple`.

use serde_json::Value;

use super::value::ParamValue;
use super::ModelError;

/// The raw JSON texts of one op instance, exactly as stored in the trace args;
/// any may be missing (NULL).
#[derive(Debug, Clone, Copy, Default)]
pub struct RawArgs<'a> {
    /// `Input Dims`, e.g. `[[141, 512], [512, 512]]`.
    pub input_dims: Option<&'a str>,
    /// `Input type`, e.g. `["c10::BFloat16", "c10::BFloat16"]`.
    pub input_types: Option<&'a str>,
    /// `Input Strides`, e.g. `[[512, 1], [1, 512]]`.
    pub input_strides: Option<&'a str>,
    /// `Concrete Inputs`, e.g. `["", "", "1", "1"]`.
    pub concrete_inputs: Option<&'a str>,
    /// Names of the op's kernels in launch (ts) order; GEMM models read the
    /// transpose flags from the first name that parses (§7.4).
    pub kernel_names: &'a [&'a str],
}

/// One op instance, parsed: its name, the four argument lists and its kernel names.
#[derive(Debug, Clone)]
pub struct OpArgs<'a> {
    pub name: &'a str,
    pub kernel_names: &'a [&'a str],
    dims: Option<Vec<Value>>,
    types: Option<Vec<Value>>,
    strides: Option<Vec<Value>>,
    concrete: Option<Vec<Value>>,
}

/// The largest magnitude of an int the models read from the args (a dimension,
/// a stride, a scalar): 2^40, far above any real tensor's, low enough that the
/// models' exact integer arithmetic cannot overflow. Beyond it an instance is
/// `Invalid` (fuzzing found shapes of `i64::MAX` overflowing `2·M·N·K`).
pub const MAX_INT: i64 = 1 << 40;

/// The most elements a shape may have, likewise: 2^48.
pub const MAX_NUMEL: i128 = 1 << 48;

/// `v` if within [`MAX_INT`].
pub(crate) fn in_range(v: i64) -> Option<i64> {
    (-MAX_INT..=MAX_INT).contains(&v).then_some(v)
}

fn invalid<T>(reason: impl Into<String>) -> Result<T, ModelError> {
    Err(ModelError::Invalid(reason.into()))
}

/// Parses one argument list; `None` text means the key is absent.
fn parse_list_json(what: &str, text: Option<&str>) -> Result<Option<Vec<Value>>, ModelError> {
    let Some(text) = text else {
        return Ok(None);
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Ok(Some(items)),
        Ok(Value::Null) => Ok(None),
        Ok(other) => invalid(format!("{what} is not a JSON list: {other}")),
        Err(e) => invalid(format!("{what} is not valid JSON ({e}): {text:?}")),
    }
}

impl<'a> OpArgs<'a> {
    /// Parses the JSON texts. Text that is not a JSON list is `Invalid`; a JSON
    /// `null` counts as a missing key.
    pub fn parse(name: &'a str, raw: &RawArgs<'a>) -> Result<Self, ModelError> {
        Ok(Self {
            name,
            kernel_names: raw.kernel_names,
            dims: parse_list_json("Input Dims", raw.input_dims)?,
            types: parse_list_json("Input type", raw.input_types)?,
            strides: parse_list_json("Input Strides", raw.input_strides)?,
            concrete: parse_list_json("Concrete Inputs", raw.concrete_inputs)?,
        })
    }

    /// `Input Dims`, or `None` when the key is absent.
    pub fn dims_opt(&self) -> Option<&[Value]> {
        self.dims.as_deref()
    }

    /// `Input type`, or `None` when the key is absent.
    pub fn types_opt(&self) -> Option<&[Value]> {
        self.types.as_deref()
    }

    /// `Concrete Inputs`, or `None` when the key is absent.
    pub fn concrete_opt(&self) -> Option<&[Value]> {
        self.concrete.as_deref()
    }

    /// `Input Dims`; absent is `Invalid` (Python's `KeyError`).
    pub fn dims(&self) -> Result<&[Value], ModelError> {
        self.dims
            .as_deref()
            .ok_or_else(|| ModelError::Invalid("the op has no Input Dims".into()))
    }

    /// `Input Dims[i]` as it is (a shape, `[]`, `null`, or a nested list).
    pub fn dim_entry(&self, i: usize) -> Result<&Value, ModelError> {
        self.dims()?
            .get(i)
            .ok_or_else(|| ModelError::Invalid(format!("Input Dims has no index {i}")))
    }

    /// `Input Dims[i]` as a shape (a list of ints within [`MAX_INT`], with at
    /// most [`MAX_NUMEL`] elements).
    pub fn shape(&self, i: usize) -> Result<Vec<i64>, ModelError> {
        let entry = self.dim_entry(i)?;
        let shape = entry.as_array().and_then(|items| {
            let ints: Option<Vec<i64>> = items.iter().map(Value::as_i64).collect();
            ints
        });
        match shape {
            Some(shape) => checked_shape(shape, &format!("Input Dims[{i}]")),
            None => invalid(format!("Input Dims[{i}] is not a list of ints: {entry}")),
        }
    }

    /// Python's `Input Dims[i] is not None`. A missing tensor is recorded as `[]`,
    /// not `null`, so this is true for every real trace (a reference quirk).
    pub fn dim_is_not_none(&self, i: usize) -> Result<bool, ModelError> {
        Ok(!self.dim_entry(i)?.is_null())
    }

    /// Whether `Input Dims[i]` exists and is a non-empty list: the argument is a
    /// tensor that was passed. Out of range counts as absent.
    pub fn has_tensor(&self, i: usize) -> bool {
        matches!(self.dims.as_deref().and_then(|d| d.get(i)), Some(Value::Array(a)) if !a.is_empty())
    }

    /// `Input type[i]`, a dtype string.
    pub fn dtype(&self, i: usize) -> Result<&str, ModelError> {
        let types = self
            .types
            .as_deref()
            .ok_or_else(|| ModelError::Invalid("the op has no Input type".into()))?;
        match types.get(i) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => invalid(format!("Input type[{i}] is not a string: {other}")),
            None => invalid(format!("Input type has no index {i}")),
        }
    }

    /// `tuple(Input Strides[i])`; `Input Strides` itself must exist.
    pub fn stride(&self, i: usize) -> Result<ParamValue, ModelError> {
        let strides = self
            .strides
            .as_deref()
            .ok_or_else(|| ModelError::Invalid("the op has no Input Strides".into()))?;
        let entry = strides
            .get(i)
            .ok_or_else(|| ModelError::Invalid(format!("Input Strides has no index {i}")))?;
        json_to_tuple(entry).ok_or_else(|| {
            ModelError::Invalid(format!("Input Strides[{i}] is not a list: {entry}"))
        })
    }

    /// `tuple(Input Strides[i])`, or `None` when `Input Strides` is absent (the
    /// reference's `except KeyError`); an index out of range is still `Invalid`.
    pub fn stride_or_none(&self, i: usize) -> Result<ParamValue, ModelError> {
        if self.strides.is_none() {
            return Ok(ParamValue::None);
        }
        self.stride(i)
    }

    /// `tuple(Input Strides[i])`, or `None` when it is absent or out of range (the
    /// reference's `except (KeyError, IndexError)`).
    pub fn stride_lenient(&self, i: usize) -> ParamValue {
        self.stride(i).unwrap_or(ParamValue::None)
    }

    /// `Concrete Inputs[i]`, a string.
    pub fn ci(&self, i: usize) -> Result<&str, ModelError> {
        let concrete = self
            .concrete
            .as_deref()
            .ok_or_else(|| ModelError::Invalid("the op has no Concrete Inputs".into()))?;
        match concrete.get(i) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => invalid(format!("Concrete Inputs[{i}] is not a string: {other}")),
            None => invalid(format!("Concrete Inputs has no index {i}")),
        }
    }

    /// `Concrete Inputs[i]` when it exists and is a non-empty string.
    pub fn ci_nonempty(&self, i: usize) -> Option<&str> {
        match self.concrete.as_deref().and_then(|c| c.get(i)) {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
}

/// `shape` if every dimension is within [`MAX_INT`] and it has at most
/// [`MAX_NUMEL`] elements; `what` names it in the error.
pub(crate) fn checked_shape(shape: Vec<i64>, what: &str) -> Result<Vec<i64>, ModelError> {
    // unsigned_abs: the product saturates at i128::MIN for some negative shapes.
    if shape.iter().any(|&d| in_range(d).is_none())
        || prod(&shape).unsigned_abs() > MAX_NUMEL as u128
    {
        return invalid(format!(
            "{what} {shape:?} is no tensor's shape (dimensions up to 2^40, 2^48 elements)"
        ));
    }
    Ok(shape)
}

/// A JSON list of ints (each within [`MAX_INT`]) as `Vec<i64>`.
pub fn int_list(value: &Value) -> Option<Vec<i64>> {
    let int = |v: &Value| v.as_i64().and_then(in_range);
    value.as_array()?.iter().map(int).collect()
}

/// Python's `tuple(list)`: the outer list becomes a tuple, inner lists stay lists.
fn json_to_tuple(value: &Value) -> Option<ParamValue> {
    Some(ParamValue::Tuple(
        value.as_array()?.iter().map(json_to_param).collect(),
    ))
}

/// A JSON value as the Python value `json.loads` gives.
pub fn json_to_param(value: &Value) -> ParamValue {
    match value {
        Value::Null => ParamValue::None,
        Value::Bool(b) => ParamValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => ParamValue::Int(i),
            None => ParamValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => ParamValue::Str(s.clone()),
        Value::Array(items) => ParamValue::List(items.iter().map(json_to_param).collect()),
        Value::Object(_) => ParamValue::Str(value.to_string()),
    }
}

/// `prod(shape)`, with `prod(()) = 1`, exact in `i128` (saturating, for shapes
/// that are checked against [`MAX_NUMEL`] after).
pub fn prod(shape: &[i64]) -> i128 {
    shape
        .iter()
        .fold(1i128, |acc, &d| acc.saturating_mul(i128::from(d)))
}

/// Python's `float(s)`: surrounding whitespace, a sign, `_` between digits,
/// `inf`/`infinity`/`nan` in any case, `1e-05`, `0.` and `.5`.
pub fn py_float(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let bytes = t.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let digit =
                |j: Option<usize>| j.and_then(|j| bytes.get(j)).is_some_and(u8::is_ascii_digit);
            if !digit(i.checked_sub(1)) || !digit(Some(i + 1)) {
                return None;
            }
        }
    }
    let cleaned: String = t.chars().filter(|&c| c != '_').collect();
    let lower = cleaned.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if lower.len() - unsigned.len() > 1 {
        return None;
    }
    match unsigned {
        "inf" | "infinity" | "nan" => {}
        u if u.chars().any(|c| c.is_ascii_alphabetic() && c != 'e') => return None,
        _ => {}
    }
    cleaned.parse::<f64>().ok()
}

/// Python's `int(s)` for a decimal string: surrounding whitespace and a sign are
/// accepted, a fraction is not; within [`MAX_INT`].
pub fn py_int(s: &str) -> Option<i64> {
    s.trim().parse::<i64>().ok().and_then(in_range)
}

/// `float(s)`, `Invalid` on failure.
pub fn float_arg(s: &str, what: &str) -> Result<f64, ModelError> {
    py_float(s).ok_or_else(|| ModelError::Invalid(format!("{what}: float({s:?}) fails")))
}

/// `int(s)`, `Invalid` on failure.
pub fn int_arg(s: &str, what: &str) -> Result<i64, ModelError> {
    py_int(s).ok_or_else(|| ModelError::Invalid(format!("{what}: int({s:?}) fails")))
}

/// `eval(s)` of a flag such as `"False"`: the literal value, which must be a
/// bool, an int or `None` (anything else is `Invalid`).
pub fn eval_flag(s: &str, what: &str) -> Result<ParamValue, ModelError> {
    match parse_py_literal(s) {
        Some(v @ (ParamValue::Bool(_) | ParamValue::Int(_) | ParamValue::None)) => Ok(v),
        _ => invalid(format!("{what}: eval({s:?}) is not a flag")),
    }
}

/// `[int(x) for x in ast.literal_eval(s)]` (the reference's `parse_list(s, int)`).
pub fn parse_int_list(s: &str, what: &str) -> Result<Vec<i64>, ModelError> {
    let items = literal_items(s, what)?;
    items
        .iter()
        .map(|item| match item {
            ParamValue::Int(i) if in_range(*i).is_some() => Ok(*i),
            ParamValue::Bool(b) => Ok(*b as i64),
            ParamValue::Float(f) if f.abs() <= MAX_INT as f64 => Ok(f.trunc() as i64),
            other => invalid(format!("{what}: int({other}) fails or exceeds ±2^40")),
        })
        .collect()
}

/// `[bool(x) for x in ast.literal_eval(s)]` (the reference's `parse_list(s, bool)`).
pub fn parse_bool_list(s: &str, what: &str) -> Result<Vec<bool>, ModelError> {
    Ok(literal_items(s, what)?
        .iter()
        .map(ParamValue::truthy)
        .collect())
}

fn literal_items(s: &str, what: &str) -> Result<Vec<ParamValue>, ModelError> {
    match parse_py_literal(s) {
        Some(ParamValue::List(items) | ParamValue::Tuple(items)) => Ok(items),
        Some(ParamValue::Str(text)) => {
            Ok(text.chars().map(|c| ParamValue::Str(c.into())).collect())
        }
        Some(other) => invalid(format!("{what}: {other} is not iterable")),
        None => invalid(format!("{what}: literal_eval({s:?}) fails")),
    }
}

/// The reference conv parser `str_to_tuple`: `tuple(int(x) for x in s[1:-1].split(","))`.
/// `"[16, 16]"` → `(16, 16)`; `"[]"` fails (`int("")`).
pub fn str_to_int_tuple(s: &str, what: &str) -> Result<Vec<i64>, ModelError> {
    let chars: Vec<char> = s.chars().collect();
    let inner: String = if chars.len() >= 2 {
        chars[1..chars.len() - 1].iter().collect()
    } else {
        String::new()
    };
    inner.split(',').map(|part| int_arg(part, what)).collect()
}

/// Parses a Python literal (the subset `ast.literal_eval` meets in trace args):
/// ints, floats, `True`/`False`/`None`, quoted strings, lists and tuples, with an
/// optional leading `-`/`+` on numbers. Returns `None` for anything else.
///
/// ```
/// use tracesql_udfs::perf::args::parse_py_literal;
/// use tracesql_udfs::perf::ParamValue;
/// assert_eq!(parse_py_literal("[16, 32]").unwrap().repr(), "[16, 32]");
/// assert_eq!(parse_py_literal("[True, False]").unwrap().repr(), "[True, False]");
/// assert_eq!(parse_py_literal("0."), Some(ParamValue::Float(0.0)));
/// assert_eq!(parse_py_literal("-1"), Some(ParamValue::Int(-1)));
/// assert_eq!(parse_py_literal(""), None);
/// ```
pub fn parse_py_literal(s: &str) -> Option<ParamValue> {
    let mut parser = Literal {
        text: s.as_bytes(),
        pos: 0,
    };
    parser.skip_ws();
    let value = parser.value(0)?;
    parser.skip_ws();
    (parser.pos == parser.text.len()).then_some(value)
}

struct Literal<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Literal<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<ParamValue> {
        if depth > 64 {
            return None;
        }
        match self.peek()? {
            b'[' => self.sequence(b']', depth).map(ParamValue::List),
            b'(' => self.tuple(depth),
            b'\'' | b'"' => self.string(),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            _ => {
                let rest = &self.text[self.pos..];
                let word_len = rest
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                let value = match &rest[..word_len] {
                    b"True" => ParamValue::Bool(true),
                    b"False" => ParamValue::Bool(false),
                    b"None" => ParamValue::None,
                    _ => return None,
                };
                self.pos += word_len;
                Some(value)
            }
        }
    }

    /// Items up to `close`, allowing a trailing comma. Returns the items and
    /// whether a comma was seen (a parenthesised single value is not a tuple).
    fn items(&mut self, close: u8, depth: usize) -> Option<(Vec<ParamValue>, bool)> {
        self.pos += 1; // the opening bracket
        let mut items = Vec::new();
        let mut saw_comma = false;
        loop {
            self.skip_ws();
            if self.peek()? == close {
                self.pos += 1;
                return Some((items, saw_comma));
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek()? {
                b',' => {
                    saw_comma = true;
                    self.pos += 1;
                }
                c if c == close => {}
                _ => return None,
            }
        }
    }

    fn sequence(&mut self, close: u8, depth: usize) -> Option<Vec<ParamValue>> {
        self.items(close, depth).map(|(items, _)| items)
    }

    fn tuple(&mut self, depth: usize) -> Option<ParamValue> {
        let (mut items, saw_comma) = self.items(b')', depth)?;
        if items.len() == 1 && !saw_comma {
            return items.pop(); // `(5)` is just 5
        }
        Some(ParamValue::Tuple(items))
    }

    fn string(&mut self) -> Option<ParamValue> {
        let quote = self.peek()?;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.pos += 1;
            match b {
                b'\\' => {
                    let escaped = self.peek()?;
                    self.pos += 1;
                    out.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                }
                b if b == quote => break,
                b => out.push(b),
            }
        }
        String::from_utf8(out).ok().map(ParamValue::Str)
    }

    fn number(&mut self) -> Option<ParamValue> {
        let start = self.pos;
        let negative = match self.peek()? {
            b'-' => {
                self.pos += 1;
                true
            }
            b'+' => {
                self.pos += 1;
                false
            }
            _ => false,
        };
        self.skip_ws();
        let digits_start = self.pos;
        let mut is_float = false;
        while let Some(b) = self.peek() {
            match b {
                b'0'..=b'9' => {}
                b'.' => is_float = true,
                b'e' | b'E' => {
                    is_float = true;
                    if matches!(self.text.get(self.pos + 1), Some(b'+' | b'-')) {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
            self.pos += 1;
        }
        let body = std::str::from_utf8(&self.text[digits_start..self.pos]).ok()?;
        if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            self.pos = start;
            return None;
        }
        if is_float {
            let magnitude: f64 = body.parse().ok()?;
            Some(ParamValue::Float(if negative {
                -magnitude
            } else {
                magnitude
            }))
        } else {
            // Python 3 rejects leading zeros in non-zero ints (`01`).
            if body.len() > 1 && body.starts_with('0') && body.bytes().any(|b| b != b'0') {
                return None;
            }
            let magnitude: i64 = body.parse().ok()?;
            Some(ParamValue::Int(if negative {
                -magnitude
            } else {
                magnitude
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_follow_python() {
        let cases = [
            ("[768]", "[768]"),
            ("[16, 32, 32]", "[16, 32, 32]"),
            ("[True, False, False]", "[True, False, False]"),
            ("[]", "[]"),
            ("()", "()"),
            ("(1,)", "(1,)"),
            ("(1)", "1"),
            ("False", "False"),
            ("None", "None"),
            ("0.", "0.0"),
            ("1.0000000000000001e-05", "1e-05"),
            ("-1", "-1"),
            ("[-1, 2]", "[-1, 2]"),
            ("'a b'", "'a b'"),
            ("[2., 2.]", "[2.0, 2.0]"),
        ];
        for (text, want) in cases {
            assert_eq!(
                parse_py_literal(text).map(|v| v.repr()).as_deref(),
                Some(want),
                "{text}"
            );
        }
        for bad in ["", "true", "[1,", "1 2", "01", "inf", "abc", "[1] x"] {
            assert_eq!(parse_py_literal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn python_conversions() {
        assert_eq!(py_float("0."), Some(0.0));
        assert_eq!(py_float(" 0.125 "), Some(0.125));
        assert_eq!(py_float(""), None);
        assert_eq!(py_int("32768"), Some(32768));
        assert_eq!(py_int(" 1 "), Some(1));
        assert_eq!(py_int("1.0"), None);
        assert_eq!(
            str_to_int_tuple("[16, 16]", "stride").unwrap(),
            vec![16, 16]
        );
        assert_eq!(str_to_int_tuple("[2]", "stride").unwrap(), vec![2]);
        assert!(str_to_int_tuple("[]", "stride").is_err());
        assert_eq!(
            parse_int_list("[16, 32, 32]", "shape").unwrap(),
            vec![16, 32, 32]
        );
        assert_eq!(
            parse_bool_list("[True, False]", "mask").unwrap(),
            vec![true, false]
        );
        assert!(parse_int_list("768", "shape").is_err());
    }

    #[test]
    fn args_index_like_the_reference() {
        let raw = RawArgs {
            input_dims: Some("[[4, 197, 768], [], [768]]"),
            input_types: Some(r#"["c10::BFloat16", "ScalarList", "c10::BFloat16"]"#),
            input_strides: None,
            concrete_inputs: Some(r#"["", "[768]", ""]"#),
            kernel_names: &[],
        };
        let op = OpArgs::parse("aten::layer_norm", &raw).unwrap();
        assert_eq!(op.shape(0).unwrap(), vec![4, 197, 768]);
        assert!(op.dim_is_not_none(1).unwrap());
        assert!(!op.has_tensor(1));
        assert!(op.has_tensor(2));
        assert!(!op.has_tensor(9));
        assert!(op.shape(5).is_err());
        assert_eq!(op.dtype(0).unwrap(), "c10::BFloat16");
        assert_eq!(op.stride_or_none(0).unwrap(), ParamValue::None);
        assert!(op.stride(0).is_err());
        assert_eq!(op.ci(1).unwrap(), "[768]");
        let bad = RawArgs {
            input_dims: Some("[[1,"),
            ..raw
        };
        assert!(matches!(
            OpArgs::parse("x", &bad),
            Err(ModelError::Invalid(_))
        ));
    }

    /// Seven negative dimensions of 2^40: the product saturates at i128::MIN,
    /// whose absolute value does not exist (a fuzz finding: it panicked).
    #[test]
    fn a_shape_whose_product_saturates_is_invalid_not_a_panic() {
        let shape = vec![-(1i64 << 40); 7];
        assert!(checked_shape(shape, "input").is_err());
        assert!(checked_shape(vec![1 << 20, 1 << 20], "input").is_ok());
    }
}
