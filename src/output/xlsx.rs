//! Excel workbooks in the shape of TraceLens's `perf_report.xlsx`.
//!
//! A first `about` sheet says what the workbook was made from (trace, platform,
//! tool and query versions); then one sheet per report under TraceLens's sheet
//! name, each with a bold, frozen header row, an autofilter and column widths
//! fitted to the content. Numbers are stored as numbers (NaN as an empty cell,
//! since Excel has no NaN), booleans as booleans, everything else as text.

use std::io;
use std::path::Path;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, Workbook, Worksheet, XlsxError};
use tracesql_udfs::pyfmt::python_float_repr;

use super::Sheet;
use super::{atomic, report_csv};

/// Name of the first sheet.
pub const ABOUT_SHEET: &str = "about";
/// Data rows a sheet can hold below its header (Excel's limit is 1,048,576 rows).
const MAX_DATA_ROWS: usize = 1_048_575;
/// Longest text Excel stores in one cell.
const MAX_CELL_CHARS: usize = 32_767;
/// Column widths, in characters.
const MIN_WIDTH: usize = 6;
const MAX_WIDTH: usize = 60;
/// Rows looked at to fit a column's width.
const WIDTH_SAMPLE_ROWS: usize = 2_000;

/// Writes `sheets` to the workbook at `path` (atomically) after an `about` sheet
/// listing `about` (key, value) pairs and the reports.
pub fn write_workbook(path: &Path, about: &[(String, String)], sheets: &[Sheet]) -> io::Result<()> {
    let bytes = workbook_bytes(about, sheets).map_err(io::Error::other)?;
    atomic::write_file(path, |out| out.write_all(&bytes))
}

/// The workbook's creation time, seconds since 1970: `SOURCE_DATE_EPOCH` when
/// set to a number, else 1980-01-01 (the earliest time a zip entry can carry).
fn document_epoch() -> i64 {
    const ZIP_EPOCH: i64 = 315_532_800;
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|&t| t >= 0)
        .unwrap_or(ZIP_EPOCH)
}

/// The workbook as the bytes of an .xlsx file.
pub fn workbook_bytes(about: &[(String, String)], sheets: &[Sheet]) -> Result<Vec<u8>, XlsxError> {
    let bold = Format::new().set_bold();
    let mut workbook = Workbook::new();
    // The same reports give the same bytes: the document's creation time is
    // SOURCE_DATE_EPOCH (the reproducible-builds convention) or 1980-01-01, never
    // the clock; when and from what the reports were made is on the about sheet.
    let created = ExcelDateTime::from_timestamp(document_epoch())?;
    workbook.set_properties(&DocProperties::new().set_creation_datetime(&created));
    let mut names: Vec<String> = vec![ABOUT_SHEET.to_string()];
    let mut truncated = Vec::new();
    for sheet in sheets {
        names.push(unique_sheet_name(&sheet.sheet, &names));
    }

    let info = workbook.add_worksheet();
    info.set_name(ABOUT_SHEET)?;
    let mut widths = vec![0usize; 4];
    let mut row = 0u32;
    for (key, value) in about {
        info.write_string_with_format(row, 0, key, &bold)?;
        info.write_string(row, 1, value)?;
        fit(&mut widths, 0, key.chars().count());
        fit(&mut widths, 1, value.chars().count());
        row += 1;
    }
    row += 1;
    let report_header = ["sheet", "query", "query version", "rows"];
    for (col, title) in report_header.iter().enumerate() {
        info.write_string_with_format(row, col as u16, *title, &bold)?;
        fit(&mut widths, col, title.len());
    }
    for (sheet, name) in sheets.iter().zip(&names[1..]) {
        row += 1;
        info.write_string(row, 0, name)?;
        info.write_string(row, 1, &sheet.query_name)?;
        info.write_number(row, 2, sheet.query_version as f64)?;
        info.write_number(row, 3, sheet.rows() as f64)?;
        fit(&mut widths, 0, name.chars().count());
        fit(&mut widths, 1, sheet.query_name.chars().count());
    }
    set_widths(info, &widths)?;

    for (sheet, name) in sheets.iter().zip(&names[1..]) {
        let ws = workbook.add_worksheet();
        ws.set_name(name)?;
        let written = write_sheet(ws, sheet, &bold)?;
        if written < sheet.rows() {
            truncated.push((name.clone(), written, sheet.rows()));
        }
    }
    if !truncated.is_empty() {
        let info = workbook.worksheet_from_name(ABOUT_SHEET)?;
        let mut row = row + 2;
        for (name, written, rows) in truncated {
            let note = format!("sheet {name}: first {written} of {rows} rows (Excel's row limit)");
            info.write_string(row, 0, note)?;
            row += 1;
        }
    }
    workbook.save_to_buffer()
}

