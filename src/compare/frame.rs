//! A report sheet as TraceLens's report diff sees it: the CSV text read back
//! with pandas' `read_csv` type inference.
//!
//! TraceLens compares single-trace reports *after* writing them as CSV and
//! reading them back, so its join keys and diff columns follow pandas' rules,
//! not the types the report had: `None`, `nan`, `N/A` and an empty cell are all
//! missing (and missing equals missing in a join key), a column of whole
//! numbers is an integer column unless a value is missing, tuples are plain
//! strings compared exactly. `--tracelens-compat` reproduces that; a [`Frame`]
//! is the reproduction, built from our own sheets (their CSV cells) or from a
//! TraceLens report folder.

use std::path::Path;

use crate::output::{report_csv, Sheet};

/// One cell after inference.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Na,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl Value {
    pub fn is_na(&self) -> bool {
        matches!(self, Value::Na)
    }

    /// The number a numeric cell holds.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Equality as a pandas merge key: missing equals missing, numbers by value
    /// (an int key meets a float key), text and booleans only their own kind.
    pub fn key_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Na, Value::Na) => true,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
        }
    }

    /// A text that two cells share exactly when [`Value::key_eq`] holds, for
    /// hashing join keys.
    pub fn key_text(&self) -> String {
        match self {
            Value::Na => "n".into(),
            Value::Str(s) => format!("s{s}"),
            Value::Bool(b) => format!("b{b}"),
            // An int and a float of the same value meet; -0.0 meets 0.
            Value::Int(_) | Value::Float(_) => {
                let x = self.number().unwrap_or(f64::NAN);
                format!("f{}", if x == 0.0 { 0.0 } else { x })
            }
        }
    }

    /// The order pandas sorts outer-join keys in: numbers ascending, text by
    /// code point, missing last.
    pub fn key_cmp(&self, other: &Value) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let rank = |v: &Value| match v {
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => 0,
            Value::Str(_) => 1,
            Value::Na => 2,
        };
        match (self, other) {
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                _ => rank(a).cmp(&rank(b)).then(Ordering::Equal),
            },
        }
    }

    /// The cell as pandas `to_csv` prints it (floats as Python's repr).
    pub fn to_csv_text(&self) -> String {
        match self {
            Value::Na => String::new(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) if f.is_nan() => String::new(),
            Value::Float(f) => tracesql_udfs::pyfmt::python_float_repr(*f),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Str(s) => s.clone(),
        }
    }
}

/// A column's inferred type. `Int` holds no missing value: pandas turns an
/// integer column with one into floats (`26` prints `26.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int,
    Float,
    Bool,
    Str,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub kind: ColumnType,
    pub values: Vec<Value>,
}

impl Column {
    /// A column of `values` whose type is what pandas would give it: an
    /// integer column that gained a missing value becomes a float column.
    pub fn settle(name: String, kind: ColumnType, values: Vec<Value>) -> Column {
        let has_na = values.iter().any(Value::is_na);
        if kind == ColumnType::Int && has_na {
            let values = values
                .into_iter()
                .map(|v| match v {
                    Value::Int(i) => Value::Float(i as f64),
                    other => other,
                })
                .collect();
            return Column {
                name,
                kind: ColumnType::Float,
                values,
            };
        }
        Column { name, kind, values }
    }

    pub fn all_na(&self) -> bool {
        self.values.iter().all(Value::is_na)
    }
}

/// A sheet as a pandas DataFrame read from its CSV.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub columns: Vec<Column>,
}

/// pandas' default missing-value spellings (`read_csv`'s `na_values`).
const NA_TOKENS: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

impl Frame {
    /// Infers the frame pandas reads from CSV cells (`header`, rows of text).
    pub fn from_text(header: &[String], rows: &[Vec<String>]) -> Frame {
        let columns = header
            .iter()
            .enumerate()
            .map(|(at, name)| {
                let cells: Vec<&str> = rows
                    .iter()
                    .map(|row| row.get(at).map_or("", String::as_str))
                    .collect();
                infer_column(name.clone(), &cells)
            })
            .collect();
        Frame { columns }
    }

