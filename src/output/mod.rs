//! Rendering query results: terminal tables, CSV, JSON, Markdown, Parquet, Excel;
//! every file written atomically.

pub mod atomic;
pub mod parquet;
pub mod report_csv;
pub mod xlsx;

use std::io::Write;

use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A boxed table for people.
    Table,
    /// CSV with a header row.
    Csv,
    /// A JSON array of row objects.
    Json,
}

/// Writes `batches` to `out` in `format`.
pub fn write_batches(
    out: &mut dyn Write,
    batches: &[RecordBatch],
    format: Format,
) -> Result<(), ArrowError> {
    match format {
        Format::Table => {
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            if rows > 0 {
                writeln!(out, "{}", pretty_format_batches(batches)?)?;
            }
            writeln!(out, "({rows} row{})", if rows == 1 { "" } else { "s" })?;
        }
        Format::Csv => {
            let mut writer = datafusion::arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut *out);
            for batch in batches {
                writer.write(batch)?;
            }
        }
        Format::Json => {
            let mut writer = datafusion::arrow::json::ArrayWriter::new(&mut *out);
            let refs: Vec<&RecordBatch> = batches.iter().collect();
            writer.write_batches(&refs)?;
            writer.finish()?;
            writeln!(out)?;
        }
    }
    Ok(())
}
