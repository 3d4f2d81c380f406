//! Compare one report sheet (our CSV) with TraceLens's reference CSV.
//!
//! * Header: the same columns (missing and extra ones are reported by name; the
//!   column order is checked too).
//! * Rows are matched by the sheet's key columns ([`Key`]), independent of order.
//!   Rows present on only one side are reported.
//! * Row order is then checked where the reference determines it ([`Order`]): a
//!   run of rows whose sort values are equal may come in any order.
//! * Cells: see [`cell_diff`]. Missing values (`""`, `nan`, `NaN`, `None`) equal
//!   each other, numbers are equal within a relative tolerance of 1e-6, Python
//!   literals (cells starting with `(`, `[` or `{`) are parsed and compared
//!   structurally with the same tolerance, other strings must be identical.

use std::collections::HashMap;
use std::path::Path;

use crate::conformance::pylit;

/// A CSV file: its header and its data rows, all cells as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Parse CSV text (pandas `to_csv` output). Every row must have as many
    /// cells as the header. A file that is only a newline is an empty table.
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut records = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record.map_err(|e| format!("CSV record {}: {e}", i + 1))?;
            records.push(record.iter().map(str::to_string).collect::<Vec<_>>());
        }
        let mut records = records.into_iter();
        let header = records.next().unwrap_or_default();
        let rows: Vec<Vec<String>> = records.collect();
        for (i, row) in rows.iter().enumerate() {
            if row.len() != header.len() {
                return Err(format!(
                    "data row {} has {} cells, the header has {}",
                    i + 1,
                    row.len(),
                    header.len()
                ));
            }
        }
        Ok(Table { header, rows })
    }

    pub fn read(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Table::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Column labels made unique: the k-th repeat of a name gets " #k" (k ≥ 2).
    /// pandas writes repeated names for an empty aggregate with MultiIndex
    /// columns (e.g. hta short_kernels_summary).
    pub fn labels(&self) -> Vec<String> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        self.header
            .iter()
            .map(|h| {
                let n = seen.entry(h.as_str()).or_insert(0);
                *n += 1;
                if *n == 1 {
                    h.clone()
                } else {
                    format!("{h} #{n}")
                }
            })
            .collect()
    }
}

