//! What an export directory holds, and where each trace came from: the
//! manifest `tracesql export` writes last and reopening reads first.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The manifest's file name inside an export directory.
pub const MARKER: &str = "tracesql-export.json";
/// The manifest's `format` value.
pub const FORMAT: &str = "tracesql-export";
/// Version of the directory layout and manifest; bumped when either changes.
pub const FORMAT_VERSION: u32 = 1;
/// The data file in each table or report directory (or partition).
pub const DATA_FILE: &str = "part-0.parquet";

/// The manifest: what an export holds and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    pub format_version: u32,
    /// The tracesql that wrote the export.
    pub tracesql_version: String,
    /// [`crate::model::SCHEMA_VERSION`] of the tables.
    pub schema_version: u32,
    /// Whether files live in `trace=<name>/` partitions (more than one trace).
    pub partitioned: bool,
    pub traces: Vec<ExportedTrace>,
}

/// One trace in an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedTrace {
    #[serde(flatten)]
    pub info: TraceInfo,
    /// Its partition path when the export is partitioned (`trace=<name>`, or
    /// `run=<run>/rank=<rank>/trace=<name>` in an appended dataset), else empty.
    pub partition: String,
    /// Every table with its row count, in [`crate::model::TABLES`] order.
    pub tables: Vec<ExportedFile>,
    /// Every report written, in catalog order.
    pub reports: Vec<ExportedReport>,
    /// The [`crate::report::fingerprint`] of the session that ran the reports:
    /// `report DIR` reuses them when its session has the same (empty in exports
    /// written before it was recorded: those reports are always recomputed).
    #[serde(default)]
    pub reports_fingerprint: String,
    /// The trace's rank (its `rank=` partition), when the dataset was appended
    /// to and the trace says (`distributedInfo.rank`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
    /// The run it was appended under (`--run`, its `run=` partition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// A table in an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedFile {
    pub name: String,
    pub rows: usize,
}

/// A report in an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedReport {
    /// The query's name: the directory under `reports/`.
    pub query: String,
    pub version: u32,
    /// The TraceLens sheet it fills.
    pub sheet: String,
    pub rows: usize,
}

/// Where a loaded trace came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// The `trace` column value.
    pub name: String,
    /// The trace file as it was given (`-` for standard input).
    pub source: String,
    /// SHA-256 of the trace file's bytes as stored (compressed if it was), hex;
    /// empty for standard input.
    pub source_sha256: String,
    /// The GPU the trace was taken on (`deviceProperties[0].name`), empty if the
    /// trace does not say.
    #[serde(default)]
    pub device: String,
    /// The platform the reports' roofline columns used (`--platform`, or the one
    /// `device` names), empty if none is known.
    #[serde(default)]
    pub platform: String,
    /// Whether secrets in `trace_meta` were replaced (see [`redact`]).
    pub redacted: bool,
}

impl ExportedTrace {
    /// Every data file of the trace, as (`tables` or `reports`, name): what
    /// [`Manifest::data_file`] places.
    pub fn files(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let tables = self.tables.iter().map(|t| ("tables", t.name.as_str()));
        tables.chain(self.reports.iter().map(|r| ("reports", r.query.as_str())))
    }
}

impl Manifest {
    /// The file of `table` (or of report query `name` with `reports`) for `trace`.
    pub fn data_file(dir: &Path, kind: &str, name: &str, trace: &ExportedTrace) -> PathBuf {
        let mut path = dir.join(kind).join(name);
        if !trace.partition.is_empty() {
            path.push(&trace.partition);
        }
        path.join(DATA_FILE)
    }
}
