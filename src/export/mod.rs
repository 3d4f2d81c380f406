//! `tracesql export`: every table and every report of one or more traces as a
//! Parquet dataset that BI tools (DuckDB, pyarrow, Spark) read directly, and that
//! tracesql reopens without parsing the JSON again.
//!
//! Layout of an export directory `DIR`:
//! ```text
//! DIR/tracesql-export.json                         manifest, written last: marks DIR as an export
//! DIR/tables/<table>/part-0.parquet                one trace
//! DIR/tables/<table>/trace=<name>/part-0.parquet   several traces: Hive-style partitions
//! DIR/reports/<query>/...                          the same, one directory per report query
//! ```
//! Every file also carries its provenance as Parquet key-value metadata (see
//! [`file_metadata`]). Secrets in the trace's metadata are redacted unless the
//! caller says otherwise (see [`redact`]).
//!
//! The export is assembled in a hidden sibling directory and renamed into place
//! once complete, so `DIR` is either the previous export or the new one, never
//! half of either.

pub mod append;
pub mod critical_path;
pub mod overlay;
pub mod redact;
mod stored;

pub use stored::stored_reports;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;

use crate::catalog::Catalog;
use crate::engine::{Engine, Prepare};
use crate::load::{
    load_described, reopen, string_column, ExportedFile, ExportedReport, ExportedTrace,
    LoadedTrace, Manifest, TraceInfo, FORMAT, FORMAT_VERSION, MARKER,
};
use crate::model::{cast_batch, stored_schema, table_doc, SCHEMA_VERSION};
use crate::output::{atomic, parquet};
use crate::report::{fingerprint, run_reports, Sheet};
use crate::Error;

/// A check run before each file is written (see [`ExportOptions::before_write`]).
pub type WriteHook<'a> = dyn Fn(&Path) -> io::Result<()> + Sync + 'a;

/// Options of [`export_parquet`].
#[derive(Default)]
pub struct ExportOptions<'a> {
    /// Replace secret-looking values in `trace_meta` (the CLI default).
    pub redact: bool,
    /// Called with each data file's final path before it is written; an error
    /// aborts the export as a failed write would. Tests inject failures with it.
    pub before_write: Option<&'a WriteHook<'a>>,
    /// Called on each trace's session before the trace is added (the CLI applies
    /// `--platform` / `--platforms` here), so the reports match `tracesql report`.
    pub prepare: Option<&'a Prepare<'a>>,
}

