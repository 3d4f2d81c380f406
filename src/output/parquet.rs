//! Parquet files for BI tools and for reopening an export without the JSON.
//!
//! One file per table (or report) and trace: zstd-compressed, row groups of
//! [`ROW_GROUP_ROWS`], page-level column statistics (so engines can skip row
//! groups and pages), dictionary encoding for every column but floats (names,
//! categories and ids repeat; timestamps and durations do not), and the caller's
//! key-value metadata in the footer. The Arrow schema is embedded too, so readers
//! get exactly the column types back.

use std::io;
use std::path::Path;

use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::metadata::KeyValue;
use datafusion::parquet::file::properties::{EnabledStatistics, WriterProperties};
use datafusion::parquet::schema::types::ColumnPath;

use super::atomic;

/// Rows per row group: large enough for good compression and few footers' worth
/// of statistics, small enough that a 100k-event trace spans a couple of groups
/// that readers can scan in parallel.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// zstd level: 3 is zstd's default, near the best speed/size trade-off.
const ZSTD_LEVEL: i32 = 3;

/// Writer settings for a file of `schema` with footer `metadata`.
pub fn writer_properties(schema: &SchemaRef, metadata: &[(String, String)]) -> WriterProperties {
    let level = ZstdLevel::try_new(ZSTD_LEVEL).expect("valid zstd level");
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Page)
        // Long strings (args JSON) would bloat the statistics; a prefix still prunes.
        .set_statistics_truncate_length(Some(64))
        .set_dictionary_enabled(true)
        .set_key_value_metadata(Some(
            metadata
                .iter()
                .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
                .collect(),
        ));
    for field in schema.fields() {
        if matches!(field.data_type(), DataType::Float64 | DataType::Float32) {
            builder = builder
                .set_column_dictionary_enabled(ColumnPath::from(field.name().as_str()), false);
        }
    }
    builder.build()
}

/// Writes `batches` (all of `schema`) to `path` atomically, with `metadata` as
/// the file's key-value metadata.
pub fn write_parquet(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    metadata: &[(String, String)],
) -> io::Result<()> {
    // ArrowWriter needs a `Send` sink; the file is encoded in memory (it is
    // compressed, a fraction of the tables' size) and then written atomically.
    let props = writer_properties(schema, metadata);
    let mut writer =
        ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).map_err(io::Error::other)?;
    for batch in batches {
        writer.write(batch).map_err(io::Error::other)?;
    }
    let bytes = writer.into_inner().map_err(io::Error::other)?;
    atomic::write_file(path, |out| out.write_all(&bytes))
}
