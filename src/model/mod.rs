//! The normalised schema: one file per table, each column documented once.
//!
//! The docs here are the single source of truth: they build the Arrow schema, and
//! `tracesql schema` prints them. `build_tables` turns one decoded, linked trace
//! into one RecordBatch per table.

pub mod call_tree;
mod collectives;
mod columns;
mod events;
pub mod kernel_ancestors;
mod kernels;
mod native;
mod ops;
pub mod ranks;
mod threads;
mod trace_meta;
mod tree_edges;

use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

pub(crate) use columns::col;
pub use columns::{
    cast_batch, rank_of, repeat_dict, set_rank, stored_schema, ColumnDoc, TableDoc, Ty, RANK,
};
pub use events::{complete as complete_events, HeldApart as EventsHeldApart};
pub use ops::with_input_lists as ops_with_input_lists;
pub use tree_edges::{count as tree_edges_count, derive_columns as tree_edges_columns};

use crate::ingest::RawTrace;
use crate::tree::Links;

/// Version of the table schemas below: bumped whenever a table's columns or their
/// meaning change. Parquet exports record it, and reopening an export written
/// under another version asks for a fresh export instead of misreading it.
pub const SCHEMA_VERSION: u32 = 7;

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
    &ranks::DOC,
    &native::DISPATCHES,
    &native::API_CALLS,
    &native::MEMORY_COPIES,
    &native::AGENTS,
    &native::HLO_INSTRUCTIONS,
];

/// The tables of one trace: `(table name, batch)`.
pub type Tables = Vec<(&'static str, RecordBatch)>;

/// The tables derived from others when a query reads them, not held by a
/// load (see `engine::derived_tables`); an export writes them for other tools.
pub const DERIVED: [&str; 2] = [kernel_ancestors::DOC.name, tree_edges::DOC.name];

/// Looks a table's docs up by name.
pub fn table_doc(name: &str) -> Option<&'static TableDoc> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// The tables of one trace: `(table name, batch)` in [`TABLES`] order, all but
/// the [`DERIVED`] ones (`kernel_ancestors` from `events` and `kernels`,
/// `tree_edges` from `events`, when read), and where
/// what `events` holds apart from its batch (`events::HeldApart`: its args in
/// the file, see `ingest::reread`, and its sparse columns).
///
/// Takes the trace and its links, and lets go of each as soon as it can, since
/// the peak memory of a load is reached here: `ops` (the slowest for a PyTorch
/// trace: its input and kernel-time columns on another thread, with the small
/// tables and the native tables, the slowest for rocprofv3 and Perfetto
/// traces) and `kernels` are built while the whole links are held; then the
/// links are dropped but for the parents and edges, which become
/// `events.parent_uid` and, on another thread, `tree_edges`; `events` is built
/// last and takes the trace's columns over, so the decoded trace and its
/// largest table are never both held in full.
pub fn build_tables(
    mut trace: RawTrace,
    mut links: Links,
    trace_name: &str,
) -> Result<(Tables, EventsHeldApart), ArrowError> {
    // The args held for kernels and collectives (all of them for stdin, whose
    // events.args come from here): dropped once those two are built.
    let held_args = std::mem::take(&mut trace.held_args);
    // The native rows become their tables now; the format stays for trace_meta.
    let native_rows = std::mem::take(&mut trace.native);
    trace.native.format = native_rows.format;
    let op_uids = ops::op_uids(&trace);
    let (side, kernels, collectives, ops, held_args) = std::thread::scope(|scope| {
        let (trace, links, native_rows, op_uids) = (&trace, &links, &native_rows, &op_uids);
        // The costly columns of `ops` and the small tables on one thread; the
        // kernels, the collectives and the rest of `ops` on this one.
        let side = scope.spawn(move || -> Result<_, ArrowError> {
            Ok((
                timed("ops inputs", || ops::input_columns(trace, op_uids))?,
                timed("ops kernel times", || {
                    ops::kernel_times(trace, links, op_uids)
                }),
                trace_meta::build(trace, trace_name)?,
                threads::build(trace, trace_name)?,
                ranks::build(trace, trace_name)?,
                timed("native tables", || {
                    native::build(native_rows, &trace.strings, trace_name)
                })?,
            ))
        });
        let kernels = timed("kernels", || {
            kernels::build(trace, &held_args, links, trace_name)
        })?;
        let collectives = timed("collectives", || {
            collectives::build(trace, &held_args, links, trace_name)
        })?;
        let ops_base = timed("ops (other columns)", || {
            ops::base_columns(trace, links, op_uids, trace_name)
        })?;
        let held_args = trace.hold_all_args.then_some(held_args);
        let (inputs, times, trace_meta, threads, ranks, native_tables) = joined(side.join())??;
        let ops = ops::build(ops_base, inputs, times)?;
        let side = (trace_meta, threads, ranks, native_tables);
        Ok::<_, ArrowError>((side, kernels, collectives, ops, held_args))
    })?;
    drop((native_rows, op_uids));
    let parent = std::mem::take(&mut links.parent);
    drop(links);
    if let Some(held_args) = held_args {
        trace.held_args = held_args;
    }
    let derived = timed("events (derived)", || events::derive(&mut trace, &parent))?;
    drop(parent);
    let (trace_meta, threads, ranks, native_tables) = side;
    let (events, apart) = timed("events", || events::build(trace, derived, trace_name))?;
    let rank = rank_of(&ranks);
    let tables = vec![
        (events::DOC.name, events),
        (ops::DOC.name, ops),
        (kernels::DOC.name, kernels),
        (collectives::DOC.name, collectives),
        (trace_meta::DOC.name, trace_meta),
        (threads::DOC.name, threads),
        (ranks::DOC.name, ranks),
    ];
    let tables = tables
        .into_iter()
        .chain(native_tables)
        .map(|(name, batch)| Ok((name, set_rank(&batch, rank)?)))
        .collect::<Result<_, ArrowError>>()?;
    Ok((tables, apart))
}

/// A builder thread's result, its panic an error.
fn joined<T>(result: std::thread::Result<T>) -> Result<T, ArrowError> {
    result.map_err(|_| ArrowError::ComputeError("a table builder thread panicked".into()))
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
