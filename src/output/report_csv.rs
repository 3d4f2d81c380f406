//! CSV and Markdown in the reference tool's formatting (pandas `to_csv`).
//!
//! Floats print as Python's `repr` (shortest round trip, `.0` on integral values,
//! exponent below 1e-4 and from 1e16), NULL as an empty cell, booleans as
//! True/False, so a report diffed against the reference differs only where the
//! numbers do.

use std::io::{self, Write};

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type, UInt64Type};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use tracesql_udfs::pyfmt::python_float_repr;

/// One cell as the reference prints it.
pub fn cell(column: &dyn Array, row: usize) -> String {
    if column.is_null(row) {
        return String::new();
    }
    match column.data_type() {
        DataType::Float64 => {
            let v = column.as_primitive::<Float64Type>().value(row);
            if v.is_nan() {
                String::new()
            } else {
                python_float_repr(v)
            }
        }
        DataType::Int64 => column.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Boolean => if column.as_boolean().value(row) {
            "True"
        } else {
            "False"
        }
        .to_string(),
        _ => array_value_to_string(column, row).unwrap_or_default(),
    }
}

fn quote_csv(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Writes `batches` as CSV with a header (QUOTE_MINIMAL, `\n` line ends).
pub fn write_csv(
    out: &mut dyn Write,
    header: &[String],
    batches: &[RecordBatch],
) -> io::Result<()> {
    let line: Vec<String> = header.iter().map(|h| quote_csv(h)).collect();
    writeln!(out, "{}", line.join(","))?;
    for batch in batches {
        for row in 0..batch.num_rows() {
            let fields: Vec<String> = batch
                .columns()
                .iter()
                .map(|c| quote_csv(&cell(c.as_ref(), row)))
                .collect();
            writeln!(out, "{}", fields.join(","))?;
        }
    }
    Ok(())
}

/// Writes `batches` as a GitHub Markdown table.
pub fn write_markdown(
    out: &mut dyn Write,
    header: &[String],
    batches: &[RecordBatch],
) -> io::Result<()> {
    write_markdown_with(out, header, batches, &cell)
}

/// [`write_markdown`] with each cell's text given by `cell_text` (e.g. rounded
/// for reading); `|` and line breaks in it are escaped here.
pub fn write_markdown_with(
    out: &mut dyn Write,
    header: &[String],
    batches: &[RecordBatch],
    cell_text: &dyn Fn(&dyn datafusion::arrow::array::Array, usize) -> String,
) -> io::Result<()> {
    let escape = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let names: Vec<String> = header.iter().map(|h| escape(h)).collect();
    writeln!(out, "| {} |", names.join(" | "))?;
    writeln!(out, "|{}", "---|".repeat(header.len()))?;
    for batch in batches {
        for row in 0..batch.num_rows() {
            let fields: Vec<String> = batch
                .columns()
                .iter()
                .map(|c| escape(&cell_text(c.as_ref(), row)))
                .collect();
            writeln!(out, "| {} |", fields.join(" | "))?;
        }
    }
    Ok(())
}
