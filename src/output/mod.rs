//! Rendering query results: terminal tables for people ([`terminal`]), and CSV,
//! JSON, Markdown, Parquet, Excel at full precision; every file written
//! atomically ([`atomic`]).

pub mod atomic;
pub mod parquet;
pub mod report_csv;
pub mod terminal;
pub mod xlsx;

use std::io::Write;

use datafusion::arrow::array::Array;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// A named result headed for a file: one report's sheet (a CSV, a workbook
/// sheet, a Parquet file). Defined here, not in `report`, because every writer
/// takes it and writers sit below the code that runs queries.
#[derive(Debug, Clone, Default)]
pub struct Sheet {
    /// Output name (`-- sheet:`, default the query name): `<sheet>.csv`.
    pub sheet: String,
    pub query_name: String,
    pub query_version: u32,
    /// Column names as the query returned them.
    pub header: Vec<String>,
    pub batches: Vec<RecordBatch>,
    /// What the sheet's CSV file holds instead of its header when it has no rows
    /// (the report's `-- empty_text:`, e.g. TraceLens's own empty file under
    /// `--tracelens-compat`); None: the header.
    pub empty_text: Option<String>,
}

impl Sheet {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    /// The schema of its batches; with none, its header as text columns (so an
    /// empty sheet still prints its column names).
    pub fn schema(&self) -> datafusion::arrow::datatypes::Schema {
        use datafusion::arrow::datatypes::{DataType, Field, Schema};
        match self.batches.first() {
            Some(batch) => batch.schema().as_ref().clone(),
            None => Schema::new(
                self.header
                    .iter()
                    .map(|h| Field::new(h, DataType::Utf8, true))
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// Every row as display cells (NULL as ""), in column order.
    pub fn cells(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for batch in &self.batches {
            for row in 0..batch.num_rows() {
                out.push(
                    batch
                        .columns()
                        .iter()
                        .map(|c| report_csv::cell(c.as_ref(), row))
                        .collect(),
                );
            }
        }
        out
    }

    /// The position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Whether a cell is NULL, by row number over all batches.
    pub fn is_null(&self, mut row: usize, column: usize) -> bool {
        for batch in &self.batches {
            if row < batch.num_rows() {
                return batch.column(column).is_null(row);
            }
            row -= batch.num_rows();
        }
        true
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

/// Rows of `batches` as JSON objects (NULL as null), in order.
pub fn json_rows(batches: &[RecordBatch]) -> Result<Vec<serde_json::Value>, ArrowError> {
    use datafusion::arrow::json::writer::{JsonArray, WriterBuilder};
    let mut buffer = Vec::new();
    {
        let mut writer = WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, JsonArray>(&mut buffer);
        let refs: Vec<&RecordBatch> = batches.iter().collect();
        writer.write_batches(&refs)?;
        writer.finish()?;
    }
    if buffer.is_empty() {
        return Ok(Vec::new());
    }
    match serde_json::from_slice(&buffer) {
        Ok(serde_json::Value::Array(rows)) => Ok(rows),
        Ok(_) => Ok(Vec::new()),
        Err(e) => Err(ArrowError::JsonError(e.to_string())),
    }
}