/// `tables` with secret-looking values in `trace_meta` replaced.
pub fn redact_tables(
    tables: Vec<(&'static str, RecordBatch)>,
) -> Result<Vec<(&'static str, RecordBatch)>, Error> {
    tables
        .into_iter()
        .map(|(table, batch)| {
            if table != "trace_meta" {
                return Ok((table, batch));
            }
            let (Some(keys), Some(values)) =
                (string_column(&batch, "key"), string_column(&batch, "value"))
            else {
                return Ok((table, batch));
            };
            let redacted: StringArray = (0..batch.num_rows())
                .map(|i| {
                    if values.is_null(i) {
                        return None;
                    }
                    let value = values.value(i);
                    Some(redact::redact_meta(keys.value(i), value).unwrap_or_else(|| value.into()))
                })
                .collect();
            let index = batch.schema().index_of("value").map_err(Error::query)?;
            let mut columns = batch.columns().to_vec();
            columns[index] = Arc::new(redacted);
            let batch = RecordBatch::try_new(batch.schema(), columns).map_err(Error::query)?;
            Ok((table, batch))
        })
        .collect()
}

/// Parquet key-value metadata common to every file of one trace.
pub fn file_metadata(info: &TraceInfo) -> Vec<(String, String)> {
    vec![
        (
            "tracesql.version".into(),
            env!("CARGO_PKG_VERSION").to_string(),
        ),
        ("tracesql.schema_version".into(), SCHEMA_VERSION.to_string()),
        ("tracesql.trace".into(), info.name.clone()),
        ("tracesql.source".into(), info.source.clone()),
        ("tracesql.source_sha256".into(), info.source_sha256.clone()),
        ("tracesql.device".into(), info.device.clone()),
        ("tracesql.platform".into(), info.platform.clone()),
        ("tracesql.redacted".into(), info.redacted.to_string()),
    ]
}

/// Writes every table and report of the traces at `inputs` under `target` (see
/// the module docs for the layout) and returns the manifest written.
///
/// `target` may be missing, empty, or a previous export, which is replaced only
/// once the new export is complete; anything else is refused.
pub async fn export_parquet(
    inputs: &[String],
    target: &Path,
    catalog: &Catalog,
    options: &ExportOptions<'_>,
) -> Result<Manifest, Error> {
    check_target(target)?;
    let mut count = 0;
    for path in inputs {
        count += if reopen::is_directory(path) {
            reopen::read_manifest(path)?.traces.len()
        } else {
            1
        };
    }
    // One input loaded at a time: a trace's tables are dropped once written.
    let mut dataset = Dataset::start(target, count > 1)?;
    for path in inputs {
        for (trace, info) in load_described(path)? {
            dataset.add(trace, info, catalog, options).await?;
        }
    }
    dataset.commit(target)
}

/// [`export_parquet`] of traces already loaded (with their provenance, see
/// [`crate::load::describe`]): what a session that holds its traces exports.
pub async fn export_loaded(
    traces: Vec<(LoadedTrace, TraceInfo)>,
    target: &Path,
    catalog: &Catalog,
    options: &ExportOptions<'_>,
) -> Result<Manifest, Error> {
    check_target(target)?;
    let mut dataset = Dataset::start(target, traces.len() > 1)?;
    for (trace, info) in traces {
        dataset.add(trace, info, catalog, options).await?;
    }
    dataset.commit(target)
}

/// An export being written: the staging directory and the manifest so far.
struct Dataset {
    staging: Staging,
    manifest: Manifest,
}

impl Dataset {
    fn start(target: &Path, partitioned: bool) -> Result<Self, Error> {
        Ok(Dataset {
            staging: Staging::create(target)?,
            manifest: empty_manifest(partitioned),
        })
    }

    /// Writes one trace's tables and reports into the staging directory.
    async fn add(
        &mut self,
        mut trace: LoadedTrace,
        mut info: TraceInfo,
        catalog: &Catalog,
        options: &ExportOptions<'_>,
    ) -> Result<(), Error> {
        // Names are unique as in a session: a repeated name gets `#2`, `#3`, ...
        let base = info.name.clone();
        let mut k = 1;
        while self
            .manifest
            .traces
            .iter()
            .any(|t| t.info.name == info.name)
        {
            k += 1;
            info.name = format!("{base}#{k}");
        }
        if info.name != trace.name {
            trace = trace.renamed(&info.name).map_err(Error::query)?;
        }
        let destination = if self.manifest.partitioned {
            Destination::Partition(partition_dir(&info.name))
        } else {
            Destination::Flat
        };
        let exported = export_trace(
            self.staging.path(),
            trace,
            info,
            destination,
            catalog,
            options,
        )
        .await?;
        self.manifest.traces.push(exported);
        Ok(())
    }

    /// Writes the manifest and moves the export into place.
    fn commit(self, target: &Path) -> Result<Manifest, Error> {
        let Dataset { staging, manifest } = self;
        let marker = staging.path().join(MARKER);
        atomic::write_file(&marker, |out| {
            serde_json::to_writer_pretty(&mut *out, &manifest)?;
            out.write_all(b"\n")
        })
        .map_err(|e| output_error(&marker, e))?;
        staging.commit().map_err(|e| {
            Error::Output(format!(
                "{}: cannot move the export into place: {e}",
                target.display()
            ))
        })?;
        Ok(manifest)
    }
}

/// The manifest of an export that holds no trace yet, written by this tracesql.
fn empty_manifest(partitioned: bool) -> Manifest {
    Manifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        tracesql_version: env!("CARGO_PKG_VERSION").into(),
        schema_version: SCHEMA_VERSION,
        partitioned,
        traces: Vec::new(),
    }
}

/// `trace=<name>`, with characters that cannot be in one path component (or
/// that a manifest could use to escape the export) replaced by `_`.
pub fn partition_dir(name: &str) -> String {
    safe_component("trace", name)
}

