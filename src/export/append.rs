//! `tracesql export --append`: a dataset that grows, one run or one rank at a
//! time, without rewriting what it holds.
//!
//! New traces go into the existing dataset as new Hive partitions,
//! `run=<run>/rank=<rank>/trace=<name>/` (each level only when known), so a
//! query over the dataset can skip whole traces by run, rank or name (see
//! [`crate::dataset`]). A trace whose file has the same SHA-256 as one already
//! in the dataset is skipped: appending the same directory twice is harmless.
//!
//! Why the steps are in this order:
//! - A lock file keeps two appenders from writing one manifest each.
//! - Each new trace is written under a staging directory first; only complete
//!   partitions are moved into the dataset, and the manifest, written last and
//!   atomically (temporary name, then rename), is what makes them part of it.
//!   Until then readers, which go through the manifest, see the old dataset; if
//!   the append fails, the partitions it moved are removed again.
//! - Traces load and export in parallel, at most `jobs` at once and within a
//!   memory budget: each trace reserves an estimate of its peak memory from
//!   the file's size before it loads, so a batch of large traces waits instead
//!   of exhausting the machine.

use std::collections::{BTreeSet, HashSet};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};

use super::{
    check_target, empty_manifest, export_trace, output_error, Destination, ExportOptions, Staging,
};
use crate::catalog::Catalog;
use crate::load::{
    describe_hashed, load_trace, reopen, sha256_file, trace_name, ExportedTrace, Manifest,
    DATA_FILE, MARKER,
};
use crate::output::atomic;
use crate::Error;

/// How an append runs.
#[derive(Debug, Clone)]
pub struct AppendOptions {
    /// The `run=` partition of every trace added (`--run`); none when None.
    pub run: Option<String>,
    /// Traces loaded and exported at once (`--jobs`).
    pub jobs: usize,
    /// Bytes the traces being loaded at once may use, by estimate (`--memory-budget`).
    pub memory_budget: u64,
}

impl Default for AppendOptions {
    fn default() -> Self {
        AppendOptions {
            run: None,
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            memory_budget: default_memory_budget(),
        }
    }
}

/// Half the machine's memory (from /proc/meminfo), else 4 GiB.
pub fn default_memory_budget() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
    total_kib.map_or(4 << 30, |kib| kib * 1024 / 2)
}

/// Parses a size such as `512M`, `8G`, `8GiB` or a number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 512M, 8G)"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().trim_end_matches("IB") {
        "" | "B" => 1,
        "K" | "KB" => 1 << 10,
        "M" | "MB" => 1 << 20,
        "G" | "GB" => 1 << 30,
        "T" | "TB" => 1 << 40,
        _ => return Err(format!("'{text}': unknown unit (use K, M, G or T)")),
    };
    if !(number.is_finite() && number > 0.0) {
        return Err(format!("'{text}' is not a positive size"));
    }
    Ok((number * scale as f64) as u64)
}

/// The peak memory a trace file is expected to need while it loads and its
/// reports run: about twice the JSON it holds (measured: a 1 GB trace peaks near
/// 1.9 GB), and compressed traces hold about ten times their size in JSON.
pub fn estimated_peak(path: &Path) -> u64 {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let name = path.to_string_lossy().to_ascii_lowercase();
    let expansion = if name.ends_with(".gz") || name.ends_with(".zip") {
        10
    } else {
        1
    };
    size.saturating_mul(expansion).saturating_mul(2)
}

/// What an append did.
#[derive(Debug, Clone)]
pub struct Appended {
    /// The dataset's manifest after the append.
    pub manifest: Manifest,
    /// Names of the traces added, in argument order.
    pub added: Vec<String>,
    /// Inputs skipped with the reason (already in the dataset, or repeated).
    pub skipped: Vec<(String, String)>,
}

