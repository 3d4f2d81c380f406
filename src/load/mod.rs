//! Loading: a trace file or a `tracesql export` directory becomes tables.
//!
//! This is where the pipeline's lower half (`ingest` → `tree` → `model`) is run
//! for one input and where a reopened export is read back; both give a
//! [`LoadedTrace`], the same tables either way. The types that say where a
//! trace came from ([`TraceInfo`]) and what an export holds ([`Manifest`]) live
//! here too, since reopening reads them and `export` writes them.
//!
//! Input formats: every format reader lives in `ingest` and produces the same
//! [`crate::ingest::RawTrace`]; [`load_trace`] is the one place that picks the
//! reader, so a new format is a new reader there, not a new path here.

mod manifest;
mod provenance;
pub mod reopen;

pub use manifest::{
    ExportedFile, ExportedReport, ExportedTrace, Manifest, TraceInfo, DATA_FILE, FORMAT,
    FORMAT_VERSION, MARKER,
};
pub(crate) use provenance::string_column;
pub use provenance::{describe, describe_hashed, device_of, load_described, sha256_file};

use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;

use crate::ingest::{self, IngestError, Problem};
use crate::model::{self, TABLES};
use crate::tree;

/// One trace, read, linked and turned into tables. A clone shares the batches
/// (Arrow arrays are reference-counted): several sessions over one load.
#[derive(Clone)]
pub struct LoadedTrace {
    /// The `trace` column value: the file name without its extensions.
    pub name: String,
    pub tables: Vec<(&'static str, RecordBatch)>,
    /// What the `events` batch holds apart (NULL placeholders there): its args
    /// in the trace file (see `ingest::reread`), its sparse ids, `t_end`. None
    /// when the batch holds everything (an export read back).
    pub events_apart: Option<Arc<model::EventsHeldApart>>,
    /// The run it was appended under, for a trace read from a dataset
    /// (`trace_run()` in SQL); None for a trace file.
    pub run: Option<String>,
}

/// Every trace at `path`: one for a trace file (`-` for stdin), each trace of a
/// `tracesql export` directory (read from its Parquet files, no JSON parse).
pub fn load_input(path: &str) -> Result<Vec<LoadedTrace>, IngestError> {
    if reopen::is_directory(path) {
        let traces = reopen::read_export(path)?;
        return Ok(traces.into_iter().map(|(trace, _)| trace).collect());
    }
    Ok(vec![load_trace(path)?])
}

/// Every trace of `paths` (files or export directories), in argument order,
/// loaded side by side: up to as many at once as the machine has cores, each
/// load itself using a reader thread and a read-ahead thread. The error is the
/// first failing path's, in argument order.
pub fn load_inputs(paths: &[String]) -> Result<Vec<LoadedTrace>, IngestError> {
    load_inputs_keeping(paths, &|trace| trace)
}

/// [`load_inputs`], each trace passed through `keep` as soon as it is loaded:
/// what the caller keeps of many traces (e.g. only the tables it reads) is all
/// that is held at once, beside the loads in flight.
pub fn load_inputs_keeping(
    paths: &[String],
    keep: &(dyn Fn(LoadedTrace) -> LoadedTrace + Sync),
) -> Result<Vec<LoadedTrace>, IngestError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    // The caller's cancel token, if any, goes with the work to each worker.
    let token = ingest::cancel::current();
    // Each worker takes the next path until none is left; (index, result) pairs.
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(path) = paths.get(i) else {
                return done;
            };
            let loaded = timed_load(path).map(|traces| traces.into_iter().map(keep).collect());
            done.push((i, loaded));
        }
    };
    let mut done: Vec<(usize, Result<Vec<LoadedTrace>, IngestError>)> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    let token = token.clone();
                    scope.spawn(move || ingest::cancel::within(token, work))
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
    done.sort_by_key(|(i, _)| *i);
    let mut traces = Vec::new();
    for (_, loaded) in done {
        traces.extend(loaded?);
    }
    Ok(traces)
}

fn timed_load(path: &str) -> Result<Vec<LoadedTrace>, IngestError> {
    let _timing = crate::timing::Phase::start(&format!("load {path}"));
    load_input(path)
}

