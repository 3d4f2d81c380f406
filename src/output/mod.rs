//! Rendering query results: terminal tables for people ([`terminal`]), and CSV,
//! JSON, Markdown, Parquet, Excel at full precision; every file written
//! atomically ([`atomic`]).

pub mod atomic;
pub mod parquet;
pub mod report_csv;
pub mod terminal;
pub mod xlsx;

use std::io::Write;

use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// A named result headed for a file: one report's sheet (a CSV, a workbook
/// sheet, a Parquet file). Defined here, not in `report`, because every writer
/// takes it and writers sit below the code that runs queries.
pub struct Sheet {
    /// Output name (`-- sheet:`, default the query name): `<sheet>.csv`.
    pub sheet: String,
    pub query_name: String,
    pub query_version: u32,
    /// Column names as the query returned them.
    pub header: Vec<String>,
    pub batches: Vec<RecordBatch>,
}

impl Sheet {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

/// A machine-readable text format, at full precision (people's formats are
/// [`terminal::PrintFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
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