/// `key=<value>`, with characters that cannot be in one path component replaced
/// by `_` (see [`partition_dir`]).
pub fn safe_component(key: &str, value: &str) -> String {
    let safe: String = value
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("{key}={safe}")
}

/// Where a trace's files go under each table's directory.
enum Destination {
    /// Directly (an export of one trace).
    Flat,
    /// Under this partition path (`trace=<name>`, or `run=/rank=/trace=`).
    Partition(String),
}

/// One file to write.
struct Job {
    path: PathBuf,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    metadata: Vec<(String, String)>,
}

async fn export_trace(
    root: &Path,
    trace: LoadedTrace,
    mut info: TraceInfo,
    destination: Destination,
    catalog: &Catalog,
    options: &ExportOptions<'_>,
) -> Result<ExportedTrace, Error> {
    let events_apart = trace.events_apart;
    let tables = if options.redact {
        info.redacted = true;
        redact_tables(trace.tables)?
    } else {
        trace.tables
    };
    // Reports run on what is exported, so nothing redacted can reach them.
    let mut engine = Engine::with_catalog(catalog.clone());
    if let Some(prepare) = options.prepare {
        prepare(&engine)?;
    }
    engine
        .add(LoadedTrace {
            name: info.name.clone(),
            tables: tables.clone(),
            events_apart: events_apart.clone(),
            run: None,
        })
        .map_err(Error::query)?;
    engine.register_views().await.map_err(Error::query)?;
    let sheets = run_reports(&engine, None).await?;
    if let Some(platform) = engine.platform() {
        info.platform = platform;
    }

    let mut exported = ExportedTrace {
        partition: match destination {
            Destination::Flat => String::new(),
            Destination::Partition(path) => path,
        },
        info,
        tables: Vec::new(),
        reports: Vec::new(),
        reports_fingerprint: fingerprint(&engine),
        rank: None,
        run: None,
    };
    let common = file_metadata(&exported.info);
    let mut jobs = Vec::new();
    // The export holds every table in full: events.args read back from the
    // trace file, kernel_ancestors derived.
    let trace = LoadedTrace {
        name: exported.info.name.clone(),
        tables,
        events_apart,
        run: None,
    };
    for (table, batch) in trace.full_tables()? {
        let schema = table_doc(table).map_or_else(|| batch.schema(), |doc| doc.schema());
        let schema = stored_schema(&schema);
        let batch = cast_batch(&batch, schema.clone()).map_err(Error::query)?;
        let mut metadata = common.clone();
        metadata.push(("tracesql.table".into(), table.to_string()));
        exported.tables.push(ExportedFile {
            name: table.to_string(),
            rows: batch.num_rows(),
        });
        jobs.push(Job {
            path: Manifest::data_file(root, "tables", table, &exported),
            schema,
            batches: vec![batch],
            metadata,
        });
    }
    for sheet in sheets {
        let schema = stored_schema(&*sheet_schema(&engine, catalog, &sheet).await?);
        let batches = sheet
            .batches
            .iter()
            .map(|b| cast_batch(b, schema.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Error::query)?;
        let mut metadata = common.clone();
        metadata.extend([
            ("tracesql.query".into(), sheet.query_name.clone()),
            (
                "tracesql.query_version".into(),
                sheet.query_version.to_string(),
            ),
            ("tracesql.sheet".into(), sheet.sheet.clone()),
        ]);
        exported.reports.push(ExportedReport {
            query: sheet.query_name.clone(),
            version: sheet.query_version,
            sheet: sheet.sheet.clone(),
            rows: sheet.rows(),
        });
        jobs.push(Job {
            path: Manifest::data_file(root, "reports", &sheet.query_name, &exported),
            schema,
            batches,
            metadata,
        });
    }
    write_jobs(&jobs, options.before_write)?;
    Ok(exported)
}

/// The Arrow schema of a sheet: its batches', or the planned one when empty.
async fn sheet_schema(
    engine: &Engine,
    catalog: &Catalog,
    sheet: &Sheet,
) -> Result<SchemaRef, Error> {
    if let Some(batch) = sheet.batches.first() {
        return Ok(batch.schema());
    }
    let query = catalog
        .get(&sheet.query_name)
        .ok_or_else(|| Error::Query(format!("report {} vanished", sheet.query_name)))?;
    let frame = engine
        .context()
        .sql(&query.sql)
        .await
        .map_err(Error::query)?;
    // The sheet's header may leave planned columns out (`-- drop_null_columns:`).
    let planned = frame.schema().as_arrow();
    let fields: Vec<Field> = sheet
        .header
        .iter()
        .map(|name| match planned.field_with_name(name) {
            Ok(field) => field.clone(),
            Err(_) => Field::new(name, DataType::Utf8, true),
        })
        .collect();
    Ok(Arc::new(Schema::new(fields)))
}

/// Encodes and writes the files in parallel (zstd dominates the time).
fn write_jobs(jobs: &[Job], before_write: Option<&WriteHook<'_>>) -> Result<(), Error> {
    let results: Vec<Result<(), Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|job| scope.spawn(move || write_job(job, before_write)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Output("a Parquet writer panicked".into())))
            })
            .collect()
    });
    results.into_iter().collect()
}