/// Reads, links and tabulates the trace at `path` (`-` for stdin); `path` may
/// also be an export directory holding one trace (see [`load_input`] for more).
pub fn load_trace(path: &str) -> Result<LoadedTrace, IngestError> {
    if reopen::is_directory(path) {
        let mut traces = load_input(path)?;
        if traces.len() != 1 {
            let message = format!(
                "the export holds {} traces; here one is expected (`tracesql query DIR` opens them all)",
                traces.len()
            );
            return Err(IngestError::new(path, Problem::Export(message)));
        }
        return Ok(traces.pop().expect("one trace"));
    }
    let raw = crate::timing::timed("  decompress + parse", || ingest::load(path))?;
    tabulate(path, raw)
}

/// Links and tabulates `raw`, the events read from `path` by any reader.
pub fn tabulate(path: &str, raw: ingest::RawTrace) -> Result<LoadedTrace, IngestError> {
    let stopped = |problem| IngestError::new(path, problem);
    // A load stopped by its caller stops between stages too, not only while reading.
    ingest::cancel::check().map_err(stopped)?;
    let links = crate::timing::timed("  link", || tree::link(&raw));
    ingest::cancel::check().map_err(stopped)?;
    let name = trace_name(path);
    let (tables, events_apart) = model::build_tables(raw, links, &name)
        .map_err(|e| IngestError::new(path, Problem::Read(format!("cannot build tables: {e}"))))?;
    crate::timing::table_sizes(&tables);
    crate::timing::memory("events held apart", events_apart.memory_size());
    Ok(LoadedTrace {
        name,
        tables,
        events_apart: Some(Arc::new(events_apart)),
        run: None,
    })
}

impl LoadedTrace {
    /// Every table in full, in [`TABLES`] order (what an export writes): `events`
    /// with its args read back from the trace file where the batch does not
    /// hold them, `ops` with its input lists parsed, and the derived tables
    /// (`kernel_ancestors`, `tree_edges`) derived where they are not held.
    pub fn full_tables(&self) -> Result<Vec<(&'static str, RecordBatch)>, IngestError> {
        let bad = |e: datafusion::arrow::error::ArrowError| {
            IngestError::new(
                &self.name,
                Problem::Read(format!("cannot build tables: {e}")),
            )
        };
        let mut full = Vec::with_capacity(TABLES.len());
        for doc in TABLES {
            let batch = match (self.table(doc.name), doc.name) {
                (Some(events), "events") => match &self.events_apart {
                    Some(apart) => model::complete_events(events, apart, None)?,
                    None => events.clone(),
                },
                (Some(ops), "ops") => model::ops_with_input_lists(ops, None).map_err(bad)?,
                (Some(batch), _) => batch.clone(),
                (None, "kernel_ancestors") => self.kernel_ancestors().map_err(bad)?,
                (None, "tree_edges") => match self.table("events") {
                    Some(events) => model::tree_edges_columns(events, None).map_err(bad)?,
                    None => continue,
                },
                (None, _) => continue,
            };
            full.push((doc.name, batch));
        }
        Ok(full)
    }

    /// The batch of table `name`, if this trace holds one.
    pub fn table(&self, name: &str) -> Option<&RecordBatch> {
        self.tables.iter().find(|(t, _)| *t == name).map(|(_, b)| b)
    }

    /// Rows of table `name`: counted for a derived table when not held.
    pub fn row_count(&self, name: &str) -> usize {
        match (
            self.table(name),
            self.table("events"),
            self.table("kernels"),
        ) {
            (Some(batch), _, _) => batch.num_rows(),
            (None, Some(events), Some(kernels)) if name == "kernel_ancestors" => {
                model::kernel_ancestors::count(events, kernels).unwrap_or(0)
            }
            (None, Some(events), _) if name == "tree_edges" => model::tree_edges_count(events),
            _ => 0,
        }
    }

    fn kernel_ancestors(&self) -> Result<RecordBatch, datafusion::arrow::error::ArrowError> {
        let missing = || {
            datafusion::arrow::error::ArrowError::SchemaError("no events or kernels table".into())
        };
        let events = self.table("events").ok_or_else(missing)?;
        let kernels = self.table("kernels").ok_or_else(missing)?;
        model::kernel_ancestors::derive(events, kernels, &self.name)
    }

