//! Reopening a `tracesql export` directory: the tables straight from Parquet,
//! with no JSON to parse and no call tree to link, giving the same tables (the
//! `trace` column included) as loading the trace itself.
//!
//! A directory is an export when it holds the manifest ([`super::MARKER`]);
//! an export written with other table schemas is refused with a request to export
//! again rather than read wrongly.

use std::fs::File;
use std::path::Path;

use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::LoadedTrace;
use super::{ExportedTrace, Manifest, TraceInfo, FORMAT, FORMAT_VERSION, MARKER};
use crate::ingest::{IngestError, Problem};
use crate::model::{TableDoc, DERIVED, SCHEMA_VERSION, TABLES};

/// Whether `path` names a directory (an export, or a mistake to report).
pub fn is_directory(path: &str) -> bool {
    path != "-" && Path::new(path).is_dir()
}

fn fail(dir: &str, message: String) -> IngestError {
    IngestError::new(dir, Problem::Export(message))
}

/// Reads and checks the manifest of the export at `dir`.
pub fn read_manifest(dir: &str) -> Result<Manifest, IngestError> {
    let path = Path::new(dir).join(MARKER);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(fail(
                dir,
                format!(
                    "a directory without {MARKER}; give a trace file (.json, .json.gz, .zip) \
                     or a directory written by `tracesql export --parquet`"
                ),
            ))
        }
        Err(e) => return Err(fail(dir, format!("{MARKER}: {e}"))),
    };
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| fail(dir, format!("{MARKER}: {e}")))?;
    if manifest.format != FORMAT || manifest.format_version > FORMAT_VERSION {
        return Err(fail(
            dir,
            format!(
                "{MARKER} says format {} version {}, this tracesql reads {FORMAT} up to version {FORMAT_VERSION}",
                manifest.format, manifest.format_version
            ),
        ));
    }
    if manifest.schema_version != SCHEMA_VERSION {
        return Err(fail(
            dir,
            format!(
                "written by tracesql {} with table schema version {}, this tracesql uses version \
                 {SCHEMA_VERSION}; export the trace again",
                manifest.tracesql_version, manifest.schema_version
            ),
        ));
    }
    Ok(manifest)
}

/// Every trace of the export at `dir`, in manifest order, with its provenance.
pub fn read_export(dir: &str) -> Result<Vec<(LoadedTrace, TraceInfo)>, IngestError> {
    let manifest = read_manifest(dir)?;
    manifest
        .traces
        .iter()
        .map(|trace| Ok((read_trace(dir, trace)?, trace.info.clone())))
        .collect()
}

/// Reads one trace's tables, one thread per table. The derived tables
/// (`kernel_ancestors`, `tree_edges`) are left out: they are derived from
/// events and kernels when read, as for a trace loaded from JSON (the export
/// holds them for other tools).
fn read_trace(dir: &str, trace: &ExportedTrace) -> Result<LoadedTrace, IngestError> {
    let root = Path::new(dir);
    let held = || TABLES.iter().filter(|doc| !DERIVED.contains(&doc.name));
    let results: Vec<Result<RecordBatch, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = held()
            .map(|doc| {
                let path = Manifest::data_file(root, "tables", doc.name, trace);
                scope.spawn(move || {
                    read_table(&path, doc).map_err(|e| {
                        let shown = path.strip_prefix(root).unwrap_or(&path);
                        format!("{}: {e}", shown.display())
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("reader panicked".into())))
            .collect()
    });
    let mut tables = Vec::with_capacity(TABLES.len());
    for (doc, result) in held().zip(results) {
        tables.push((doc.name, result.map_err(|e| fail(dir, e))?));
    }
    Ok(LoadedTrace {
        name: trace.info.name.clone(),
        tables,
        events_apart: None,
        run: trace.run.clone(),
    })
}

/// One table of one trace of the export at `dir`, as a single batch.
pub fn read_trace_table(
    dir: &str,
    trace: &ExportedTrace,
    doc: &TableDoc,
) -> Result<RecordBatch, IngestError> {
    let root = Path::new(dir);
    let path = Manifest::data_file(root, "tables", doc.name, trace);
    read_table(&path, doc).map_err(|e| {
        let shown = path.strip_prefix(root).unwrap_or(&path);
        fail(dir, format!("{}: {e}", shown.display()))
    })
}

/// A Parquet file's schema (as written, from its embedded Arrow schema) and rows.
pub fn read_parquet(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    let schema = builder.schema().clone();
    let reader = builder.build().map_err(|e| e.to_string())?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((schema, batches))
}

/// One table file as a single batch of the documented schema.
fn read_table(path: &Path, doc: &TableDoc) -> Result<RecordBatch, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    let expected = crate::model::stored_schema(&doc.schema());
    let found = builder.schema().clone();
    let same_columns = found.fields().len() == expected.fields().len()
        && found
            .fields()
            .iter()
            .zip(expected.fields())
            .all(|(f, e)| f.name() == e.name() && f.data_type() == e.data_type());
    if !same_columns {
        return Err(format!(
            "columns differ from table {} of this tracesql; export the trace again",
            doc.name
        ));
    }
    let rows = builder.metadata().file_metadata().num_rows().max(1) as usize;
    let reader = builder
        .with_batch_size(rows)
        .build()
        .map_err(|e| e.to_string())?;
    let mut batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let batch = match batches.len() {
        0 => return Ok(RecordBatch::new_empty(doc.schema())),
        1 => batches.pop().expect("one batch"),
        _ => concat_batches(&found, &batches).map_err(|e| e.to_string())?,
    };
    // Stored as plain text, held dictionary-encoded (see `model::stored_schema`).
    crate::model::cast_batch(&batch, doc.schema()).map_err(|e| e.to_string())
}