/// One part of a sheet's row key.
#[derive(Debug, Clone, Copy)]
pub enum KeyCol {
    /// A column by name. Skipped when the reference has no such column (e.g. the
    /// GPU-only kernel_summary has no `Parent cpu_op`, and `is_recompute` only
    /// exists with detect_recompute).
    Col(&'static str),
    /// Every reference column whose name starts with this prefix, in header
    /// order (the `param: …` columns of the perf sheets).
    Prefix(&'static str),
}

/// How rows of our CSV are paired with reference rows.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    /// By the values of these columns (normalized: missing values alike,
    /// numbers and Python literals canonical).
    Columns(&'static [KeyCol]),
    /// By position (row i with row i).
    Position,
}

/// One sort column of the reference's row order.
#[derive(Debug, Clone, Copy)]
pub struct SortCol {
    pub col: &'static str,
    pub desc: bool,
}

/// What the reference's row order guarantees.
#[derive(Debug, Clone, Copy)]
pub enum Order {
    /// The order is fully determined: ours must be the same.
    Fixed,
    /// Sorted by these columns. Runs of reference rows whose sort values are all
    /// equal (within tolerance) are unordered; everything else must keep the
    /// reference order.
    Sorted(&'static [SortCol]),
    /// Nothing is checked.
    #[allow(dead_code)] // for sheets whose order is unspecified; none yet
    Any,
}

#[derive(Debug, Clone, Copy)]
pub struct SheetSpec {
    pub name: &'static str,
    pub key: Key,
    pub order: Order,
}

/// One difference. Besides cell differences (`column` = the column name):
/// * `row_key` [`HEADER`]: a missing or extra column (`column` = its name), or
///   `column` [`COLUMN_ORDER`] when the same columns come in another order;
/// * `column` [`ROW`]: a row present on one side only;
/// * `column` [`ORDER`]: a row out of the reference order (ours/reference give
///   its 1-based data row number on each side);
/// * `row_key` and `column` [`SHEET`]: we wrote a sheet the reference lacks.
///
/// The absent side reads [`ABSENT`], the other [`PRESENT`].
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub row_key: String,
    pub column: String,
    pub ours: String,
    pub reference: String,
    /// Where two long values differ, when that helps (e.g. a path in a literal).
    pub detail: Option<String>,
}

pub const HEADER: &str = "(header)";
pub const COLUMN_ORDER: &str = "(column order)";
pub const ROW: &str = "(row)";
pub const ORDER: &str = "(order)";
pub const SHEET: &str = "(sheet)";
pub const ABSENT: &str = "<absent>";
pub const PRESENT: &str = "<present>";

#[derive(Debug, Clone, PartialEq)]
pub struct SheetResult {
    pub ref_rows: usize,
    pub our_rows: usize,
    /// Rows present on both sides with every compared cell equal.
    pub matched_rows: usize,
    pub mismatches: Vec<Mismatch>,
}

/// Missing-value spellings of pandas (`to_csv` writes NaN/None as empty; `param:`
/// strings hold `nan` or `None` depending on the pandas version).
pub fn is_na(cell: &str) -> bool {
    matches!(cell, "" | "nan" | "NaN" | "None" | "<NA>")
}

fn looks_literal(cell: &str) -> bool {
    cell.starts_with(['(', '[', '{'])
}

/// Whether a number cell is written as an integer (no fraction, exponent, inf
/// or nan).
fn is_int_text(cell: &str) -> bool {
    !cell.contains(['.', 'e', 'E', 'i', 'n'])
}

fn parse_num(cell: &str) -> Option<f64> {
    // Rust also accepts "infinity" and friends; pandas writes "inf", "-inf".
    cell.parse::<f64>().ok()
}

/// `None` when the cells are equal under the rules above; otherwise why not (a
/// short reason, or the path of the first difference inside a literal).
pub fn cell_diff(ours: &str, reference: &str) -> Option<String> {
    if ours == reference || (is_na(ours) && is_na(reference)) {
        return None;
    }
    if is_na(ours) || is_na(reference) {
        return Some("missing value on one side".into());
    }
    if let (Some(a), Some(b)) = (parse_num(ours), parse_num(reference)) {
        // pandas prints an int64 column `11055` and a float64 one `11055.0`: the
        // type is part of the output (a trace with integer times keeps ints).
        if is_int_text(ours) != is_int_text(reference) {
            return Some("an integer on one side, a float on the other".into());
        }
        if pylit::nums_equal(a, b) {
            return None;
        }
        let rel = (a - b).abs() / a.abs().max(b.abs());
        return Some(format!("relative difference {rel:.3e}"));
    }
    if looks_literal(ours) && looks_literal(reference) {
        if let (Ok(a), Ok(b)) = (pylit::parse(ours), pylit::parse(reference)) {
            return pylit::diff(&a, &b);
        }
    }
    Some(first_text_difference(ours, reference))
}

pub fn cells_equal(ours: &str, reference: &str) -> bool {
    cell_diff(ours, reference).is_none()
}

fn first_text_difference(a: &str, b: &str) -> String {
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map(|((i, _), _)| i)
        .unwrap_or(a.len().min(b.len()));
    let ctx = |s: &str| -> String {
        let start = char_floor(s, at.saturating_sub(20));
        s[start..].chars().take(50).collect()
    };
    format!("texts differ at byte {at}: …{:?} vs …{:?}", ctx(a), ctx(b))
}

/// The largest char boundary of `s` at or before byte `i`.
fn char_floor(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The normalized form of a key cell: equal keys (by [`cell_diff`]'s notion,
/// without tolerance) normalize alike.
fn norm_key(cell: &str) -> String {
    if is_na(cell) {
        return "\u{0}NA".into();
    }
    if let Some(x) = parse_num(cell) {
        return format!("\u{0}num {x:?}");
    }
    if looks_literal(cell) {
        if let Ok(v) = pylit::parse(cell) {
            return format!("\u{0}lit {v}");
        }
    }
    cell.to_string()
}

/// Resolve the key columns against both headers: (column name, index in ours,
/// index in reference). `None` means match by position.
fn key_columns(
    spec: &SheetSpec,
    ours: &Table,
    reference: &Table,
) -> Option<Vec<(String, usize, usize)>> {
    let Key::Columns(cols) = spec.key else {
        return None;
    };
    let mut names = Vec::new();
    for c in cols {
        match *c {
            KeyCol::Col(name) => names.push(name.to_string()),
            KeyCol::Prefix(p) => names.extend(
                reference
                    .header
                    .iter()
                    .filter(|h| h.starts_with(p))
                    .cloned(),
            ),
        }
    }
    let resolved: Vec<_> = names
        .into_iter()
        .filter_map(|n| {
            let (o, r) = (ours.col(&n)?, reference.col(&n)?);
            Some((n, o, r))
        })
        .collect();
    (!resolved.is_empty()).then_some(resolved)
}

/// Row keys of a table: (normalized key, display key). Duplicate keys get an
/// occurrence suffix so that the i-th duplicate pairs with the i-th.
fn row_keys(table: &Table, cols: Option<&[usize]>) -> Vec<(String, String)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let Some(cols) = cols else {
                return (format!("#{}", i + 1), format!("#{}", i + 1));
            };
            let norm: Vec<String> = cols.iter().map(|&c| norm_key(&row[c])).collect();
            let display: Vec<&str> = cols.iter().map(|&c| row[c].as_str()).collect();
            let (mut norm, mut display) = (norm.join("\u{1}"), display.join(" | "));
            let n = seen.entry(norm.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                norm.push_str(&format!("\u{1}#{n}"));
                display.push_str(&format!(" #{n}"));
            }
            (norm, display)
        })
        .collect()
}

/// Compare our table with the reference table of the same sheet.
pub fn compare(spec: &SheetSpec, ours: &Table, reference: &Table) -> SheetResult {
    let mut mismatches = Vec::new();
    let mm = |row_key: &str, column: &str, ours: &str, reference: &str| Mismatch {
        row_key: row_key.to_string(),
        column: column.to_string(),
        ours: ours.to_string(),
        reference: reference.to_string(),
        detail: None,
    };

    // Header.
    let (our_labels, ref_labels) = (ours.labels(), reference.labels());
    for c in &ref_labels {
        if !our_labels.contains(c) {
            mismatches.push(mm(HEADER, c, ABSENT, PRESENT));
        }
    }
    for c in &our_labels {
        if !ref_labels.contains(c) {
            mismatches.push(mm(HEADER, c, PRESENT, ABSENT));
        }
    }
    if mismatches.is_empty() && ours.header != reference.header {
        mismatches.push(mm(
            HEADER,
            COLUMN_ORDER,
            &ours.header.join(","),
            &reference.header.join(","),
        ));
    }
    let common: Vec<(&str, usize, usize)> = ref_labels
        .iter()
        .enumerate()
        .filter_map(|(r, c)| Some((c.as_str(), our_labels.iter().position(|o| o == c)?, r)))
        .collect();

    // Pair rows by key.
    let keys = key_columns(spec, ours, reference);
    let our_cols: Option<Vec<usize>> = keys.as_ref().map(|k| k.iter().map(|x| x.1).collect());
    let ref_cols: Option<Vec<usize>> = keys.as_ref().map(|k| k.iter().map(|x| x.2).collect());
    let our_keys = row_keys(ours, our_cols.as_deref());
    let ref_keys = row_keys(reference, ref_cols.as_deref());
    let ref_index: HashMap<&str, usize> = ref_keys
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.as_str(), i))
        .collect();
    let our_index: HashMap<&str, usize> = our_keys
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.as_str(), i))
        .collect();

    // Cells, in reference row order.
    let mut matched_rows = 0;
    for (r, (key, display)) in ref_keys.iter().enumerate() {
        let Some(&o) = our_index.get(key.as_str()) else {
            mismatches.push(mm(display, ROW, ABSENT, PRESENT));
            continue;
        };
        let mut all_equal = true;
        for &(name, oc, rc) in &common {
            let (a, b) = (&ours.rows[o][oc], &reference.rows[r][rc]);
            if let Some(why) = cell_diff(a, b) {
                all_equal = false;
                let mut m = mm(display, name, a, b);
                m.detail = Some(why);
                mismatches.push(m);
            }
        }
        matched_rows += usize::from(all_equal);
    }
    for (key, display) in &our_keys {
        if !ref_index.contains_key(key.as_str()) {
            mismatches.push(mm(display, ROW, PRESENT, ABSENT));
        }
    }

    // Order.
    let runs = reference_runs(spec, reference);
    if let Some(runs) = runs {
        // Our rows that exist in the reference, in our order, as (our pos, ref pos).
        let seq: Vec<(usize, usize)> = our_keys
            .iter()
            .enumerate()
            .filter_map(|(o, (k, _))| Some((o, *ref_index.get(k.as_str())?)))
            .collect();
        let run_seq: Vec<usize> = seq.iter().map(|&(_, r)| runs[r]).collect();
        let keep = longest_non_decreasing(&run_seq);
        for (i, &(o, r)) in seq.iter().enumerate() {
            if !keep[i] {
                mismatches.push(mm(
                    &ref_keys[r].1,
                    ORDER,
                    &format!("row {}", o + 1),
                    &format!("row {}", r + 1),
                ));
            }
        }
    }

    SheetResult {
        ref_rows: reference.rows.len(),
        our_rows: ours.rows.len(),
        matched_rows,
        mismatches,
    }
}

