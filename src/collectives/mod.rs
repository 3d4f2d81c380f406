//! The traces of all ranks of a distributed run in one session: finding the
//! rank files, telling which rank each one is, and running the multi-rank
//! collective sheets (`-- kind: collective` queries under `queries/collectives/`).
//!
//! Everything the sheets compute is SQL over `comm_kernels` and the views above
//! it; this module only resolves inputs and ranks (the `ranks` table) and hands
//! the session to the report runner.

pub mod pictures;

use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, AsArray, Int64Array, StringArray};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::arrow::record_batch::RecordBatch;

use crate::catalog::QueryKind;
use crate::engine::Engine;
use crate::load::LoadedTrace;
use crate::report::{run_sheets_of_kind, Sheet};
use crate::Error;

/// TraceLens's default: `rank3`, `rank_3`, `rank-3`, `rank[3]`, `rank/3`.
pub const DEFAULT_RANK_REGEX: &str = r"rank[\[\-_/]?(?P<rank>\d+)";

/// How the ranks of a run are told apart.
#[derive(Debug, Clone, Default)]
pub struct RankOptions {
    /// The run's world size (else distributedInfo's, else the number of traces).
    pub world_size: Option<i64>,
    /// Rank from the file name when the trace has no distributedInfo.rank.
    pub rank_regex: Option<String>,
    /// GPUs per node (else the number of deviceProperties of rank 0).
    pub gpus_per_node: Option<i64>,
}