fn write_job(job: &Job, before_write: Option<&WriteHook<'_>>) -> Result<(), Error> {
    let fail = |e| output_error(&job.path, e);
    if let Some(hook) = before_write {
        hook(&job.path).map_err(fail)?;
    }
    if let Some(parent) = job.path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    parquet::write_parquet(&job.path, &job.schema, &job.batches, &job.metadata).map_err(fail)
}

fn output_error(path: &Path, e: io::Error) -> Error {
    Error::Output(format!("{}: {e}", path.display()))
}

/// Refuses targets that are not a previous export or an empty directory.
fn check_target(target: &Path) -> Result<(), Error> {
    if target.file_name().is_none() {
        return Err(Error::Usage(format!(
            "{}: give the export a directory name of its own",
            target.display()
        )));
    }
    let meta = match std::fs::metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(output_error(target, e)),
        Ok(meta) => meta,
    };
    if !meta.is_dir() {
        return Err(Error::Usage(format!(
            "{}: exists and is not a directory",
            target.display()
        )));
    }
    let empty = std::fs::read_dir(target)
        .map_err(|e| output_error(target, e))?
        .next()
        .is_none();
    if empty || target.join(MARKER).is_file() {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{}: exists and is not a tracesql export; refusing to replace it (choose a new directory, or remove this one)",
            target.display()
        )))
    }
}

/// A hidden directory beside the target where the export is assembled; removed
/// unless [`Staging::commit`] moved it into place.
struct Staging {
    target: PathBuf,
    temp: PathBuf,
    committed: bool,
}

impl Staging {
    fn create(target: &Path) -> Result<Staging, Error> {
        if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| output_error(parent, e))?;
        }
        let temp = atomic::temp_path(target);
        if temp.exists() {
            // Left by an earlier run of this same process id that was killed.
            std::fs::remove_dir_all(&temp).map_err(|e| output_error(&temp, e))?;
        }
        std::fs::create_dir(&temp).map_err(|e| output_error(&temp, e))?;
        Ok(Staging {
            target: target.to_path_buf(),
            temp,
            committed: false,
        })
    }

    fn path(&self) -> &Path {
        &self.temp
    }

    /// Moves the staged export to the target, replacing what was there.
    fn commit(mut self) -> io::Result<()> {
        let name = self
            .target
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        let old = self
            .target
            .with_file_name(format!(".{name}.old-{}", std::process::id()));
        let replacing = self.target.exists();
        if replacing {
            if old.exists() {
                std::fs::remove_dir_all(&old)?;
            }
            std::fs::rename(&self.target, &old)?;
        }
        if let Err(e) = std::fs::rename(&self.temp, &self.target) {
            if replacing {
                let _ = std::fs::rename(&old, &self.target);
            }
            return Err(e);
        }
        self.committed = true;
        if replacing {
            // The new export is in place; failing to delete the old one loses nothing.
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_names_stay_inside_the_export() {
        assert_eq!(partition_dir("bert#2"), "trace=bert#2");
        assert_eq!(partition_dir("../../etc"), "trace=.._.._etc");
        assert_eq!(partition_dir("a\\b\nc"), "trace=a_b_c");
    }
}
