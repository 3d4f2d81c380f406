//! The provenance of a loaded trace: its source file, that file's SHA-256 and
//! the GPU its metadata names (the `about` sheet and the export's metadata).

use std::io::{self, Read};
use std::path::Path;

use datafusion::arrow::array::StringArray;
use datafusion::arrow::record_batch::RecordBatch;
use sha2::{Digest, Sha256};

use super::{load_trace, reopen, LoadedTrace, TraceInfo};
use crate::ingest::{IngestError, Problem};

/// Loads `path` (a trace file, or an export directory) with its provenance.
///
/// For a trace file this hashes the file once more; reopened exports carry their
/// provenance in the manifest.
pub fn load_described(path: &str) -> Result<Vec<(LoadedTrace, TraceInfo)>, IngestError> {
    if reopen::is_directory(path) {
        return reopen::read_export(path);
    }
    let trace = load_trace(path)?;
    let info = describe(path, &trace)?;
    Ok(vec![(trace, info)])
}

/// The provenance of `trace`, read from the file at `path`.
pub fn describe(path: &str, trace: &LoadedTrace) -> Result<TraceInfo, IngestError> {
    let source_sha256 = if path == "-" {
        String::new()
    } else {
        sha256_file(Path::new(path))
            .map_err(|e| IngestError::new(path, Problem::Read(format!("cannot hash: {e}"))))?
    };
    Ok(describe_hashed(path, trace, source_sha256))
}

/// [`describe`] with the file's SHA-256 already computed (appending to a
/// dataset hashes every input first, to skip those it holds).
pub fn describe_hashed(path: &str, trace: &LoadedTrace, source_sha256: String) -> TraceInfo {
    TraceInfo {
        name: trace.name.clone(),
        source: path.to_string(),
        source_sha256,
        device: device_of(&trace.tables),
        platform: String::new(),
        redacted: false,
    }
}

/// SHA-256 of a file, as lower-case hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// `deviceProperties[0].name` from a trace's `trace_meta` table, or "".
pub fn device_of(tables: &[(&'static str, RecordBatch)]) -> String {
    let meta = tables.iter().find(|(t, _)| *t == "trace_meta");
    let value = meta.and_then(|(_, batch)| {
        let keys = string_column(batch, "key")?;
        let values = string_column(batch, "value")?;
        let row = (0..batch.num_rows()).find(|&i| keys.value(i) == "deviceProperties")?;
        let devices: serde_json::Value = serde_json::from_str(values.value(row)).ok()?;
        devices.get(0)?.get("name")?.as_str().map(str::to_string)
    });
    value.unwrap_or_default()
}

pub(crate) fn string_column<'a>(batch: &'a RecordBatch, name: &str) -> Option<&'a StringArray> {
    batch
        .column_by_name(name)?
        .as_any()
        .downcast_ref::<StringArray>()
}
