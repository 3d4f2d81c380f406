//! Python `repr` formatting of floats, strings and JSON values.
//!
//! Why: the reference reports are written by pandas, so every float cell, every
//! grouping key built with `str(value)` and every `kernel_details` cell is Python's
//! text for a Python value. Matching them byte for byte needs Python's rules, which
//! differ from Rust's `{}` (no exponent form, `1` instead of `1.0`, other quoting).
//!
//! Everything here is plain Rust; the SQL wrappers live in [`crate::py_repr`],
//! [`crate::py_str_list`] and [`crate::py_kernel_details`].

use std::fmt::Write;

/// `x` as an integer when it is a whole number well inside f64's exact range
/// (|x| < 9e15): what a duration written as a JSON integer reads back as.
pub fn whole_number(x: f64) -> Option<i64> {
    (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
}

/// Formats `x` exactly like Python's `repr(float)`.
///
/// The digits are the shortest that round-trip (Rust's shortest formatting gives
/// the same digits as Python's). Python's layout rules apply on top:
/// * scientific notation when the decimal exponent is `< -4` or `>= 16`, with a
///   signed exponent of at least two digits: `1e-05`, `7.62939453125e-06`, `1e+16`;
/// * otherwise positional with a `.0` on integral values: `100.0`, `0.0001`;
/// * `nan`, `inf`, `-inf`, and `-0.0` for negative zero.
///
/// ```
/// use tracesql_udfs::python_float_repr;
/// assert_eq!(python_float_repr(8.0), "8.0");
/// assert_eq!(python_float_repr(1e-5), "1e-05");
/// assert_eq!(python_float_repr(1e16), "1e+16");
/// assert_eq!(python_float_repr(5.7919921875), "5.7919921875");
/// ```
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // `{:e}` gives the shortest round-trip digits as `d[.ddd]e<exp>`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::with_capacity(digits.len() + 8);
    if x.is_sign_negative() {
        out.push('-');
    }
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.abs()).expect("writing to a String cannot fail");
        return out;
    }
    // Position of the decimal point relative to the start of `digits`.
    let point = exp + 1;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else if (point as usize) < digits.len() {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        out.push_str(".0");
    }
    out
}

/// Formats `x` like numpy ≥ 2 prints a `float64` scalar inside a container:
/// `np.float64(98.718)`. numpy's digits and layout match Python's float repr.
pub fn numpy_float64_repr(x: f64) -> String {
    format!("np.float64({})", python_float_repr(x))
}

/// Formats `s` exactly like Python's `repr(str)`.
///
/// Single quotes, or double quotes when `s` contains `'` but no `"`. Backslash, the
/// chosen quote, `\t`, `\n` and `\r` are escaped; other control characters become
/// `\xNN`, and non-printable non-ASCII characters `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
/// Printable non-ASCII characters are kept as they are.
///
/// ```
/// use tracesql_udfs::pyfmt::python_str_repr;
/// assert_eq!(python_str_repr("GEMM"), "'GEMM'");
/// assert_eq!(python_str_repr("it's"), "\"it's\"");
/// ```
pub fn python_str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_python_str_repr(&mut out, s.chars().map(u32::from));
    out
}