/// Adds the traces at `inputs` (trace files) to the dataset at `target`,
/// creating it when missing; see the module docs.
pub async fn append_parquet(
    inputs: &[String],
    target: &Path,
    catalog: &Catalog,
    options: &ExportOptions<'_>,
    append: &AppendOptions,
) -> Result<Appended, Error> {
    check_target(target)?;
    std::fs::create_dir_all(target).map_err(|e| output_error(target, e))?;
    let _lock = Lock::take(target)?;
    let dir = target.to_string_lossy().into_owned();
    let existing = if target.join(MARKER).is_file() {
        Some(reopen::read_manifest(&dir)?)
    } else {
        None
    };
    let mut manifest = existing.clone().unwrap_or_else(|| empty_manifest(true));
    let relinked = partition_in_place(target, &mut manifest)?;

    let plan = plan_inputs(inputs, &manifest)?;
    let staging = Staging::create(&target.join(".append"))?;
    let root = staging.path().to_path_buf();
    let budget = Arc::new(tokio::sync::Semaphore::new(
        permits(append.memory_budget) as usize
    ));
    let exported: Vec<ExportedTrace> = futures::stream::iter(plan.to_add.iter().cloned())
        .map(|(path, name, sha)| {
            let budget = Arc::clone(&budget);
            let root = root.clone();
            let run = append.run.clone();
            let limit = append.memory_budget;
            async move {
                let need = permits(estimated_peak(Path::new(&path)).min(limit));
                let _reserved = budget
                    .acquire_many_owned(need)
                    .await
                    .map_err(|_| Error::Output("the memory budget was closed".into()))?;
                let loaded = tokio::task::spawn_blocking({
                    let path = path.clone();
                    move || -> Result<_, Error> {
                        let trace = load_trace(&path)?;
                        let mut info = describe_hashed(&path, &trace, sha);
                        info.name = name;
                        Ok((trace, info))
                    }
                })
                .await
                .map_err(|e| Error::Output(format!("{path}: the loader stopped: {e}")))??;
                let (trace, info) = loaded;
                let trace = if trace.name != info.name {
                    trace.renamed(&info.name).map_err(Error::query)?
                } else {
                    trace
                };
                let rank = rank_of(&trace);
                let destination =
                    Destination::Partition(partition_path(run.as_deref(), rank, &info.name));
                let mut exported =
                    export_trace(&root, trace, info, destination, catalog, options).await?;
                exported.rank = rank;
                exported.run = run;
                Ok::<_, Error>(exported)
            }
        })
        .buffered(append.jobs.max(1))
        .try_collect()
        .await?;

    let mut moved = Moved::default();
    for trace in &exported {
        moved.move_partitions(&root, target, trace)?;
    }
    let added = exported.iter().map(|t| t.info.name.clone()).collect();
    manifest.traces.extend(exported);
    manifest.partitioned = true;
    let marker = target.join(MARKER);
    atomic::write_file(&marker, |out| {
        serde_json::to_writer_pretty(&mut *out, &manifest)?;
        out.write_all(b"\n")
    })
    .map_err(|e| output_error(&marker, e))?;
    moved.keep();
    drop(staging);
    // The manifest names the partitioned copies now; the old names go.
    for old in relinked {
        let _ = std::fs::remove_file(old);
    }
    Ok(Appended {
        manifest,
        added,
        skipped: plan.skipped,
    })
}

/// Semaphore permits for `bytes`: one per MiB, at least one.
fn permits(bytes: u64) -> u32 {
    (bytes >> 20).clamp(1, u32::MAX as u64 >> 4) as u32
}

/// The inputs to add, with their names and hashes, and those skipped.
struct InputPlan {
    to_add: Vec<(String, String, String)>,
    skipped: Vec<(String, String)>,
}

fn plan_inputs(inputs: &[String], manifest: &Manifest) -> Result<InputPlan, Error> {
    let mut hashes: HashSet<String> = manifest
        .traces
        .iter()
        .map(|t| t.info.source_sha256.clone())
        .filter(|h| !h.is_empty())
        .collect();
    let mut names: BTreeSet<String> = manifest
        .traces
        .iter()
        .map(|t| t.info.name.clone())
        .collect();
    let mut plan = InputPlan {
        to_add: Vec::new(),
        skipped: Vec::new(),
    };
    for path in inputs {
        if path == "-" || reopen::is_directory(path) {
            return Err(Error::Usage(format!(
                "{path}: --append takes trace files (give the traces an export was made from)"
            )));
        }
        let sha = sha256_file(Path::new(path)).map_err(|e| {
            Error::Input(crate::ingest::IngestError::new(
                path,
                crate::ingest::Problem::Read(format!("cannot hash: {e}")),
            ))
        })?;
        if !hashes.insert(sha.clone()) {
            let holder = manifest
                .traces
                .iter()
                .find(|t| t.info.source_sha256 == sha)
                .map_or_else(
                    || "repeated on the command line".to_string(),
                    |t| format!("already in the dataset as {}", t.info.name),
                );
            plan.skipped.push((path.clone(), holder));
            continue;
        }
        let base = trace_name(path);
        let mut name = base.clone();
        let mut k = 1;
        while names.contains(&name) {
            k += 1;
            name = format!("{base}#{k}");
        }
        names.insert(name.clone());
        plan.to_add.push((path.clone(), name, sha));
    }
    Ok(plan)
}

