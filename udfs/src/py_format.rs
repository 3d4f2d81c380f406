//! `py_format(value, spec)`: Python's `format(value, spec)` in SQL, for the
//! fixed-point and padded-integer specs TraceLens's pretty columns use.
//!
//! Why: TraceLens's pftrace summaries print `f"{p:.1f}%"`, `"%.3f ms"` and
//! `f"{GridX:>7d}"`. DataFusion's `round` rounds half away from zero on the scaled
//! value and its text drops trailing zeros ("1.01", not "1.010"), so neither the
//! digits nor the width match. Rust's `{:.N}` formats the exact binary value and
//! rounds exact ties to even, as Python does.
//!
//! ```sql
//! SELECT py_format(pct, '.1f') || '%', py_format(grid, '>7d') FROM kernels_summary
//! ```
//!
//! Supported spec: `[[fill]align][width][.precision]type` with align `<`, `>`
//! or `^` and type `f` (fixed point, precision 6 when not given) or `d`
//! (integer; a float must be whole). Anything else is an execution error.
//!
//! One spec is not Python's: `human_ns` writes a duration in ns the way
//! TraceLens's nsys-style summaries do: `"%.3f ms"` from 1e6 ns, `"%.3f μs"`
//! (U+03BC) from 1e3 ns, else the truncated integer `"N ns"`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::{exec_datafusion_err, exec_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

/// A parsed format spec (the subset described in the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spec {
    fill: char,
    align: char,
    width: usize,
    precision: Option<usize>,
    kind: char,
}

fn parse_spec(spec: &str) -> std::result::Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let (mut fill, mut align) = (' ', '>');
    let is_align = |c: char| matches!(c, '<' | '>' | '^');
    if chars.len() >= 2 && is_align(chars[1]) {
        fill = chars[0];
        align = chars[1];
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        align = chars[0];
        i = 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>()
    };
    let width = digits(&mut i);
    let width = if width.is_empty() {
        0
    } else {
        width.parse().map_err(|_| spec.to_string())?
    };
    let mut precision = None;
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        let p = digits(&mut i);
        if p.is_empty() {
            return Err(format!("py_format: no precision after '.' in {spec:?}"));
        }
        precision = Some(p.parse().map_err(|_| spec.to_string())?);
    }
    let kind = match &chars[i..] {
        ['f'] => 'f',
        ['d'] if precision.is_none() => 'd',
        _ => return Err(format!("py_format: unsupported spec {spec:?} (use [[fill]align][width][.precision]f or [[fill]align][width]d)")),
    };
    Ok(Spec {
        fill,
        align,
        width,
        precision,
        kind,
    })
}

/// Pads `body` to the spec's width with its fill and alignment.
fn pad(body: String, spec: &Spec) -> String {
    let len = body.chars().count();
    if len >= spec.width {
        return body;
    }
    let gap = spec.width - len;
    let fill = |n: usize| std::iter::repeat_n(spec.fill, n).collect::<String>();
    match spec.align {
        '<' => body + &fill(gap),
        '^' => fill(gap / 2) + &body + &fill(gap - gap / 2),
        _ => fill(gap) + &body,
    }
}

/// Python's text of a float in fixed point with `precision` digits.
fn fixed(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    format!("{x:.precision$}")
}

/// TraceLens's pretty duration of `ns` nanoseconds (the `human_ns` spec).
pub fn human_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", fixed(ns / 1e6, 3))
    } else if ns >= 1e3 {
        format!("{} μs", fixed(ns / 1e3, 3))
    } else {
        format!("{} ns", ns.trunc() as i64)
    }
}

/// `format(x, spec)` for a float.
pub fn format_f64(x: f64, spec: &str) -> std::result::Result<String, String> {
    if spec == "human_ns" {
        return Ok(human_ns(x));
    }
    let spec = parse_spec(spec)?;
    let body = match spec.kind {
        'f' => fixed(x, spec.precision.unwrap_or(6)),
        _ => {
            if x.fract() != 0.0 || !x.is_finite() || x.abs() >= 9.2e18 {
                return Err(format!("py_format: {x} is not an integer for 'd'"));
            }
            (x as i64).to_string()
        }
    };
    Ok(pad(body, &spec))
}

/// `format(n, spec)` for an integer.
pub fn format_i64(n: i64, spec: &str) -> std::result::Result<String, String> {
    if spec == "human_ns" {
        return Ok(human_ns(n as f64));
    }
    let spec = parse_spec(spec)?;
    let body = match spec.kind {
        'f' => fixed(n as f64, spec.precision.unwrap_or(6)),
        _ => n.to_string(),
    };
    Ok(pad(body, &spec))
}

/// `py_format(value BIGINT or DOUBLE, spec UTF8) -> UTF8`; NULL in, NULL out.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyFormat {
    signature: Signature,
}

impl PyFormat {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for PyFormat {
    fn default() -> Self {
        Self::new()
    }
}

fn is_integer(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
    )
}