/// The inputs `inputs` name: files (and `-`) as given, an export directory as
/// given, every trace file of any other directory (sorted), and the files a
/// `*`/`?` pattern in the last path component matches (sorted). What every
/// command that takes traces reads, so that a run's directory of rank traces
/// can be given to `query`, `report`, `repl` as to `collectives`.
pub fn resolve_inputs(inputs: &[String]) -> Result<Vec<String>, Error> {
    let mut files = Vec::new();
    for input in inputs {
        let path = Path::new(input);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if input == "-" || (path.is_dir() && path.join(crate::load::MARKER).is_file()) {
            files.push(input.clone());
        } else if path.is_dir() {
            let found = trace_files_in(path, |_| true)?;
            if found.is_empty() {
                // Neither traces nor an export: the loader says so.
                files.push(input.clone());
            }
            files.extend(found);
        } else if let Some(pattern) = name.filter(|n| n.contains('*') || n.contains('?')) {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let found = trace_files_in(dir, |file| crate::glob_match(&pattern, file))?;
            if found.is_empty() {
                return Err(Error::Usage(format!("{input}: no file matches")));
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}

fn trace_files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<String>, Error> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::Usage(format!("{}: cannot list directory: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let trace =
                name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".zip");
            trace && keep(&name)
        })
        .collect();
    files.sort();
    Ok(files
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}

/// One trace's resolved rank.
struct Resolved {
    rank: i64,
    from: &'static str,
}

/// Sets every trace's rank in its `ranks` table: distributedInfo.rank, else the
/// file name (`--rank-regex`, TraceLens's pattern by default), else its position
/// among the inputs; then the world size, gpus per node and node. Two traces of
/// one rank are an error naming both files.
pub fn assign_ranks(
    traces: Vec<LoadedTrace>,
    files: &[String],
    options: &RankOptions,
) -> Result<Vec<LoadedTrace>, Error> {
    if traces.len() != files.len() {
        return Err(Error::Usage(
            "collectives reads one trace per rank file: give trace files or directories of them, not export directories".into(),
        ));
    }
    let pattern = options.rank_regex.as_deref().unwrap_or(DEFAULT_RANK_REGEX);
    let regex = regex::Regex::new(pattern).map_err(|e| {
        // regex's messages span lines (the pattern, a caret); errors are one.
        Error::Usage(crate::one_line(&format!("--rank-regex '{pattern}': {e}")))
    })?;
    let facts: Vec<RankFacts> = traces.iter().map(rank_facts).collect::<Result<_, _>>()?;
    let mut resolved = Vec::with_capacity(traces.len());
    for (position, (facts, file)) in facts.iter().zip(files).enumerate() {
        let from_name = || rank_from_name(&regex, file);
        resolved.push(match (facts.rank, from_name()) {
            (Some(rank), _) => Resolved {
                rank,
                from: "distributedInfo",
            },
            (None, Some(rank)) => Resolved {
                rank,
                from: "file name",
            },
            (None, None) => Resolved {
                rank: position as i64,
                from: "position",
            },
        });
    }
    for (i, a) in resolved.iter().enumerate() {
        if let Some(j) = resolved[..i].iter().position(|b| b.rank == a.rank) {
            return Err(Error::Usage(format!(
                "{} and {} are both rank {} ({} / {}); give each rank's trace once",
                files[j], files[i], a.rank, resolved[j].from, a.from
            )));
        }
    }
    let world_size = options
        .world_size
        .or_else(|| facts.iter().filter_map(|f| f.world_size).max())
        .unwrap_or(traces.len() as i64);
    if let Some(r) = resolved.iter().find(|r| r.rank < 0 || r.rank >= world_size) {
        return Err(Error::Usage(format!(
            "rank {} is outside the world size {world_size} (--world-size)",
            r.rank
        )));
    }
    let lowest = resolved
        .iter()
        .enumerate()
        .min_by_key(|(_, r)| r.rank)
        .map(|(i, _)| i);
    let gpus_per_node = match options.gpus_per_node {
        Some(g) if g <= 0 => return Err(Error::Usage("--gpus-per-node must be at least 1".into())),
        Some(g) => Some(g),
        None => lowest
            .and_then(|i| facts[i].device_count)
            .filter(|&n| n > 0),
    };
    let missing: Vec<i64> = (0..world_size)
        .filter(|r| !resolved.iter().any(|x| x.rank == *r))
        .collect();
    if !missing.is_empty() && traces.len() > 1 {
        eprintln!(
            "warning: {} of {world_size} ranks have no trace ({}); the sheets cover the ranks given",
            missing.len(),
            short_list(&missing)
        );
    }
    traces
        .into_iter()
        .zip(resolved)
        .map(|(mut trace, r)| {
            let job = Job {
                world_size,
                gpus_per_node,
                node: gpus_per_node.map(|g| r.rank / g),
            };
            stamp_rank(&mut trace, &r, Some(&job))?;
            Ok(trace)
        })
        .collect()
}

/// For the commands other than `collectives`: a trace that does not say its
/// rank (no distributedInfo) gets the one its file name gives under TraceLens's
/// pattern (`rank3`, `rank_3`, ...), if any, so that a query over a run's
/// directory can group by rank. No position fallback: the traces given to
/// `query` or `compare` need not be ranks of one run. `files` are the inputs
/// the traces were loaded from; when they do not pair one to one (an export
/// directory holds several traces) the ranks are left as loaded.
pub fn ranks_from_names(
    mut traces: Vec<LoadedTrace>,
    files: &[String],
) -> Result<Vec<LoadedTrace>, Error> {
    if traces.len() != files.len() {
        return Ok(traces);
    }
    let regex = regex::Regex::new(DEFAULT_RANK_REGEX)
        .map_err(|e| Error::Output(format!("rank pattern: {e}")))?;
    for (trace, file) in traces.iter_mut().zip(files) {
        if rank_facts(trace)?.rank.is_some() {
            continue;
        }
        if let Some(rank) = rank_from_name(&regex, file) {
            let from = Resolved {
                rank,
                from: "file name",
            };
            stamp_rank(trace, &from, None)?;
        }
    }
    Ok(traces)
}

/// What `collectives` knows of the job beyond each trace's rank.
struct Job {
    world_size: i64,
    gpus_per_node: Option<i64>,
    node: Option<i64>,
}

/// Writes `rank` into the `rank` column of every table of `trace`, and its
/// `ranks` row (with the job's facts when given).
fn stamp_rank(trace: &mut LoadedTrace, rank: &Resolved, job: Option<&Job>) -> Result<(), Error> {
    let bad = |table: &str, e: datafusion::arrow::error::ArrowError| {
        Error::Output(format!("{}: {table} table: {e}", trace.name))
    };
    let mut stamped = Vec::with_capacity(trace.tables.len());
    for (table, batch) in &trace.tables {
        let mut batch =
            crate::model::set_rank(batch, Some(rank.rank)).map_err(|e| bad(table, e))?;
        if *table == "ranks" {
            batch = with_rank(&batch, rank, job).map_err(|e| bad(table, e))?;
        }
        stamped.push((*table, batch));
    }
    trace.tables = stamped;
    Ok(())
}

/// The tables the collective sheets and the run's rules read: `collectives`,
/// `kernels`, `ranks`, `trace_meta`. The others (`events`, `ops`,
/// `tree_edges`, `threads`) are emptied as each trace is loaded
/// ([`crate::load::load_inputs_keeping`]), so that a run of many ranks holds
/// a small part of what every rank's whole trace holds; `-e` keeps
/// everything, for queries over any table.
pub fn keep_collective_tables(mut trace: LoadedTrace) -> LoadedTrace {
    const DROPPED: [&str; 4] = ["events", "ops", "tree_edges", "threads"];
    for (table, batch) in trace.tables.iter_mut() {
        if DROPPED.contains(table) {
            *batch = RecordBatch::new_empty(batch.schema());
        }
    }
    trace.events_apart = None;
    trace
}

fn short_list(ranks: &[i64]) -> String {
    let shown: Vec<String> = ranks.iter().take(8).map(i64::to_string).collect();
    let more = if ranks.len() > 8 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

fn rank_from_name(regex: &regex::Regex, file: &str) -> Option<i64> {
    let path = Path::new(file);
    let name = path.file_name()?.to_string_lossy().into_owned();
    let captures = regex.captures(&name).or_else(|| regex.captures(file))?;
    let group = captures.name("rank").or_else(|| captures.get(1))?;
    group.as_str().parse().ok()
}

/// What a trace's `ranks` row says.
struct RankFacts {
    rank: Option<i64>,
    world_size: Option<i64>,
    device_count: Option<i64>,
}

fn rank_facts(trace: &LoadedTrace) -> Result<RankFacts, Error> {
    let batch = trace
        .tables
        .iter()
        .find(|(t, _)| *t == "ranks")
        .map(|(_, b)| b)
        .ok_or_else(|| {
            Error::Output(format!("{}: no ranks table (export it again)", trace.name))
        })?;
    let int = |column: &str| -> Option<i64> {
        let values = batch
            .column_by_name(column)?
            .as_primitive_opt::<Int64Type>()?;
        (values.len() > 0 && values.is_valid(0)).then(|| values.value(0))
    };
    // Only the trace's own word is a fact: a rank an earlier step took from
    // the file name is resolved again under this command's pattern.
    let said = batch
        .column_by_name("rank_from")
        .and_then(|c| c.as_string_opt::<i32>())
        .is_some_and(|c| c.len() > 0 && c.is_valid(0) && c.value(0) == "distributedInfo");
    Ok(RankFacts {
        rank: int("rank").filter(|_| said),
        world_size: int("world_size"),
        device_count: int("device_count"),
    })
}

/// The `ranks` row with `rank`'s origin and, when given, the job's facts.
fn with_rank(
    batch: &RecordBatch,
    rank: &Resolved,
    job: Option<&Job>,
) -> Result<RecordBatch, datafusion::arrow::error::ArrowError> {
    let schema = batch.schema();
    let mut columns = batch.columns().to_vec();
    let mut set = |name: &str, array: std::sync::Arc<dyn Array>| {
        if let Ok(i) = schema.index_of(name) {
            columns[i] = array;
        }
    };
    let int = |value: Option<i64>| std::sync::Arc::new(Int64Array::from(vec![value]));
    set(
        "rank_from",
        std::sync::Arc::new(StringArray::from(vec![rank.from])),
    );
    if let Some(job) = job {
        set("world_size", int(Some(job.world_size)));
        set("gpus_per_node", int(job.gpus_per_node));
        set("node", int(job.node));
    }
    RecordBatch::try_new(schema.clone(), columns)
}

/// The multi-rank collective sheets of the session's traces (all, or those
/// named in `only`), in catalog order.
pub async fn collective_sheets(
    engine: &Engine,
    only: Option<&[String]>,
) -> Result<Vec<Sheet>, Error> {
    run_sheets_of_kind(engine, QueryKind::Collective, only).await
}

/// Whether any trace of the session has a collective kernel.
pub fn has_collectives(engine: &Engine) -> bool {
    engine.row_count("collectives") > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_comes_from_the_file_name() {
        let regex = regex::Regex::new(DEFAULT_RANK_REGEX).expect("valid");
        assert_eq!(rank_from_name(&regex, "run/rank7_trace.json.gz"), Some(7));
        assert_eq!(rank_from_name(&regex, "run/rank-12.json"), Some(12));
        assert_eq!(rank_from_name(&regex, "run/trace.json"), None);
        // A directory can supply it when the file name cannot.
        assert_eq!(rank_from_name(&regex, "job/rank3/trace.json"), Some(3));
        let custom = regex::Regex::new(r"worker(\d+)_").expect("valid");
        assert_eq!(rank_from_name(&custom, "worker5_step_12.json.gz"), Some(5));
    }
}
