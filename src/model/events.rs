//! `events`: every event of the trace, one row each.

use super::columns::{
    col, dict_from_ids, float64, float64_column, int64, int64_column, int64_values, repeat_dict,
    utf8_parts, TableDoc,
};
use crate::ingest::{ArgsInFile, ArgsText, Column, IngestError, RawTrace};
use crate::tree::EdgeKind;
use datafusion::arrow::array::{
    new_null_array, ArrayRef, DictionaryArray, Int32Array, StringArray,
};
use datafusion::arrow::datatypes::{DataType, Int32Type};
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};
use std::sync::Arc;

pub const DOC: TableDoc = TableDoc {
    name: "events",
    doc: "Every event of the trace in file order, metadata, flows and instants included.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name (file name without extension); tells traces apart in one session."),
        super::columns::RANK,
        col!("uid", Int64, "0-based index of the event in traceEvents, counting every event (the reference tool's UID)."),
        col!("ph", Utf8Dict, "Phase: X complete, i instant, s/f flow start/end, M metadata, ..."),
        col!("cat", Utf8Dict, "Category: cpu_op, python_function, cuda_runtime, cuda_driver, kernel, gpu_memcpy, gpu_memset, ac2g, ... NULL if absent."),
        col!("name", Utf8Dict, "Event name."),
        col!("pid", Utf8Dict, "Process id as text (traces use numbers and strings); for GPU events, the device."),
        col!("tid", Utf8Dict, "Thread id as text; for GPU events, the stream."),
        col!("ts", Float64, "Start time, µs, as written in the trace."),
        col!("dur", Float64, "Duration, µs; NULL when the event has none."),
        col!("t_end", Float64, "ts + dur in f64 (ts when dur is missing), µs."),
        col!("correlation", Int64, "args.correlation: ties a runtime launch to its GPU work."),
        col!("external_id", Int64, "args['External id']: ties cpu_ops to their runtime calls and kernels."),
        col!("stream", Int64, "args.stream (GPU events)."),
        col!("device", Int64, "args.device (GPU events)."),
        col!("seq_num", Int64, "args['Sequence number']: pairs forward ops with their backward."),
        col!("flow_id", Int64, "id of flow events (ac2g / async_cpu_to_gpu), the correlation they carry."),
        col!("parent_uid", Int64, "Parent in the call tree (see tree_edges); NULL for roots and unlinked events."),
        col!("parent_kind", Utf8Dict, "How the parent holds it (tree_edges.kind): host (nesting on one thread), python (a python frame around it) or launch (the runtime call that started this GPU work); NULL without a parent."),
        col!("args", Utf8, "The raw args object as JSON text, as written in the file. For a trace loaded from a file it is read back from the file when a query reads it (the file must not have changed since); only standard input's are held in memory."),
    ],
};

/// The columns computed from the trace (the others are taken over from it).
pub struct Derived {
    ph: ArrayRef,
    cat: ArrayRef,
    name: ArrayRef,
    pid: ArrayRef,
    tid: ArrayRef,
    t_end: ArrayRef,
    parent_uid: ArrayRef,
    parent_kind: ArrayRef,
}

/// Computes the columns not taken over as they are, taking the trace's interned
/// text columns (the other tables are built by then); `parent` is each event's
/// parent in the call tree (`Links::parent`).
pub fn derive(
    trace: &mut RawTrace,
    parent: &[Option<(u32, EdgeKind)>],
) -> Result<Derived, ArrowError> {
    let n = trace.len();
    let strings = &trace.strings;
    let s = |col: &mut Column<u32>| dict_from_ids(std::mem::take(col), strings);
    Ok(Derived {
        ph: s(&mut trace.ph)?,
        cat: s(&mut trace.cat)?,
        name: s(&mut trace.name)?,
        pid: s(&mut trace.pid)?,
        tid: s(&mut trace.tid)?,
        t_end: float64((0..n).map(|u| trace.t_end(u))),
        parent_uid: int64(parent.iter().map(|p| p.map(|(u, _)| u as i64))),
        parent_kind: edge_kinds(parent),
    })
}

/// Builds the table, taking the trace's columns over (most without a copy); it is
/// built last, once the other tables have read the trace.
///
/// For a trace read from a file, `args` is left NULL here and the positions to
/// read it back from are returned (see `ingest::reread`): [`with_args`] fills it.
pub fn build(
    trace: RawTrace,
    derived: Derived,
    name: &str,
) -> Result<(RecordBatch, Option<ArgsInFile>), ArrowError> {
    let n = trace.len();
    let RawTrace {
        ts,
        dur,
        correlation,
        external_id,
        stream,
        device,
        seq_num,
        flow_id,
        args_at,
        args_len,
        held_args,
        hold_all_args,
        stamp,
        source,
        ..
    } = trace;
    let (args, in_file) = match stamp {
        Some(stamp) if !hold_all_args => (
            new_null_array(&DataType::Utf8, n),
            Some(ArgsInFile::new(&source, stamp, args_at, args_len)),
        ),
        _ => (args_column(held_args)?, None),
    };
    let batch = DOC.batch(vec![
        ("trace", repeat_dict(name, n)),
        ("uid", int64_values((0..n as i64).collect())),
        ("ph", derived.ph),
        ("cat", derived.cat),
        ("name", derived.name),
        ("pid", derived.pid),
        ("tid", derived.tid),
        ("ts", float64_column(ts)),
        ("dur", float64_column(dur)),
        ("t_end", derived.t_end),
        ("correlation", int64_column(correlation)),
        ("external_id", int64_column(external_id)),
        ("stream", int64_column(stream)),
        ("device", int64_column(device)),
        ("seq_num", int64_column(seq_num)),
        ("flow_id", int64_column(flow_id)),
        ("parent_uid", derived.parent_uid),
        ("parent_kind", derived.parent_kind),
        ("args", args),
    ])?;
    Ok((batch, in_file))
}

/// Each event's edge kind as a dictionary over the three kinds (no hashing of
/// millions of rows).
fn edge_kinds(parent: &[Option<(u32, EdgeKind)>]) -> ArrayRef {
    const KINDS: [EdgeKind; 3] = [EdgeKind::Host, EdgeKind::Python, EdgeKind::Launch];
    let key = |kind: EdgeKind| KINDS.iter().position(|k| *k == kind).unwrap_or(0) as i32;
    let keys: Int32Array = parent.iter().map(|p| p.map(|(_, k)| key(k))).collect();
    let values: ArrayRef = Arc::new(StringArray::from_iter_values(KINDS.map(EdgeKind::as_str)));
    Arc::new(DictionaryArray::<Int32Type>::new(keys, values))
}

fn args_column(args: ArgsText) -> Result<ArrayRef, ArrowError> {
    utf8_parts(args.text, args.offsets.0, args.valid)
}

/// `batch` (this trace's events) with its `args` column read from the file.
pub fn with_args(batch: &RecordBatch, args: &ArgsInFile) -> Result<RecordBatch, IngestError> {
    let bad = |e: ArrowError| {
        let message = format!("cannot read events.args back: {e}");
        IngestError::new(args.path(), crate::ingest::Problem::Read(message))
    };
    if args.rows() != batch.num_rows() {
        return Err(bad(ArrowError::ComputeError(format!(
            "{} args positions for {} events",
            args.rows(),
            batch.num_rows()
        ))));
    }
    let column = args_column(args.read()?).map_err(bad)?;
    let mut columns = batch.columns().to_vec();
    let index = batch.schema().index_of("args").map_err(bad)?;
    columns[index] = column;
    RecordBatch::try_new(batch.schema(), columns).map_err(bad)
}