/// Writes one report; returns the data rows written.
fn write_sheet(ws: &mut Worksheet, sheet: &Sheet, bold: &Format) -> Result<usize, XlsxError> {
    let mut widths: Vec<usize> = sheet.header.iter().map(|h| h.chars().count()).collect();
    for (col, title) in sheet.header.iter().enumerate() {
        ws.write_string_with_format(0, col as u16, title, bold)?;
    }
    let mut row = 0usize;
    'batches: for batch in &sheet.batches {
        let columns: Vec<ArrayRef> = batch.columns().iter().map(as_excel_column).collect();
        for i in 0..batch.num_rows() {
            if row == MAX_DATA_ROWS {
                break 'batches;
            }
            row += 1;
            for (col, column) in columns.iter().enumerate() {
                let chars = write_cell(ws, row as u32, col as u16, column.as_ref(), i)?;
                if row <= WIDTH_SAMPLE_ROWS {
                    fit(&mut widths, col, chars);
                }
            }
        }
    }
    set_widths(ws, &widths)?;
    ws.set_freeze_panes(1, 0)?;
    if !sheet.header.is_empty() {
        ws.autofilter(0, 0, row as u32, (sheet.header.len() - 1) as u16)?;
    }
    Ok(row)
}

/// Numeric columns as Float64 (Excel stores every number as a double).
fn as_excel_column(column: &ArrayRef) -> ArrayRef {
    if column.data_type().is_numeric() && column.data_type() != &DataType::Float64 {
        if let Ok(floats) = cast(column, &DataType::Float64) {
            return floats;
        }
    }
    column.clone()
}

/// Writes one cell; returns its width in characters (0 for an empty cell).
fn write_cell(
    ws: &mut Worksheet,
    row: u32,
    col: u16,
    column: &dyn Array,
    i: usize,
) -> Result<usize, XlsxError> {
    if column.is_null(i) {
        return Ok(0);
    }
    match column.data_type() {
        DataType::Float64 => {
            let v = column.as_primitive::<Float64Type>().value(i);
            if v.is_finite() {
                ws.write_number(row, col, v)?;
                // Excel's General format shows at most 11 significant characters.
                Ok(python_float_repr(v).len().min(11))
            } else if v.is_nan() {
                Ok(0)
            } else {
                let text = if v > 0.0 { "inf" } else { "-inf" };
                ws.write_string(row, col, text)?;
                Ok(text.len())
            }
        }
        DataType::Boolean => {
            ws.write_boolean(row, col, column.as_boolean().value(i))?;
            Ok(5)
        }
        _ => {
            let mut text = report_csv::cell(column, i);
            if text.chars().count() > MAX_CELL_CHARS {
                text = text.chars().take(MAX_CELL_CHARS).collect();
            }
            ws.write_string(row, col, &text)?;
            Ok(text.chars().count())
        }
    }
}

fn fit(widths: &mut Vec<usize>, col: usize, chars: usize) {
    if widths.len() <= col {
        widths.resize(col + 1, 0);
    }
    widths[col] = widths[col].max(chars);
}

fn set_widths(ws: &mut Worksheet, widths: &[usize]) -> Result<(), XlsxError> {
    for (col, chars) in widths.iter().enumerate() {
        let width = (*chars).clamp(MIN_WIDTH, MAX_WIDTH) + 2;
        ws.set_column_width(col as u16, width as f64)?;
    }
    Ok(())
}

/// `name` made valid as an Excel sheet name (at most 31 characters, none of
/// `[]:*?/\`) and different from every name in `taken` (case-insensitively).
pub fn unique_sheet_name(name: &str, taken: &[String]) -> String {
    let clean: String = name
        .chars()
        .map(|c| if "[]:*?/\\".contains(c) { '_' } else { c })
        .collect();
    let clean = clean.trim_matches('\'');
    let base: String = if clean.is_empty() {
        "sheet".into()
    } else {
        clean.to_string()
    };
    let is_taken = |n: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    let mut candidate: String = base.chars().take(31).collect();
    let mut k = 1;
    while is_taken(&candidate) {
        k += 1;
        let suffix = format!("_{k}");
        candidate = base.chars().take(31 - suffix.len()).collect::<String>() + &suffix;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheet_names_are_valid_and_unique() {
        let taken = vec!["about".to_string(), "ops_summary".to_string()];
        assert_eq!(unique_sheet_name("gpu_timeline", &taken), "gpu_timeline");
        assert_eq!(unique_sheet_name("OPS_SUMMARY", &taken), "OPS_SUMMARY_2");
        assert_eq!(unique_sheet_name("a/b:c", &taken), "a_b_c");
        let long = unique_sheet_name(&"x".repeat(40), &taken);
        assert_eq!(long.len(), 31);
        assert_eq!(unique_sheet_name("", &taken), "sheet");
    }
}