impl ScalarUDFImpl for PyFormat {
    fn name(&self) -> &str {
        "py_format"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 2 {
            return exec_err!(
                "py_format takes (value, spec), got {} arguments",
                arg_types.len()
            );
        }
        if !crate::is_text(&arg_types[1]) {
            return exec_err!("py_format: the spec must be text, got {}", arg_types[1]);
        }
        let value = if is_integer(&arg_types[0]) {
            DataType::Int64
        } else {
            DataType::Float64
        };
        Ok(vec![value, DataType::Utf8])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let value = args.args[0].to_array(n)?;
        let spec = cast(&args.args[1].to_array(n)?, &DataType::Utf8)?;
        let spec = spec.as_string::<i32>();
        let err = |e: String| exec_datafusion_err!("{e}");
        let out: StringArray = if value.data_type() == &DataType::Int64 {
            let v = value.as_primitive::<Int64Type>();
            (0..n)
                .map(|i| {
                    if v.is_null(i) || spec.is_null(i) {
                        return Ok(None);
                    }
                    format_i64(v.value(i), spec.value(i)).map(Some).map_err(err)
                })
                .collect::<Result<_>>()?
        } else {
            let v = cast(&value, &DataType::Float64)?;
            let v = v.as_primitive::<Float64Type>();
            (0..n)
                .map(|i| {
                    if v.is_null(i) || spec.is_null(i) {
                        return Ok(None);
                    }
                    format_f64(v.value(i), spec.value(i)).map(Some).map_err(err)
                })
                .collect::<Result<_>>()?
        };
        Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_column, i64_column, run_sql};

    #[test]
    fn fixed_point_rounds_the_exact_binary_value_like_python() {
        // What Python prints for format(x, '.3f') / '.1f'.
        assert_eq!(format_f64(1.01, ".3f").unwrap(), "1.010");
        assert_eq!(format_f64(1.2345, ".3f").unwrap(), "1.234"); // 1.23449999...
        assert_eq!(format_f64(0.0625, ".3f").unwrap(), "0.062"); // exact tie → even
        assert_eq!(format_f64(0.125, ".2f").unwrap(), "0.12");
        assert_eq!(format_f64(0.375, ".2f").unwrap(), "0.38");
        assert_eq!(format_f64(99.60159362549801, ".1f").unwrap(), "99.6");
        assert_eq!(format_f64(0.25, ".1f").unwrap(), "0.2");
        assert_eq!(format_f64(-0.0, ".1f").unwrap(), "-0.0");
        assert_eq!(format_f64(f64::NAN, ".1f").unwrap(), "nan");
        assert_eq!(format_f64(f64::INFINITY, ".3f").unwrap(), "inf");
        assert_eq!(format_f64(2.5, "f").unwrap(), "2.500000");
        assert_eq!(format_f64(3.14159, ">8.2f").unwrap(), "    3.14");
    }

    #[test]
    fn human_ns_is_tracelens_pretty_duration() {
        assert_eq!(format_f64(1_010_000.0, "human_ns").unwrap(), "1.010 ms");
        assert_eq!(
            format_f64(1414.213562373095, "human_ns").unwrap(),
            "1.414 μs"
        );
        assert_eq!(format_f64(999.9, "human_ns").unwrap(), "999 ns");
        assert_eq!(format_i64(0, "human_ns").unwrap(), "0 ns");
        assert_eq!(format_i64(50_000, "human_ns").unwrap(), "50.000 μs");
    }

    #[test]
    fn integers_pad_like_python() {
        assert_eq!(format_i64(65536, ">7d").unwrap(), "  65536");
        assert_eq!(format_i64(1, ">4d").unwrap(), "   1");
        assert_eq!(format_i64(123456789, ">4d").unwrap(), "123456789");
        assert_eq!(format_i64(-5, "4d").unwrap(), "  -5");
        assert_eq!(format_i64(7, "0<3d").unwrap(), "700");
        assert_eq!(format_i64(7, "*^5d").unwrap(), "**7**");
        assert_eq!(format_i64(7, ".1f").unwrap(), "7.0");
        assert_eq!(format_f64(256.0, ">7d").unwrap(), "    256");
        assert!(format_f64(2.5, "d").is_err());
        assert!(format_i64(1, ".2d").is_err());
        assert!(format_i64(1, "x").is_err());
        assert!(format_f64(1.0, ".g").is_err());
    }

    #[tokio::test]
    async fn formats_columns_in_sql() {
        let t = batch(vec![
            ("x", f64_column(&[1.01, 20000.0])),
            ("n", i64_column(&[256, 0])),
        ]);
        let out = run_sql(
            vec![t],
            "SELECT py_format(x / 1000, '.3f') AS a, py_format(n, '>7d') AS b, \
             py_format(CAST(NULL AS DOUBLE), '.1f') AS c FROM t",
        )
        .await;
        let col = |name: &str| -> Vec<Option<String>> {
            out.iter()
                .flat_map(|b| {
                    let a = b.column_by_name(name).unwrap();
                    let a = cast(a, &DataType::Utf8).unwrap();
                    let a = a.as_string::<i32>().clone();
                    (0..a.len())
                        .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        assert_eq!(col("a"), vec![Some("0.001".into()), Some("20.000".into())]);
        assert_eq!(
            col("b"),
            vec![Some("    256".into()), Some("      0".into())]
        );
        assert_eq!(col("c"), vec![None, None]);
    }
}