    /// The frame of one of our sheets, from the cells its CSV file would hold.
    pub fn from_sheet(sheet: &Sheet) -> Frame {
        let mut rows = Vec::with_capacity(sheet.rows());
        for batch in &sheet.batches {
            for row in 0..batch.num_rows() {
                let cells = batch.columns().iter();
                rows.push(cells.map(|c| report_csv::cell(c.as_ref(), row)).collect());
            }
        }
        Frame::from_text(&sheet.header, &rows)
    }

    /// Reads `<sheet>.csv` as pandas would; a file that is empty or holds only
    /// a newline is an empty frame.
    pub fn read_csv(path: &Path) -> Result<Frame, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut records = Vec::new();
        for (line, record) in reader.records().enumerate() {
            let record =
                record.map_err(|e| format!("{}: row {}: {e}", path.display(), line + 1))?;
            records.push(record.iter().map(str::to_string).collect::<Vec<String>>());
        }
        let mut records = records.into_iter();
        let Some(header) = records.next() else {
            return Ok(Frame::default());
        };
        let rows: Vec<Vec<String>> = records.collect();
        if let Some((at, row)) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.len() != header.len())
        {
            return Err(format!(
                "{}: row {} has {} cells, the header {}",
                path.display(),
                at + 2,
                row.len(),
                header.len()
            ));
        }
        Ok(Frame::from_text(&header, &rows))
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    pub fn is_empty(&self) -> bool {
        self.rows() == 0
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.column(name).is_some()
    }

    /// The frame without the named columns.
    pub fn without(mut self, names: &[&str]) -> Frame {
        self.columns.retain(|c| !names.contains(&c.name.as_str()));
        self
    }

    /// The CSV text pandas `to_csv(index=False)` writes; a frame without
    /// columns is a single newline, as TraceLens writes an empty split sheet.
    pub fn to_csv(&self) -> String {
        if self.columns.is_empty() {
            return "\n".into();
        }
        let mut out = String::new();
        let quote = |s: &str| {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let header: Vec<String> = self.columns.iter().map(|c| quote(&c.name)).collect();
        out.push_str(&header.join(","));
        out.push('\n');
        for row in 0..self.rows() {
            let cells: Vec<String> = self
                .columns
                .iter()
                .map(|c| quote(&c.values[row].to_csv_text()))
                .collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }
}

/// pandas' inference for one column of text cells.
fn infer_column(name: String, cells: &[&str]) -> Column {
    let present: Vec<&str> = cells
        .iter()
        .copied()
        .filter(|c| !NA_TOKENS.contains(c))
        .collect();
    let values = |parse: &dyn Fn(&str) -> Value| -> Vec<Value> {
        cells
            .iter()
            .map(|c| {
                if NA_TOKENS.contains(c) {
                    Value::Na
                } else {
                    parse(c)
                }
            })
            .collect()
    };
    if present.is_empty() {
        // An all-missing column is float64 NaN.
        return Column::settle(name, ColumnType::Float, values(&|_| Value::Na));
    }
    if present.iter().all(|c| parse_int(c).is_some()) {
        let parsed = values(&|c| parse_int(c).map_or(Value::Na, Value::Int));
        return Column::settle(name, ColumnType::Int, parsed);
    }
    if present.iter().all(|c| parse_float(c).is_some()) {
        let parsed = values(&|c| parse_float(c).map_or(Value::Na, Value::Float));
        return Column::settle(name, ColumnType::Float, parsed);
    }
    if present.iter().all(|c| parse_bool(c).is_some()) {
        let parsed = values(&|c| parse_bool(c).map_or(Value::Na, Value::Bool));
        return Column::settle(name, ColumnType::Bool, parsed);
    }
    let parsed = values(&|c| Value::Str(c.to_string()));
    Column::settle(name, ColumnType::Str, parsed)
}

fn parse_int(cell: &str) -> Option<i64> {
    let digits = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    cell.parse().ok()
}

fn parse_float(cell: &str) -> Option<f64> {
    let lower = cell.to_ascii_lowercase();
    let body = lower.trim_start_matches(['-', '+']);
    // pandas reads inf/infinity; other words (e.g. "nan" is already missing) are text.
    if body.chars().any(|c| c.is_ascii_alphabetic()) && !matches!(body, "inf" | "infinity") {
        let is_exponent = body.contains('e')
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, 'e' | '.' | '-' | '+'));
        if !is_exponent {
            return None;
        }
    }
    cell.trim().parse().ok()
}