    /// The same trace under another name (its `trace` columns rewritten).
    pub fn renamed(self, name: &str) -> Result<LoadedTrace, DataFusionError> {
        let tables = self
            .tables
            .into_iter()
            .map(|(table, batch)| Ok((table, rename_trace(&batch, name)?)))
            .collect::<Result<Vec<_>, DataFusionError>>()?;
        Ok(LoadedTrace {
            name: name.to_string(),
            tables,
            events_apart: self.events_apart,
            run: self.run,
        })
    }
}

/// `dir/bert.json.gz` → `bert`, `run/host.xplane.pb` → `host`; standard input
/// is `stdin`.
pub fn trace_name(path: &str) -> String {
    if path == "-" {
        return "stdin".into();
    }
    let file = std::path::Path::new(path)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    let mut name = file.as_str();
    for ext in [".gz", ".zip", ".json", ".pb", ".xplane"] {
        if let Some(stripped) = name.strip_suffix(ext) {
            name = stripped;
        }
    }
    name.to_string()
}

/// The same batch with its `trace` column set to `name`.
pub(crate) fn rename_trace(
    batch: &RecordBatch,
    name: &str,
) -> Result<RecordBatch, DataFusionError> {
    let mut columns = batch.columns().to_vec();
    if let Ok(i) = batch.schema().index_of("trace") {
        columns[i] = crate::model::repeat_dict(name, batch.num_rows());
    }
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn a_cancelled_load_stops_with_its_reason_and_others_go_on() {
        let token = ingest::cancel::Token::default();
        token.cancel();
        let paths = [fixture("basic_linear.json"), fixture("gpu_only.json")];
        let one = ingest::cancel::within(Some(token.clone()), || load_trace(&paths[0]));
        let err = one.err().expect("cancelled");
        assert!(matches!(err.problem, Problem::Cancelled), "{err}");
        assert!(
            err.to_string().ends_with("the load was interrupted"),
            "{err}"
        );
        // The token reaches the workers that load several traces side by side.
        let several = ingest::cancel::within(Some(token), || load_inputs(&paths));
        assert!(several.is_err());
        // Outside the token's scope, loads are untouched.
        assert_eq!(load_inputs(&paths).map(|t| t.len()).ok(), Some(2));
    }

    #[test]
    fn trace_names_drop_the_format_extensions() {
        assert_eq!(trace_name("runs/bert.json.gz"), "bert");
        assert_eq!(trace_name("a/908_results.json"), "908_results");
        assert_eq!(trace_name("p/tw003.xplane.pb"), "tw003");
        assert_eq!(trace_name("p/tw003.xplane.pb.gz"), "tw003");
        assert_eq!(trace_name("trace.zip"), "trace");
        assert_eq!(trace_name("-"), "stdin");
    }

    #[test]
    fn several_inputs_load_side_by_side_in_argument_order() {
        let names = [
            "nccl_graph.json",
            "basic_linear.json",
            "gpu_only.json",
            "bleed.json",
        ];
        let paths: Vec<String> = names.iter().map(|n| fixture(n)).collect();
        let loaded = load_inputs(&paths).expect("fixtures load");
        let got: Vec<&str> = loaded.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(got, ["nccl_graph", "basic_linear", "gpu_only", "bleed"]);
        let alone = load_trace(&paths[1]).expect("loads");
        assert_eq!(loaded[1].tables.len(), alone.tables.len());
        for ((table, batch), (_, one)) in loaded[1].tables.iter().zip(&alone.tables) {
            assert_eq!(batch, one, "{table}");
        }
    }

    #[test]
    fn the_error_is_the_first_failing_input_in_argument_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, b"{\"traceEvents\": [").expect("write");
        let missing = dir.path().join("missing.json");
        let paths = [
            fixture("basic_linear.json"),
            missing.to_string_lossy().into_owned(),
            bad.to_string_lossy().into_owned(),
        ];
        let e = load_inputs(&paths).err().expect("an error").to_string();
        assert!(e.contains("missing.json"), "{e}");
        let e = load_inputs(
            &paths[..1]
                .iter()
                .chain(&paths[2..])
                .cloned()
                .collect::<Vec<_>>(),
        )
        .err()
        .expect("an error")
        .to_string();
        assert!(e.contains("bad.json"), "{e}");
    }
}
