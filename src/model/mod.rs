//! The normalised schema: one file per table, each column documented once.
//!
//! The docs here are the single source of truth: they build the Arrow schema, and
//! `tracesql schema` prints them. `build_tables` turns one decoded, linked trace
//! into one RecordBatch per table.

mod collectives;
mod columns;
mod events;
mod kernel_ancestors;
mod kernels;
mod ops;
mod threads;
mod trace_meta;
mod tree_edges;

use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

pub(crate) use columns::col;
pub use columns::{cast_batch, repeat_dict, stored_schema, ColumnDoc, TableDoc, Ty};
pub use events::with_args as events_with_args;

use crate::ingest::{ArgsInFile, RawTrace};
use crate::tree::Links;

/// Version of the table schemas below: bumped whenever a table's columns or their
/// meaning change. Parquet exports record it, and reopening an export written
/// under another version asks for a fresh export instead of misreading it.
pub const SCHEMA_VERSION: u32 = 2;

/// Every table tracesql builds from a trace, in the order `tables` lists them.
pub const TABLES: &[&TableDoc] = &[
    &events::DOC,
    &ops::DOC,
    &kernels::DOC,
    &tree_edges::DOC,
    &kernel_ancestors::DOC,
    &collectives::DOC,
    &trace_meta::DOC,
    &threads::DOC,
];

/// Looks a table's docs up by name.
pub fn table_doc(name: &str) -> Option<&'static TableDoc> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// The tables of one trace: `(table name, batch)` in [`TABLES`] order, and where
/// `events.args` is to be read from when it was not kept (see `ingest::reread`).
///
/// Takes the trace: `events` is built last and takes its columns over, so the
/// decoded trace and its largest table are never both held in full. The other
/// tables only read the trace and are built on two threads.
pub fn build_tables(
    trace: RawTrace,
    links: &Links,
    trace_name: &str,
) -> Result<(Vec<(&'static str, RecordBatch)>, Option<ArgsInFile>), ArrowError> {
    let (derived, side, kernels, tree_edges, kernel_ancestors) = std::thread::scope(|scope| {
        let trace = &trace;
        let side = scope.spawn(move || -> Result<_, ArrowError> {
            Ok((
                timed("ops", || ops::build(trace, links, trace_name))?,
                timed("collectives", || {
                    collectives::build(trace, links, trace_name)
                })?,
                trace_meta::build(trace, trace_name)?,
                threads::build(trace, trace_name)?,
            ))
        });
        let kernels = timed("kernels", || kernels::build(trace, links, trace_name))?;
        let derived = timed("events (derived)", || events::derive(trace, links))?;
        let tree_edges = timed("tree_edges", || tree_edges::build(links, trace_name))?;
        let kernel_ancestors = timed("kernel_ancestors", || {
            kernel_ancestors::build(trace, links, trace_name)
        })?;
        let side = side
            .join()
            .map_err(|_| ArrowError::ComputeError("a table builder thread panicked".into()))??;
        Ok::<_, ArrowError>((derived, side, kernels, tree_edges, kernel_ancestors))
    })?;
    let (ops, collectives, trace_meta, threads) = side;
    let (events, args) = timed("events", || events::build(trace, derived, trace_name))?;
    let tables = vec![
        (events::DOC.name, events),
        (ops::DOC.name, ops),
        (kernels::DOC.name, kernels),
        (tree_edges::DOC.name, tree_edges),
        (kernel_ancestors::DOC.name, kernel_ancestors),
        (collectives::DOC.name, collectives),
        (trace_meta::DOC.name, trace_meta),
        (threads::DOC.name, threads),
    ];
    Ok((tables, args))
}

/// Runs one table's builder, timed under `TRACESQL_TIMINGS`.
fn timed<T>(table: &str, build: impl FnOnce() -> T) -> T {
    crate::timing::timed(&format!("  build {table}"), build)
}

/// Busy time of a set of GPU events: the length of the union of their intervals.
fn busy_time(trace: &RawTrace, gpu: &[u32]) -> f64 {
    let intervals = gpu
        .iter()
        .filter_map(|&g| Some((trace.ts.get(g as usize)?, trace.t_end(g as usize)?)))
        .collect();
    tracesql_udfs::intervals::union_length(intervals)
}

/// Process and thread names from the trace's metadata events ("Unknown" if absent,
/// as the reference tool prints them).
fn process_name(trace: &RawTrace, uid: usize) -> &str {
    trace
        .pid
        .get(uid)
        .and_then(|p| trace.process_names.get(&p))
        .map_or("Unknown", String::as_str)
}

fn process_label(trace: &RawTrace, uid: usize) -> &str {
    trace
        .pid
        .get(uid)
        .and_then(|p| trace.process_labels.get(&p))
        .map_or("Unknown", String::as_str)
}

fn thread_name(trace: &RawTrace, uid: usize) -> &str {
    match (trace.pid.get(uid), trace.tid.get(uid)) {
        (Some(p), Some(t)) => trace
            .thread_names
            .get(&(p, t))
            .map_or("Unknown", String::as_str),
        _ => "Unknown",
    }
}