fn parse_bool(cell: &str) -> Option<bool> {
    match cell {
        "True" | "TRUE" | "true" => Some(true),
        "False" | "FALSE" | "false" => Some(false),
        _ => None,
    }
}

/// A frame of text cells, for tests.
#[cfg(test)]
pub fn frame(header: &[&str], rows: &[&[&str]]) -> Frame {
    let header: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect();
    Frame::from_text(&header, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_types_come_from_the_text() {
        let f = frame(
            &["i", "i_na", "f", "b", "s", "na"],
            &[
                &["1", "2", "0.5", "True", "(1, 2)", "None"],
                &["3", "", "1e-05", "False", "x", ""],
            ],
        );
        let kinds: Vec<ColumnType> = f.columns.iter().map(|c| c.kind).collect();
        use ColumnType::*;
        assert_eq!(kinds, [Int, Float, Float, Bool, Str, Float]);
        assert_eq!(f.columns[1].values, [Value::Float(2.0), Value::Na]);
        assert_eq!(f.columns[2].values[1], Value::Float(1e-5));
        assert!(f.columns[5].all_na());
        assert_eq!(f.columns[4].values[0], Value::Str("(1, 2)".into()));
    }

    #[test]
    fn a_word_is_text_and_none_is_missing() {
        let f = frame(&["s"], &[&["None"], &["inf"], &["embed"]]);
        assert_eq!(f.columns[0].kind, ColumnType::Str);
        assert_eq!(f.columns[0].values[0], Value::Na);
        let g = frame(&["x"], &[&["inf"], &["2"]]);
        assert_eq!(g.columns[0].kind, ColumnType::Float);
    }

    #[test]
    fn keys_compare_as_pandas_merges_them() {
        assert!(Value::Na.key_eq(&Value::Na));
        assert!(Value::Int(7).key_eq(&Value::Float(7.0)));
        assert!(!Value::Int(7).key_eq(&Value::Str("7".into())));
        assert!(!Value::Bool(true).key_eq(&Value::Str("True".into())));
        for (a, b) in [
            (Value::Int(7), Value::Float(7.0)),
            (Value::Na, Value::Na),
            (Value::Int(7), Value::Str("7".into())),
            (Value::Float(-0.0), Value::Int(0)),
            (Value::Bool(true), Value::Str("True".into())),
        ] {
            assert_eq!(a.key_eq(&b), a.key_text() == b.key_text(), "{a:?} {b:?}");
        }
        use std::cmp::Ordering::*;
        assert_eq!(
            Value::Str("B".into()).key_cmp(&Value::Str("a".into())),
            Less
        );
        assert_eq!(Value::Na.key_cmp(&Value::Str("a".into())), Greater);
    }

    #[test]
    fn csv_text_prints_python_floats_and_an_empty_frame_as_a_newline() {
        let f = frame(&["a", "b"], &[&["1", "0.30000000000000004"], &["", "x,y"]]);
        assert_eq!(f.to_csv(), "a,b\n1.0,0.30000000000000004\n,\"x,y\"\n");
        assert_eq!(Frame::default().to_csv(), "\n");
    }
}