/// Writes the Python repr of a sequence of code points. Code points rather than
/// `char`s, because a JSON string may hold a lone surrogate (`"\ud800"`), which is a
/// valid Python `str` but not a Rust one.
fn write_python_str_repr<I>(out: &mut String, code_points: I)
where
    I: Iterator<Item = u32> + Clone,
{
    let has_single = code_points.clone().any(|c| c == '\'' as u32);
    let has_double = code_points.clone().any(|c| c == '"' as u32);
    let quote = if has_single && !has_double { '"' } else { '\'' };
    out.push(quote);
    for cp in code_points {
        match char::from_u32(cp) {
            Some(c) if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            Some('\t') => out.push_str("\\t"),
            Some('\n') => out.push_str("\\n"),
            Some('\r') => out.push_str("\\r"),
            Some(c) if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            Some(c) if !c.is_ascii() && is_python_printable(c) => out.push(c),
            _ if cp <= 0xff => write!(out, "\\x{cp:02x}").expect("String write"),
            _ if cp <= 0xffff => write!(out, "\\u{cp:04x}").expect("String write"),
            _ => write!(out, "\\U{cp:08x}").expect("String write"),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable` for one non-ASCII character.
///
/// Python treats categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs (except the space) as
/// non-printable. Without a Unicode database this covers the control, format,
/// separator and private-use ranges; unassigned code points (Cn) are treated as
/// printable. Kernel names and op arguments are ASCII in practice.
fn is_python_printable(c: char) -> bool {
    let cp = u32::from(c);
    let non_printable = c.is_control()
        || matches!(
            cp,
            0x00AD
                | 0x0600..=0x0605
                | 0x061C
                | 0x06DD
                | 0x070F
                | 0x0890..=0x0891
                | 0x08E2
                | 0x180E
                | 0x200B..=0x200F
                | 0x202A..=0x202E
                | 0x2060..=0x2064
                | 0x2066..=0x206F
                | 0xFEFF
                | 0xFFF9..=0xFFFB
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A
                | 0xE0001
                | 0xE0020..=0xE007F
                // Zs other than the ASCII space, Zl, Zp.
                | 0x00A0
                | 0x1680
                | 0x2000..=0x200A
                | 0x2028
                | 0x2029
                | 0x202F
                | 0x205F
                | 0x3000
                // Private use (Co).
                | 0xE000..=0xF8FF
                | 0xF0000..=0xFFFFD
                | 0x100000..=0x10FFFD
        );
    !non_printable
}

/// Renders JSON text the way Python prints the value TraceLens builds from it:
/// `json.loads`, then lists turned into tuples (recursively), then `str()`.
///
/// * arrays → tuples: `[512]` → `(512,)`, `[]` → `()`, `[[1,2],[3]]` → `((1, 2), (3,))`;
/// * strings → [`python_str_repr`]; integers (any size) → their digits;
/// * numbers with a fraction or exponent → [`python_float_repr`]; `NaN`,
///   `Infinity` and `-Infinity` are accepted like Python's `json` does;
/// * `true`/`false`/`null` → `True`/`False`/`None`;
/// * objects → `{'k': v}` in key order; a repeated key keeps its first position and
///   its last value, as a Python dict does.
///
/// Returns an error message naming the byte offset when `json` is not valid JSON.
pub fn json_to_python_repr(json: &str) -> Result<String, String> {
    let mut parser = JsonRepr {
        text: json.as_bytes(),
        pos: 0,
    };
    let mut out = String::with_capacity(json.len() + 8);
    parser.skip_ws();
    parser.value(&mut out, 0)?;
    parser.skip_ws();
    if parser.pos != parser.text.len() {
        return Err(parser.error("unexpected text after the JSON value"));
    }
    Ok(out)
}

/// Deepest nesting accepted by [`json_to_python_repr`], so that hostile input cannot
/// overflow the stack.
const MAX_DEPTH: usize = 512;

/// A recursive-descent JSON reader that writes the Python repr as it goes, so key
/// order, integer digits and lone surrogates survive (a `serde_json::Value` would
/// sort keys and turn big integers into floats).
struct JsonRepr<'a> {
    text: &'a [u8],
    pos: usize,
}

impl JsonRepr<'_> {
    fn error(&self, what: &str) -> String {
        format!("invalid JSON at byte {}: {what}", self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat_literal(&mut self, literal: &str) -> bool {
        if self.text[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, out: &mut String, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting is too deep"));
        }
        match self.peek() {
            Some(b'[') => self.array(out, depth),
            Some(b'{') => self.object(out, depth),
            Some(b'"') => {
                let code_points = self.string()?;
                write_python_str_repr(out, code_points.iter().copied());
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number(out),
            _ => {
                let literals = [
                    ("true", "True"),
                    ("false", "False"),
                    ("null", "None"),
                    ("NaN", "nan"),
                    ("Infinity", "inf"),
                ];
                for (json, python) in literals {
                    if self.eat_literal(json) {
                        out.push_str(python);
                        return Ok(());
                    }
                }
                Err(self.error("expected a JSON value"))
            }
        }
    }

    fn array(&mut self, out: &mut String, depth: usize) -> Result<(), String> {
        self.pos += 1; // '['
        out.push('(');
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            out.push(')');
            return Ok(());
        }
        let mut count = 0;
        loop {
            if count > 0 {
                out.push_str(", ");
            }
            self.skip_ws();
            self.value(out, depth + 1)?;
            count += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.error("expected ',' or ']' in an array")),
            }
        }
        // A one-element tuple keeps its trailing comma: `(512,)`.
        if count == 1 {
            out.push(',');
        }
        out.push(')');
        Ok(())
    }

    fn object(&mut self, out: &mut String, depth: usize) -> Result<(), String> {
        self.pos += 1; // '{'
        let mut entries: Vec<(Vec<u32>, String)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                if self.peek() != Some(b'"') {
                    return Err(self.error("expected a string key in an object"));
                }
                let key = self.string()?;
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return Err(self.error("expected ':' after an object key"));
                }
                self.pos += 1;
                self.skip_ws();
                let mut value = String::new();
                self.value(&mut value, depth + 1)?;
                match entries.iter_mut().find(|(k, _)| *k == key) {
                    Some(entry) => entry.1 = value,
                    None => entries.push((key, value)),
                }
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.error("expected ',' or '}' in an object")),
                }
            }
        }
        out.push('{');
        for (i, (key, value)) in entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_python_str_repr(out, key.iter().copied());
            out.push_str(": ");
            out.push_str(value);
        }
        out.push('}');
        Ok(())
    }

    fn number(&mut self, out: &mut String) -> Result<(), String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.eat_literal("Infinity") {
                out.push_str("-inf");
                return Ok(());
            }
        }
        // JSON integers have no leading zeros: `0` stands alone.
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.error("expected a digit")),
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            is_float = true;
            self.pos += 1;
            let frac_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == frac_start {
                return Err(self.error("expected a digit after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            is_float = true;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let exp_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == exp_start {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        let text =
            std::str::from_utf8(&self.text[start..self.pos]).expect("a JSON number is ASCII");
        if is_float {
            // Rust's float parsing is correctly rounded, like Python's.
            let x: f64 = text.parse().map_err(|_| self.error("bad number"))?;
            out.push_str(&python_float_repr(x));
        } else {
            // Python ints are exact at any size; only `-0` needs normalising.
            let digits = text.trim_start_matches('-');
            if text.starts_with('-') && digits.bytes().any(|b| b != b'0') {
                out.push('-');
            }
            out.push_str(digits);
        }
        Ok(())
    }

    /// Reads a JSON string (the cursor is on its opening quote) into code points.
    fn string(&mut self) -> Result<Vec<u32>, String> {
        self.pos += 1; // '"'
        let mut code_points = Vec::new();
        loop {
            let rest = &self.text[self.pos..];
            let Some(&byte) = rest.first() else {
                return Err(self.error("unterminated string"));
            };
            match byte {
                b'"' => {
                    self.pos += 1;
                    return Ok(code_points);
                }
                b'\\' => {
                    self.pos += 1;
                    let escaped = self
                        .peek()
                        .ok_or_else(|| self.error("unterminated escape"))?;
                    self.pos += 1;
                    let cp = match escaped {
                        b'"' => '"' as u32,
                        b'\\' => '\\' as u32,
                        b'/' => '/' as u32,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => '\n' as u32,
                        b'r' => '\r' as u32,
                        b't' => '\t' as u32,
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.error("unknown escape")),
                    };
                    code_points.push(cp);
                }
                _ => {
                    // Copy one UTF-8 character.
                    let len = match byte {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let chunk = rest.get(..len).unwrap_or(rest);
                    let c = std::str::from_utf8(chunk)
                        .ok()
                        .and_then(|s| s.chars().next())
                        .ok_or_else(|| self.error("invalid UTF-8 in a string"))?;
                    code_points.push(u32::from(c));
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// Decodes the `XXXX` of `\uXXXX`, joining a surrogate pair when one follows.
    fn unicode_escape(&mut self) -> Result<u32, String> {
        let high = self.hex4()?;
        if (0xD800..0xDC00).contains(&high) && self.text[self.pos..].starts_with(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                return Ok(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            }
            self.pos = save;
        }
        Ok(high)
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self
            .text
            .get(self.pos..self.pos + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
        self.pos += 4;
        Ok(hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_follow_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (8816192.0, "8816192.0"),
            (0.1, "0.1"),
            (98.718, "98.718"),
            (5.8069411764705885, "5.8069411764705885"),
            (10.2239990234375, "10.2239990234375"),
            (100.00000000000001, "100.00000000000001"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1e-5, "1e-05"),
            (1e-9, "1e-09"),
            (7.62939453125e-06, "7.62939453125e-06"),
            (-2.5e-7, "-2.5e-07"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (1e100, "1e+100"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(python_float_repr(x), want, "repr of {x:e}");
        }
    }

    #[test]
    fn numpy_scalars_wrap_the_python_repr() {
        assert_eq!(numpy_float64_repr(98.718), "np.float64(98.718)");
        assert_eq!(numpy_float64_repr(0.0), "np.float64(0.0)");
    }

    #[test]
    fn strings_follow_python_repr() {
        assert_eq!(python_str_repr(""), "''");
        assert_eq!(python_str_repr("c10::BFloat16"), "'c10::BFloat16'");
        assert_eq!(python_str_repr("it's"), "\"it's\"");
        assert_eq!(python_str_repr("say \"hi\""), "'say \"hi\"'");
        assert_eq!(python_str_repr("both ' and \""), "'both \\' and \"'");
        assert_eq!(python_str_repr("a\\b"), "'a\\\\b'");
        assert_eq!(python_str_repr("t\tn\nr\r"), "'t\\tn\\nr\\r'");
        assert_eq!(python_str_repr("\u{0}\u{1b}\u{7f}"), "'\\x00\\x1b\\x7f'");
        assert_eq!(python_str_repr("µs é 中"), "'µs é 中'");
        assert_eq!(python_str_repr("\u{a0}\u{85}"), "'\\xa0\\x85'");
        assert_eq!(python_str_repr("\u{200b}\u{feff}"), "'\\u200b\\ufeff'");
        assert_eq!(python_str_repr("\u{f0000}"), "'\\U000f0000'");
    }

    #[test]
    fn json_lists_become_tuples() {
        let cases = [
            ("[512]", "(512,)"),
            ("[]", "()"),
            ("[[1,2],[3]]", "((1, 2), (3,))"),
            (
                "[[512], [141, 512], [], []]",
                "((512,), (141, 512), (), ())",
            ),
            (
                r#"["c10::BFloat16", "Scalar"]"#,
                "('c10::BFloat16', 'Scalar')",
            ),
            (r#"["", "1"]"#, "('', '1')"),
            ("[[[]]]", "(((),),)"),
        ];
        for (json, want) in cases {
            assert_eq!(json_to_python_repr(json).unwrap(), want, "{json}");
        }
    }

    #[test]
    fn json_scalars_follow_python() {
        let cases = [
            ("0", "0"),
            ("-0", "0"),
            ("-12", "-12"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("1.0", "1.0"),
            ("-0.0", "-0.0"),
            ("1e5", "100000.0"),
            ("1E-5", "1e-05"),
            ("2.5e16", "2.5e+16"),
            ("1e400", "inf"),
            ("NaN", "nan"),
            ("-Infinity", "-inf"),
            ("true", "True"),
            ("false", "False"),
            ("null", "None"),
            (r#""x""#, "'x'"),
            (r#""it's""#, "\"it's\""),
            (r#""a\"b'c""#, "'a\"b\\'c'"),
            (r#""\u00e9\n""#, "'é\\n'"),
            (r#""\ud83d\ude00""#, "'😀'"),
            (r#""\ud800""#, "'\\ud800'"),
            (" [ 1 , 2 ] ", "(1, 2)"),
        ];
        for (json, want) in cases {
            assert_eq!(json_to_python_repr(json).unwrap(), want, "{json}");
        }
    }

    #[test]
    fn json_objects_keep_key_order() {
        assert_eq!(
            json_to_python_repr(r#"{"M": 141, "bias": true, "b": [1], "a": {}}"#).unwrap(),
            "{'M': 141, 'bias': True, 'b': (1,), 'a': {}}"
        );
        // A repeated key keeps its first position and its last value.
        assert_eq!(
            json_to_python_repr(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap(),
            "{'a': 3, 'b': 2}"
        );
    }

    #[test]
    fn invalid_json_is_reported_with_its_offset() {
        for bad in [
            "", "[1,", "[1 2]", "{1: 2}", "01", "-x", "\"abc", "tru", "1.", "[1] x",
        ] {
            let err = json_to_python_repr(bad).unwrap_err();
            assert!(err.starts_with("invalid JSON at byte"), "{bad}: {err}");
        }
    }
}