/// For each reference row, the index of its run of equal sort values; `None`
/// when the order is not checked.
fn reference_runs(spec: &SheetSpec, reference: &Table) -> Option<Vec<usize>> {
    match spec.order {
        Order::Any => None,
        Order::Fixed => Some((0..reference.rows.len()).collect()),
        Order::Sorted(cols) => {
            let idx: Vec<usize> = cols.iter().filter_map(|c| reference.col(c.col)).collect();
            if idx.is_empty() {
                return None;
            }
            let mut runs = Vec::with_capacity(reference.rows.len());
            for (i, row) in reference.rows.iter().enumerate() {
                let run = match i {
                    0 => 0,
                    _ => {
                        let prev = &reference.rows[i - 1];
                        let tied = idx.iter().all(|&c| cells_equal(&row[c], &prev[c]));
                        runs[i - 1] + usize::from(!tied)
                    }
                };
                runs.push(run);
            }
            Some(runs)
        }
    }
}

/// Marks the members of one longest non-decreasing subsequence; the others are
/// the rows out of order.
fn longest_non_decreasing(seq: &[usize]) -> Vec<bool> {
    // tails[l] = index in seq of the smallest tail of a subsequence of length l+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![usize::MAX; seq.len()];
    for (i, &v) in seq.iter().enumerate() {
        let l = tails.partition_point(|&t| seq[t] <= v);
        if l > 0 {
            prev[i] = tails[l - 1];
        }
        if l == tails.len() {
            tails.push(i);
        } else {
            tails[l] = i;
        }
    }
    let mut keep = vec![false; seq.len()];
    let mut i = tails.last().copied().unwrap_or(usize::MAX);
    while i != usize::MAX {
        keep[i] = true;
        i = prev[i];
    }
    keep
}