/// The trace's rank, from its `ranks` table (what `distributedInfo` says).
fn rank_of(trace: &crate::load::LoadedTrace) -> Option<i64> {
    use datafusion::arrow::array::{Array, Int64Array};
    let ranks = trace.table("ranks")?;
    let column = ranks
        .column_by_name("rank")?
        .as_any()
        .downcast_ref::<Int64Array>()?;
    (column.len() == 1 && column.is_valid(0)).then(|| column.value(0))
}

/// `run=<run>/rank=<rank>/trace=<name>`, each level only when known.
pub fn partition_path(run: Option<&str>, rank: Option<i64>, name: &str) -> String {
    let mut parts = Vec::new();
    if let Some(run) = run {
        parts.push(super::safe_component("run", run));
    }
    if let Some(rank) = rank {
        parts.push(format!("rank={rank}"));
    }
    parts.push(super::partition_dir(name));
    parts.join("/")
}

/// An unpartitioned export (one trace, files directly under each table's
/// directory) made ready to take more: each file gets a hard link (else a copy)
/// at its partition's path and the manifest says so. Returns the old paths, to
/// remove once the new manifest is in place.
fn partition_in_place(target: &Path, manifest: &mut Manifest) -> Result<Vec<PathBuf>, Error> {
    if manifest.partitioned || manifest.traces.is_empty() {
        return Ok(Vec::new());
    }
    let mut old_paths = Vec::new();
    for trace in &mut manifest.traces {
        let old = trace.clone();
        trace.partition = super::partition_dir(&trace.info.name);
        for (kind, name) in old.files() {
            let from = Manifest::data_file(target, kind, name, &old);
            let to = Manifest::data_file(target, kind, name, trace);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| output_error(parent, e))?;
            }
            if !to.exists() {
                std::fs::hard_link(&from, &to)
                    .or_else(|_| std::fs::copy(&from, &to).map(|_| ()))
                    .map_err(|e| output_error(&to, e))?;
            }
            old_paths.push(from);
        }
    }
    manifest.partitioned = true;
    Ok(old_paths)
}

/// Partition directories moved into the dataset by this append: removed again
/// unless [`Moved::keep`] is called (the manifest that names them was written).
#[derive(Default)]
struct Moved {
    dirs: Vec<PathBuf>,
    kept: bool,
}

impl Moved {
    fn move_partitions(
        &mut self,
        staged: &Path,
        target: &Path,
        trace: &ExportedTrace,
    ) -> Result<(), Error> {
        for (kind, name) in trace.files() {
            let from = Manifest::data_file(staged, kind, name, trace);
            let to = Manifest::data_file(target, kind, name, trace);
            let (Some(from_dir), Some(to_dir)) = (from.parent(), to.parent()) else {
                continue;
            };
            if to_dir.exists() {
                // Left by an append that failed before its manifest was written.
                std::fs::remove_dir_all(to_dir).map_err(|e| output_error(to_dir, e))?;
            }
            if let Some(parent) = to_dir.parent() {
                std::fs::create_dir_all(parent).map_err(|e| output_error(parent, e))?;
            }
            std::fs::rename(from_dir, to_dir).map_err(|e| output_error(to_dir, e))?;
            debug_assert!(to.ends_with(DATA_FILE));
            self.dirs.push(to_dir.to_path_buf());
        }
        Ok(())
    }

    fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for Moved {
    fn drop(&mut self) {
        if !self.kept {
            for dir in &self.dirs {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

/// `DIR/.tracesql-export.lock`, held while one append writes to the dataset.
struct Lock {
    path: PathBuf,
}

impl Lock {
    fn take(target: &Path) -> Result<Lock, Error> {
        let path = target.join(".tracesql-export.lock");
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                let _ = writeln!(file, "{}", std::process::id());
                Ok(Lock { path })
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(Error::Output(format!(
                "{}: another export is appending to this dataset (remove {} if none is running)",
                target.display(),
                path.display()
            ))),
            Err(e) => Err(output_error(&path, e)),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("8GiB").unwrap(), 8 << 30);
        assert_eq!(parse_size("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("3Q").is_err());
    }

    #[test]
    fn partitions_name_run_rank_and_trace_when_known() {
        assert_eq!(
            partition_path(Some("r42"), Some(7), "rank7"),
            "run=r42/rank=7/trace=rank7"
        );
        assert_eq!(partition_path(None, Some(0), "a"), "rank=0/trace=a");
        assert_eq!(partition_path(None, None, "a/b"), "trace=a_b");
        assert_eq!(partition_path(Some("../x"), None, "a"), "run=.._x/trace=a");
    }

    #[test]
    fn budget_permits_are_mebibytes() {
        assert_eq!(permits(0), 1);
        assert_eq!(permits(3 << 20), 3);
    }
}
