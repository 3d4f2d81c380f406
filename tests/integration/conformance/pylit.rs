//! A small parser for the Python literals that pandas writes into object cells:
//! tuples, lists, dicts, sets, strings (either quote, with escapes), ints, floats
//! (`1e-05`, `inf`, `nan`), `True`/`False`/`None`, and numpy scalar reprs such as
//! `np.float64(5.81)` or `np.int64(7)`, which are unwrapped to the inner value.
//!
//! Values are compared structurally by [`diff`]: numbers within a relative
//! tolerance, everything else exactly. Dict and set comparison ignore order, as
//! Python's `==` does.

use std::fmt::{self, Write as _};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Set(Vec<Value>),
    Dict(Vec<(Value, Value)>),
}

/// Parse a whole string as one Python literal.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing text"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!("{what} at byte {} of {:?}", self.i, self.text)
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            None => Err(self.err("unexpected end")),
            Some(b'(') => {
                self.i += 1;
                let (items, trailing_comma) = self.items(b')')?;
                // `(x)` is just x; `(x,)` and `()` are tuples.
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().unwrap())
                } else {
                    Ok(Value::Tuple(items))
                }
            }
            Some(b'[') => {
                self.i += 1;
                Ok(Value::List(self.items(b']')?.0))
            }
            Some(b'{') => {
                self.i += 1;
                self.dict_or_set()
            }
            Some(b'\'' | b'"') => self.string(),
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => self.name(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    /// Comma-separated values up to `close`; also says whether the last value was
    /// followed by a comma.
    fn items(&mut self, close: u8) -> Result<(Vec<Value>, bool), String> {
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            items.push(self.value()?);
            trailing_comma = self.eat(b',');
            if !trailing_comma {
                if self.eat(close) {
                    return Ok((items, false));
                }
                return Err(self.err("expected ',' or closing bracket"));
            }
        }
    }

    fn dict_or_set(&mut self) -> Result<Value, String> {
        if self.eat(b'}') {
            return Ok(Value::Dict(Vec::new()));
        }
        let first = self.value()?;
        if self.eat(b':') {
            let mut pairs = vec![(first, self.value()?)];
            loop {
                if self.eat(b'}') {
                    return Ok(Value::Dict(pairs));
                }
                if !self.eat(b',') {
                    return Err(self.err("expected ',' or '}' in dict"));
                }
                if self.eat(b'}') {
                    return Ok(Value::Dict(pairs));
                }
                let k = self.value()?;
                if !self.eat(b':') {
                    return Err(self.err("expected ':' in dict"));
                }
                pairs.push((k, self.value()?));
            }
        }
        let mut items = vec![first];
        if self.eat(b',') {
            items.extend(self.items(b'}')?.0);
        } else if !self.eat(b'}') {
            return Err(self.err("expected ',' or '}' in set"));
        }
        Ok(Value::Set(items))
    }

    fn string(&mut self) -> Result<Value, String> {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        loop {
            // Work on chars so that non-ASCII text survives.
            let rest = &self.text[self.i..];
            let Some(c) = rest.chars().next() else {
                return Err(self.err("unterminated string"));
            };
            self.i += c.len_utf8();
            if c as u32 == quote as u32 {
                return Ok(Value::Str(out));
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.text[self.i..].chars().next() else {
                return Err(self.err("unterminated escape"));
            };
            self.i += e.len_utf8();
            match e {
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                '\n' => {}
                'x' => out.push(self.hex_escape(2)?),
                'u' => out.push(self.hex_escape(4)?),
                'U' => out.push(self.hex_escape(8)?),
                '0'..='7' => {
                    let mut n = e.to_digit(8).unwrap();
                    for _ in 0..2 {
                        match self.s.get(self.i) {
                            Some(d @ b'0'..=b'7') => {
                                n = n * 8 + u32::from(d - b'0');
                                self.i += 1;
                            }
                            _ => break,
                        }
                    }
                    out.push(char::from_u32(n).ok_or_else(|| self.err("bad octal escape"))?);
                }
                // Python keeps unknown escapes verbatim.
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    fn hex_escape(&mut self, digits: usize) -> Result<char, String> {
        let hex = self
            .text
            .get(self.i..self.i + digits)
            .ok_or_else(|| self.err("short hex escape"))?;
        let n = u32::from_str_radix(hex, 16).map_err(|_| self.err("bad hex escape"))?;
        self.i += digits;
        char::from_u32(n).ok_or_else(|| self.err("bad code point"))
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        if matches!(self.s[self.i], b'-' | b'+') {
            self.i += 1;
        }
        if self.s[self.i..].starts_with(b"inf") || self.s[self.i..].starts_with(b"nan") {
            self.i += 3;
        } else {
            let mut prev = 0u8;
            while let Some(&c) = self.s.get(self.i) {
                let ok = c.is_ascii_digit()
                    || c == b'.'
                    || c == b'_'
                    || c == b'e'
                    || c == b'E'
                    || ((c == b'-' || c == b'+') && (prev == b'e' || prev == b'E'));
                if !ok {
                    break;
                }
                prev = c;
                self.i += 1;
            }
        }
        let tok: String = self.text[start..self.i]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let is_float = tok.contains(['.', 'e', 'E', 'i', 'n']);
        if !is_float {
            if let Ok(n) = tok.parse::<i128>() {
                return Ok(Value::Int(n));
            }
        }
        tok.parse::<f64>()
            .map(Value::Float)
            .map_err(|_| format!("bad number {tok:?} in {:?}", self.text))
    }

    /// Keywords, `inf`/`nan`, and calls `np.float64(x)`-style (unwrapped).
    fn name(&mut self) -> Result<Value, String> {
        let start = self.i;
        while let Some(&c) = self.s.get(self.i) {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                self.i += 1;
            } else {
                break;
            }
        }
        let name = &self.text[start..self.i];
        match name {
            "None" => return Ok(Value::None),
            "True" => return Ok(Value::Bool(true)),
            "False" => return Ok(Value::Bool(false)),
            "inf" => return Ok(Value::Float(f64::INFINITY)),
            "nan" => return Ok(Value::Float(f64::NAN)),
            _ => {}
        }
        let numpy = name.starts_with("np.") || name.starts_with("numpy.");
        if numpy && self.eat(b'(') {
            let (mut args, _) = self.items(b')')?;
            if args.len() == 1 {
                return Ok(args.pop().unwrap());
            }
            return Err(self.err("numpy scalar with other than one argument"));
        }
        if numpy {
            // np.True_, np.False_, np.nan, np.inf
            match name.rsplit('.').next().unwrap() {
                "True_" => return Ok(Value::Bool(true)),
                "False_" => return Ok(Value::Bool(false)),
                "nan" | "NaN" => return Ok(Value::Float(f64::NAN)),
                "inf" => return Ok(Value::Float(f64::INFINITY)),
                _ => {}
            }
        }
        Err(format!("unknown name {name:?} in {:?}", self.text))
    }
}

/// Relative tolerance for numbers: |a − b| ≤ REL_TOL · max(|a|, |b|).
pub const REL_TOL: f64 = 1e-6;

/// Numbers equal within [`REL_TOL`]; equal infinities and two NaNs are equal.
pub fn nums_equal(a: f64, b: f64) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    (a - b).abs() <= REL_TOL * a.abs().max(b.abs())
}

/// `None` when `a` equals `b` structurally (numbers within tolerance); otherwise
/// a short description of the first difference, with its path.
pub fn diff(a: &Value, b: &Value) -> Option<String> {
    let mut path = String::new();
    diff_at(a, b, &mut path)
}

fn diff_at(a: &Value, b: &Value, path: &mut String) -> Option<String> {
    let here = |path: &str, what: String| -> Option<String> {
        Some(if path.is_empty() {
            what
        } else {
            format!("at {path}: {what}")
        })
    };
    match (a, b) {
        (Value::Int(x), Value::Int(y)) if x == y => None,
        (Value::Float(x), Value::Float(y)) if nums_equal(*x, *y) => None,
        // `np.int64(5)` and `np.float64(5.0)` are different outputs (a trace with
        // integer times keeps ints), however close the values.
        (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => {
            here(path, format!("int vs float: {a} vs {b}"))
        }
        (Value::None, Value::None) => None,
        (Value::Bool(x), Value::Bool(y)) if x == y => None,
        (Value::Str(x), Value::Str(y)) if x == y => None,
        (Value::Tuple(x), Value::Tuple(y))
        | (Value::List(x), Value::List(y))
        | (Value::Set(x), Value::Set(y))
            if x.len() != y.len() =>
        {
            here(path, format!("length {} vs {}", x.len(), y.len()))
        }
        (Value::Tuple(x), Value::Tuple(y)) | (Value::List(x), Value::List(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                let _ = write!(path, "[{i}]");
                let d = diff_at(u, v, path);
                path.truncate(len);
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        (Value::Set(x), Value::Set(y)) => {
            let mut used = vec![false; y.len()];
            for u in x {
                match (0..y.len()).find(|&j| !used[j] && diff(u, &y[j]).is_none()) {
                    Some(j) => used[j] = true,
                    None => return here(path, format!("set element {u} not in the other set")),
                }
            }
            None
        }
        (Value::Dict(x), Value::Dict(y)) => {
            if x.len() != y.len() {
                let keys = |d: &[(Value, Value)]| {
                    d.iter()
                        .map(|(k, _)| k.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return here(path, format!("keys {{{}}} vs {{{}}}", keys(x), keys(y)));
            }
            for (k, u) in x {
                let Some((_, v)) = y.iter().find(|(k2, _)| diff(k, k2).is_none()) else {
                    return here(path, format!("key {k} missing on one side"));
                };
                let len = path.len();
                let _ = write!(path, "[{k}]");
                let d = diff_at(u, v, path);
                path.truncate(len);
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        _ => here(path, format!("{a} vs {b}")),
    }
}

/// A Python-like repr. It is canonical (equal values print alike, `np.float64`
/// wrappers are gone, floats print in Rust's shortest round-trip form), which
/// makes it usable as a normalized grouping key.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(
            f: &mut fmt::Formatter<'_>,
            open: &str,
            items: &[Value],
            close: &str,
        ) -> fmt::Result {
            f.write_str(open)?;
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            f.write_str(close)
        }
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) if x.is_nan() => f.write_str("nan"),
            Value::Float(x) if x.is_infinite() => {
                f.write_str(if *x > 0.0 { "inf" } else { "-inf" })
            }
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Tuple(items) if items.len() == 1 => seq(f, "(", items, ",)"),
            Value::Tuple(items) => seq(f, "(", items, ")"),
            Value::List(items) => seq(f, "[", items, "]"),
            Value::Set(items) => seq(f, "{", items, "}"),
            Value::Dict(pairs) => {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.to_string())
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("None").unwrap(), Value::None);
        assert_eq!(parse("True").unwrap(), Value::Bool(true));
        assert_eq!(parse("False").unwrap(), Value::Bool(false));
        assert_eq!(parse("-12").unwrap(), Value::Int(-12));
        assert_eq!(parse("1e-05").unwrap(), Value::Float(1e-5));
        assert_eq!(
            parse("7.62939453125e-06").unwrap(),
            Value::Float(7.62939453125e-06)
        );
        assert_eq!(parse("1e+16").unwrap(), Value::Float(1e16));
        assert_eq!(parse("100.0").unwrap(), Value::Float(100.0));
        assert_eq!(parse("inf").unwrap(), Value::Float(f64::INFINITY));
        assert_eq!(parse("-inf").unwrap(), Value::Float(f64::NEG_INFINITY));
        assert!(matches!(parse("nan").unwrap(), Value::Float(x) if x.is_nan()));
        assert_eq!(parse("np.float64(5.81)").unwrap(), Value::Float(5.81));
        assert_eq!(parse("np.int64(7)").unwrap(), Value::Int(7));
        assert_eq!(parse("np.float64(nan)").unwrap().to_string(), "nan");
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(parse("'a\\'b'").unwrap(), s("a'b"));
        assert_eq!(parse("\"it's\"").unwrap(), s("it's"));
        assert_eq!(
            parse(r"'tab\there\nnl \\ \x41\u00e9\U0001F600 \0'").unwrap(),
            s("tab\there\nnl \\ Aé😀 \0")
        );
        assert_eq!(parse("'µs ü'").unwrap(), s("µs ü"));
        assert_eq!(parse("'\\d'").unwrap(), s("\\d"));
        assert!(parse("'open").is_err());
    }

    #[test]
    fn containers() {
        assert_eq!(parse("()").unwrap(), Value::Tuple(vec![]));
        assert_eq!(
            parse("(512,)").unwrap(),
            Value::Tuple(vec![Value::Int(512)])
        );
        assert_eq!(parse("(512)").unwrap(), Value::Int(512));
        assert_eq!(
            parse("((512,), (141, 512), (), ())").unwrap().to_string(),
            "((512,), (141, 512), (), ())"
        );
        assert_eq!(
            parse("('c10::BFloat16', None)").unwrap(),
            Value::Tuple(vec![s("c10::BFloat16"), Value::None])
        );
        assert_eq!(
            parse("[[512], [141, 512],]").unwrap().to_string(),
            "[[512], [141, 512]]"
        );
        assert_eq!(
            parse("{'M': 141, 'bias': True}").unwrap(),
            Value::Dict(vec![
                (s("M"), Value::Int(141)),
                (s("bias"), Value::Bool(true))
            ])
        );
        assert_eq!(parse("{}").unwrap(), Value::Dict(vec![]));
        assert_eq!(
            parse("{1, 2}").unwrap(),
            Value::Set(vec![Value::Int(1), Value::Int(2)])
        );
        assert!(parse("(1, 2").is_err());
        assert!(parse("(1 2)").is_err());
        assert!(parse("[1] x").is_err());
        assert!(parse("(torch.float32,)").is_err());
    }

    #[test]
    fn structural_comparison() {
        let eq = |a: &str, b: &str| diff(&parse(a).unwrap(), &parse(b).unwrap()).is_none();
        assert!(eq(
            "[{'name': 'k', 'mean_duration_us': np.float64(5.81)}]",
            "[{'name': 'k', 'mean_duration_us': 5.81}]"
        ));
        assert!(eq("{'a': 1, 'b': 2}", "{'b': 2, 'a': 1}"));
        assert!(eq("{1, 2}", "{2, 1}"));
        assert!(eq("(1.0, nan)", "(1.0, nan)"));
        // An int and a float are different outputs, however close.
        assert!(!eq("(1.0, nan)", "(1, nan)"));
        assert!(!eq("[np.int64(5)]", "[np.float64(5.0)]"));
        assert!(eq("[1.0000000001]", "[1.0]"));
        assert!(!eq("[1.001]", "[1.0]"));
        assert!(!eq("(1,)", "[1]"));
        assert!(!eq("('a',)", "('b',)"));
        assert!(!eq("[inf]", "[1e308]"));
        assert!(!eq("(None,)", "(nan,)"));
        let d = diff(
            &parse("[{'n': 'k', 'x': np.float64(5.0)}]").unwrap(),
            &parse("[{'n': 'k', 'x': 5.1}]").unwrap(),
        )
        .unwrap();
        assert_eq!(d, "at [0][\"x\"]: 5.0 vs 5.1");
    }

    #[test]
    fn tolerance() {
        assert!(nums_equal(0.0, 0.0));
        assert!(nums_equal(0.0, -0.0));
        assert!(!nums_equal(0.0, 1e-300));
        assert!(nums_equal(1.0, 1.0 + 1e-9));
        assert!(!nums_equal(1.0, 1.001));
        assert!(nums_equal(f64::INFINITY, f64::INFINITY));
        assert!(!nums_equal(f64::INFINITY, f64::MAX));
        assert!(nums_equal(f64::NAN, f64::NAN));
    }
}