/// Checks that a reference table is sorted the way its spec says (a sanity check
/// of the specs against the data). Returns the first violation.
pub fn check_sorted(spec: &SheetSpec, table: &Table) -> Result<(), String> {
    let Order::Sorted(cols) = spec.order else {
        return Ok(());
    };
    let idx: Vec<(usize, bool)> = cols
        .iter()
        .filter_map(|c| Some((table.col(c.col)?, c.desc)))
        .collect();
    for i in 1..table.rows.len() {
        let (a, b) = (&table.rows[i - 1], &table.rows[i]);
        for &(c, desc) in &idx {
            if cells_equal(&a[c], &b[c]) {
                continue;
            }
            let (x, y) = (parse_num(&a[c]), parse_num(&b[c]));
            let ok = match (x, y) {
                (Some(x), Some(y)) if desc => x > y,
                (Some(x), Some(y)) => x < y,
                _ => return Err(format!("row {}: non-numeric sort value", i + 1)),
            };
            if !ok {
                return Err(format!(
                    "rows {} and {} are not sorted by {}",
                    i,
                    i + 1,
                    table.header[c]
                ));
            }
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::sheets;

    fn table(text: &str) -> Table {
        Table::parse(text).unwrap()
    }

    fn spec(name: &str) -> SheetSpec {
        sheets::spec(name).unwrap()
    }

    const OPS_SUMMARY: &str = "\
name,total_direct_kernel_time_sum,Count,Categories,Percentage (%)
aten::addmm,197.59814453125,26,['GEMM'],63.857156495249946
aten::add,14.752685546875,9,['elementwise'],4.7675779138858365
aten::mul,5.0,2,['elementwise'],1.5
aten::div,5.0,3,['elementwise'],1.5
aten::copy_,0.0,4,['other'],0.0
";

    #[test]
    fn identical_tables_match() {
        let t = table(OPS_SUMMARY);
        let r = compare(&spec("ops_summary"), &t, &t);
        assert_eq!(r.mismatches, vec![]);
        assert_eq!((r.matched_rows, r.ref_rows, r.our_rows), (5, 5, 5));
    }

    #[test]
    fn cell_rules() {
        for (a, b) in [
            ("", "nan"),
            ("None", ""),
            ("NaN", "None"),
            ("1e-05", "0.00001"),
            ("inf", "inf"),
            ("0.0", "-0.0"),
            ("1.0", "1.0000000009"),
            ("['GEMM']", "[ 'GEMM' ]"),
            ("(512,)", "(512,)"),
            ("True", "True"),
            (
                "[{'name': 'k', 'stream': 7, 'mean_duration_us': np.float64(5.81)}]",
                "[{'name': 'k', 'stream': 7, 'mean_duration_us': 5.81}]",
            ),
        ] {
            assert!(cells_equal(a, b), "{a:?} vs {b:?}");
        }
        for (a, b) in [
            ("", "0.0"),
            ("nan", "0"),
            ("1.0", "1.001"),
            ("0.0", "1e-300"),
            ("inf", "1e308"),
            ("True", "1"),
            ("['GEMM']", "['gemm']"),
            // pandas' int64 and float64 columns print differently.
            ("7", "7.0"),
            ("11055.0", "11055"),
            ("(512,)", "[512]"),
            ("aten::add", "aten::add "),
            ("(unparsable", "(unparsable "),
            ("[{'x': np.float64(5.81)}]", "[{'x': 5.82}]"),
        ] {
            assert!(!cells_equal(a, b), "{a:?} vs {b:?}");
        }
    }

    /// Perturb the number in cell (row, col) by a relative amount (an integer
    /// cell by at least 1, so that it stays an integer).
    fn perturb(t: &Table, row: usize, col: usize, rel: f64) -> Table {
        let mut t = t.clone();
        let cell = &t.rows[row][col];
        t.rows[row][col] = match cell.parse::<i64>() {
            Ok(n) => (n + ((n as f64 * rel).abs().ceil() as i64).max(1)).to_string(),
            Err(_) => format!("{:?}", cell.parse::<f64>().unwrap() * (1.0 + rel)),
        };
        t
    }

    #[test]
    fn perturbation_by_1e3_fails_on_exactly_that_cell() {
        let t = table(OPS_SUMMARY);
        let ours = perturb(&t, 1, 1, 1e-3);
        let r = compare(&spec("ops_summary"), &ours, &t);
        assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
        let m = &r.mismatches[0];
        assert_eq!(
            (m.row_key.as_str(), m.column.as_str()),
            ("aten::add", "total_direct_kernel_time_sum")
        );
        assert_eq!(m.reference, "14.752685546875");
        assert_eq!(r.matched_rows, 4);
    }

    #[test]
    fn perturbation_by_1e9_passes() {
        let t = table(OPS_SUMMARY);
        for (row, col) in [(0, 1), (1, 1), (0, 4), (2, 2)] {
            if t.rows[row][col].parse::<i64>().is_ok() {
                continue; // an integer cannot change by 1e-9
            }
            let ours = perturb(&t, row, col, 1e-9);
            assert_ne!(ours, t);
            let r = compare(&spec("ops_summary"), &ours, &t);
            assert_eq!(r.mismatches, vec![]);
        }
    }

    fn swap(t: &Table, i: usize, j: usize) -> Table {
        let mut t = t.clone();
        t.rows.swap(i, j);
        t
    }

    #[test]
    fn reordering_tied_rows_passes() {
        let t = table(OPS_SUMMARY);
        // aten::mul and aten::div tie on total_direct_kernel_time_sum.
        let r = compare(&spec("ops_summary"), &swap(&t, 2, 3), &t);
        assert_eq!(r.mismatches, vec![]);
    }

    #[test]
    fn reordering_untied_rows_fails() {
        let t = table(OPS_SUMMARY);
        let r = compare(&spec("ops_summary"), &swap(&t, 0, 1), &t);
        assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
        assert_eq!(r.mismatches[0].column, ORDER);
        assert_eq!(r.matched_rows, 5, "the cells themselves all match");
        // Moving the last row to the front: one row out of place, not four.
        let mut ours = t.clone();
        let last = ours.rows.pop().unwrap();
        ours.rows.insert(0, last);
        let r = compare(&spec("ops_summary"), &ours, &t);
        assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
        assert_eq!(r.mismatches[0].row_key, "aten::copy_");
        assert_eq!(
            (
                r.mismatches[0].ours.as_str(),
                r.mismatches[0].reference.as_str()
            ),
            ("row 1", "row 5")
        );
    }

    #[test]
    fn fixed_order_sheet() {
        let t = table("type,time ms,percent\ncomputation_time,0.3,7.8\nexposed_comm_time,0.0,0.0\ntotal_time,3.9,100.0\n");
        let r = compare(&spec("gpu_timeline"), &swap(&t, 0, 1), &t);
        assert_eq!(r.mismatches.len(), 1);
        assert_eq!(r.mismatches[0].column, ORDER);
    }

    #[test]
    fn header_and_row_differences() {
        let t = table(OPS_SUMMARY);
        let ours = table(
            "name,Count,total_direct_kernel_time_sum,Extra\n\
             aten::addmm,26,197.59814453125,x\n\
             aten::add,9,14.752685546875,x\n\
             aten::mul,2,5.0,x\n\
             aten::copy_,4,0.0,x\n\
             aten::new,1,0.0,x\n",
        );
        let r = compare(&spec("ops_summary"), &ours, &t);
        let got: Vec<(&str, &str, &str)> = r
            .mismatches
            .iter()
            .map(|m| (m.row_key.as_str(), m.column.as_str(), m.ours.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (HEADER, "Categories", ABSENT),
                (HEADER, "Percentage (%)", ABSENT),
                (HEADER, "Extra", PRESENT),
                ("aten::div", ROW, ABSENT),
                ("aten::new", ROW, PRESENT),
            ]
        );
        assert_eq!((r.matched_rows, r.ref_rows, r.our_rows), (4, 5, 5));

        let reordered = table(
            "name,Count,total_direct_kernel_time_sum,Categories,Percentage (%)\n\
             aten::addmm,26,197.59814453125,['GEMM'],63.857156495249946\n",
        );
        let r = compare(
            &spec("ops_summary"),
            &reordered,
            &table(&OPS_SUMMARY[..OPS_SUMMARY.find("aten::add,").unwrap()]),
        );
        assert_eq!(r.mismatches.len(), 1);
        assert_eq!(
            (
                r.mismatches[0].row_key.as_str(),
                r.mismatches[0].column.as_str()
            ),
            (HEADER, COLUMN_ORDER)
        );
    }

    #[test]
    fn keys_are_normalized() {
        // Kernel stream 7 vs 7.0, and literal spacing, still pair the rows (the
        // int-or-float difference is reported on the cell).
        let reference = table(
            "Parent op category,Parent cpu_op,Kernel name,Kernel stream,Kernel duration (µs)_sum\n\
             GEMM,aten::addmm,k1,7,3.0\n\
             ,,k2,7,2.0\n",
        );
        let ours = table(
            "Parent op category,Parent cpu_op,Kernel name,Kernel stream,Kernel duration (µs)_sum\n\
             GEMM,aten::addmm,k1,7.0,3.0\n\
             nan,None,k2,7,2.0\n",
        );
        let r = compare(&spec("kernel_summary"), &ours, &reference);
        assert_eq!(r.matched_rows, 1);
        assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
        assert_eq!(r.mismatches[0].column, "Kernel stream");
        // GPU-only traces have no Parent cpu_op column: the key uses what exists.
        let gpu_only = table("Parent op category,Kernel name,Kernel stream,Kernel duration (µs)_sum\nruntime,k1,0,3.0\nruntime,k2,0,2.0\n");
        let r = compare(&spec("kernel_summary"), &gpu_only, &gpu_only);
        assert_eq!((r.mismatches.len(), r.matched_rows), (0, 2));
    }

    #[test]
    fn histogram_is_matched_by_position() {
        let t = table("bin_start,bin_end,count\n1.6,1.6752,8\n1.6752,1.7504,3\n");
        let mut ours = t.clone();
        ours.rows[1][2] = "4".into();
        let r = compare(&spec("short_kernel_histogram"), &ours, &t);
        assert_eq!(r.mismatches.len(), 1);
        assert_eq!(
            (
                r.mismatches[0].row_key.as_str(),
                r.mismatches[0].column.as_str()
            ),
            ("#2", "count")
        );
    }

    #[test]
    fn empty_sheets() {
        let empty = table("\n");
        assert_eq!(
            empty,
            Table {
                header: vec![],
                rows: vec![]
            }
        );
        let r = compare(&spec("short_kernels_summary"), &empty, &empty);
        assert_eq!(r.mismatches, vec![]);
        let header_only = table("bin_start,bin_end,count\n");
        assert_eq!(header_only.rows.len(), 0);
        assert!(Table::parse("a,b\n1\n").is_err());
    }

    #[test]
    fn repeated_column_names() {
        // An empty pandas aggregate with MultiIndex columns (hta short_kernels_summary).
        let t = table(
            "Kernel duration (µs),Kernel duration (µs),Kernel duration (µs)\nsum,count,mean\n",
        );
        assert_eq!(
            t.labels(),
            vec![
                "Kernel duration (µs)",
                "Kernel duration (µs) #2",
                "Kernel duration (µs) #3"
            ]
        );
        let r = compare(&spec("short_kernels_summary"), &t, &t);
        assert_eq!((r.mismatches.len(), r.matched_rows), (0, 1));
        let ours = table("Kernel duration (µs),Kernel duration (µs)\nsum,count\n");
        let r = compare(&spec("short_kernels_summary"), &ours, &t);
        assert_eq!(r.mismatches.len(), 1);
        assert_eq!(
            (
                r.mismatches[0].row_key.as_str(),
                r.mismatches[0].column.as_str()
            ),
            (HEADER, "Kernel duration (µs) #3")
        );
    }

    #[test]
    fn quoted_cells() {
        let t = table("name,Input Dims\n\"a,b\",\"((1, 2), ())\"\n\"say \"\"hi\"\"\",()\n");
        assert_eq!(t.rows[0], vec!["a,b", "((1, 2), ())"]);
        assert_eq!(t.rows[1][0], "say \"hi\"");
    }

    // ---- against the reference data (skipped when it is absent) ----

    fn reference_tables() -> Vec<(String, String, Table)> {
        let Some(dir) = crate::conformance::data_dir() else {
            eprintln!("skipped: no conformance data");
            return Vec::new();
        };
        let mut out = Vec::new();
        for trace in crate::conformance::discover_traces(&dir) {
            for entry in std::fs::read_dir(&trace.csv_dir).unwrap().flatten() {
                let path = entry.path();
                let Some(sheet) = path
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .strip_suffix(".csv")
                else {
                    continue;
                };
                out.push((
                    trace.id.clone(),
                    sheet.to_string(),
                    Table::read(&path).unwrap(),
                ));
            }
        }
        out
    }

    #[test]
    fn references_match_themselves_and_follow_their_specs() {
        let tables = reference_tables();
        for (trace, sheet, t) in &tables {
            let Some(spec) = sheets::spec(sheet) else {
                panic!("{trace}: reference sheet {sheet} has no spec in sheets.rs");
            };
            let r = compare(&spec, t, t);
            assert_eq!(r.mismatches, vec![], "{trace} {sheet}");
            assert_eq!(r.matched_rows, t.rows.len(), "{trace} {sheet}");
            // Keys are unique (no "#2" suffixes), so pairing is by key alone.
            if let Some(cols) = key_columns(&spec, t, t) {
                let idx: Vec<usize> = cols.iter().map(|c| c.1).collect();
                assert!(
                    row_keys(t, Some(&idx))
                        .iter()
                        .all(|(k, _)| !k.contains("\u{1}#")),
                    "{trace} {sheet}: duplicate keys"
                );
            }
            check_sorted(&spec, t).unwrap_or_else(|e| panic!("{trace} {sheet}: {e}"));
        }
    }

    #[test]
    fn perturbed_reference_fails_on_exactly_that_cell() {
        let tables = reference_tables();
        let Some((_, _, t)) = tables.iter().find(|(trace, sheet, _)| {
            trace.ends_with("gaunernst_bert-small-uncased__1016001") && sheet == "ops_unique_args"
        }) else {
            return;
        };
        let s = spec("ops_unique_args");
        let col = t.col("total_direct_kernel_time_mean").unwrap();
        let r = compare(&s, &perturb(t, 1, col, 1e-3), t);
        assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
        assert_eq!(r.mismatches[0].column, "total_direct_kernel_time_mean");
        assert!(r.mismatches[0]
            .row_key
            .starts_with("aten::addmm | GEMM | python3"));
        assert!(compare(&s, &perturb(t, 1, col, 1e-9), t)
            .mismatches
            .is_empty());

        // A number inside a literal cell: 98.718 → 98.8167…, and → 98.718000000098.
        let col = t.col("kernel_details_summary").unwrap();
        let cell = &t.rows[0][col];
        assert!(cell.contains("'total_duration_us': np.float64(98.718)"));
        for (replacement, fails) in [
            ("np.float64(98.816718)", true),
            ("np.float64(98.718000000098)", false),
            ("98.718", false),
        ] {
            let mut ours = t.clone();
            ours.rows[0][col] = cell.replace("np.float64(98.718)", replacement);
            let r = compare(&s, &ours, t);
            assert_eq!(
                r.mismatches.len(),
                usize::from(fails),
                "{replacement}: {:?}",
                r.mismatches
            );
        }
    }
}
