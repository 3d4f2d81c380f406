//! `events`: every event of the trace, one row each.

use super::columns::{
    col, dict_from_ids, float64_column, int64, int64_values, repeat_dict, utf8_parts, TableDoc,
};
use crate::ingest::{ArgsInFile, ArgsText, Column, IngestError, RawTrace};
use crate::tree::EdgeKind;
use datafusion::arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, DictionaryArray, Float64Array, Int32Array,
    Int64Array, StringArray,
};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type};
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

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
    let strings = &trace.strings;
    let s = |col: &mut Column<u32>| dict_from_ids(std::mem::take(col), strings);
    Ok(Derived {
        ph: s(&mut trace.ph)?,
        cat: s(&mut trace.cat)?,
        name: s(&mut trace.name)?,
        pid: s(&mut trace.pid)?,
        tid: s(&mut trace.tid)?,
        parent_uid: int64(parent.iter().map(|p| p.map(|(u, _)| u as i64))),
        parent_kind: edge_kinds(parent),
    })
}

/// Builds the table, taking the trace's columns over (most without a copy); it is
/// built last, once the other tables have read the trace.
///
/// What the batch does not hold is returned apart ([`HeldApart`]), and its
/// columns in the batch are NULL placeholders until [`complete`] fills them:
/// `args` of a trace read from a file (read back from it, see
/// `ingest::reread`), the ids of `args` most events lack, and `t_end`.
pub fn build(
    trace: RawTrace,
    derived: Derived,
    name: &str,
) -> Result<(RecordBatch, HeldApart), ArrowError> {
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
    let sparse = [correlation, external_id, stream, device, seq_num, flow_id];
    let apart = HeldApart {
        rows: n,
        args: in_file,
        sparse: SPARSE.into_iter().zip(sparse.map(Sparse::of)).collect(),
        filled: Mutex::default(),
    };
    let (ints, floats) = placeholders(n);
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
        ("t_end", floats),
        ("correlation", Arc::clone(&ints)),
        ("external_id", Arc::clone(&ints)),
        ("stream", Arc::clone(&ints)),
        ("device", Arc::clone(&ints)),
        ("seq_num", Arc::clone(&ints)),
        ("flow_id", ints),
        ("parent_uid", derived.parent_uid),
        ("parent_kind", derived.parent_kind),
        ("args", args),
    ])?;
    Ok((batch, apart))
}

/// The columns of `args`' ids that most events lack (on the 1 GB benchmark
/// trace 11% of events carry a correlation, 4% a stream, none a sequence
/// number): 180 MB as full Int64 columns there, 26 MB as (row, value) pairs.
const SPARSE: [&str; 6] = [
    "correlation",
    "external_id",
    "stream",
    "device",
    "seq_num",
    "flow_id",
];

/// What a load keeps of a trace's `events` outside the batch, and fills in
/// for the scans that read it ([`complete`]).
#[derive(Debug)]
pub struct HeldApart {
    /// Rows of the batch it belongs to.
    rows: usize,
    /// Where `args` is read back from; None when the batch holds it (standard
    /// input).
    args: Option<ArgsInFile>,
    /// The [`SPARSE`] columns.
    sparse: Vec<(&'static str, Sparse)>,
    /// The columns filled in last, while a scan still holds them: scans that
    /// overlap (the reports plan their views side by side) share one copy
    /// instead of each building its own.
    filled: Mutex<HashMap<&'static str, Weak<dyn Array>>>,
}

impl HeldApart {
    /// Column `name` filled in: the one a scan still holds, else built.
    fn filled(
        &self,
        name: &'static str,
        build: impl FnOnce() -> Result<ArrayRef, ArrowError>,
    ) -> Result<ArrayRef, ArrowError> {
        let filled = || self.filled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(column) = filled().get(name).and_then(Weak::upgrade) {
            return Ok(column);
        }
        // Built unlocked: scans filling other columns do not wait for this one.
        let column = build()?;
        filled().insert(name, Arc::downgrade(&column));
        Ok(column)
    }

    /// Bytes held, for `TRACESQL_TIMINGS`.
    pub fn memory_size(&self) -> usize {
        let args = self.args.as_ref().map_or(0, ArgsInFile::memory_size);
        args + self
            .sparse
            .iter()
            .map(|(_, s)| s.memory_size())
            .sum::<usize>()
    }
}

/// One column's non-NULL rows and their values, rows ascending.
#[derive(Debug)]
struct Sparse {
    rows: Vec<u32>,
    values: Vec<i64>,
}

impl Sparse {
    /// The column's set rows, found a validity word at a time (most are 0).
    fn of(column: Column<i64>) -> Sparse {
        let (values, valid) = column.into_parts();
        let (words, len) = valid.into_parts();
        let (mut rows, mut kept) = (Vec::new(), Vec::new());
        for (w, &word) in words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let row = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(&value) = values.get(row).filter(|_| row < len) {
                    rows.push(row as u32);
                    kept.push(value);
                }
            }
        }
        Sparse { rows, values: kept }
    }

    /// The full column of `n` rows.
    fn column(&self, n: usize) -> ArrayRef {
        let mut values = vec![0i64; n];
        let mut valid = vec![0u64; n.div_ceil(64)];
        for (&row, &value) in self.rows.iter().zip(&self.values) {
            let row = row as usize;
            if let Some(slot) = values.get_mut(row) {
                *slot = value;
                valid[row / 64] |= 1 << (row % 64);
            }
        }
        let valid = BooleanBuffer::new(Buffer::from_vec(valid), 0, n);
        Arc::new(Int64Array::new(
            ScalarBuffer::from(values),
            Some(NullBuffer::new(valid)),
        ))
    }

    fn memory_size(&self) -> usize {
        self.rows.capacity() * 4 + self.values.capacity() * 8
    }
}

/// All-NULL Int64 and Float64 columns of `n` rows sharing one zeroed buffer:
/// the batch's placeholders for the columns held apart.
fn placeholders(n: usize) -> (ArrayRef, ArrayRef) {
    let zeros = Buffer::from(MutableBuffer::from_len_zeroed(n * 8));
    let nulls = NullBuffer::new_null(n);
    let ints = Int64Array::new(ScalarBuffer::new(zeros.clone(), 0, n), Some(nulls.clone()));
    let floats = Float64Array::new(ScalarBuffer::new(zeros, 0, n), Some(nulls));
    (Arc::new(ints), Arc::new(floats))
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

/// `batch` (this trace's events) with the columns held apart filled in where
/// `projection` (column indexes; None: all) includes them, then projected:
/// `args` read back from the file, the sparse ids, `t_end` as ts + dur (ts
/// where dur is missing).
pub fn complete(
    batch: &RecordBatch,
    apart: &HeldApart,
    projection: Option<&[usize]>,
) -> Result<RecordBatch, IngestError> {
    let path = apart.args.as_ref().map_or("events", |a| a.path());
    let bad = |e: ArrowError| {
        let message = format!("cannot complete the events table: {e}");
        IngestError::new(path, crate::ingest::Problem::Read(message))
    };
    if apart.rows != batch.num_rows() {
        let rows = format!(
            "{} rows held apart for {} events",
            apart.rows,
            batch.num_rows()
        );
        return Err(bad(ArrowError::ComputeError(rows)));
    }
    let schema = batch.schema();
    let wanted = |at: usize| projection.is_none_or(|p| p.contains(&at));
    let at = |name: &str| schema.index_of(name).map_err(bad);
    let mut columns = batch.columns().to_vec();
    let args = at("args")?;
    if let Some(in_file) = apart.args.as_ref().filter(|_| wanted(args)) {
        columns[args] = args_column(in_file.read()?).map_err(bad)?;
    }
    for (name, sparse) in &apart.sparse {
        let index = at(name)?;
        if wanted(index) {
            columns[index] = apart
                .filled(name, || Ok(sparse.column(apart.rows)))
                .map_err(bad)?;
        }
    }
    let t_end = at("t_end")?;
    if wanted(t_end) {
        let (ts, dur) = (&columns[at("ts")?], &columns[at("dur")?]);
        columns[t_end] = apart
            .filled("t_end", || t_end_column(ts, dur))
            .map_err(bad)?;
    }
    let full = RecordBatch::try_new(schema, columns).map_err(bad)?;
    match projection {
        Some(p) => full.project(p).map_err(bad),
        None => Ok(full),
    }
}

/// ts + dur, ts where dur is missing, NULL where ts is (`RawTrace::t_end`).
fn t_end_column(ts: &ArrayRef, dur: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let (Some(ts), Some(dur)) = (
        ts.as_primitive_opt::<Float64Type>(),
        dur.as_primitive_opt::<Float64Type>(),
    ) else {
        return Err(ArrowError::SchemaError(
            "events.ts and dur are not Float64".into(),
        ));
    };
    let ends: Float64Array = ts
        .iter()
        .zip(dur.iter())
        .map(|(ts, dur)| ts.map(|ts| ts + dur.unwrap_or(0.0)))
        .collect();
    Ok(Arc::new(ends))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sparse column gives back every value at its row, NULL elsewhere,
    /// across validity words (rows 0, 63, 64, 129 of 130).
    #[test]
    fn sparse_columns_round_trip() {
        let mut column = Column::<i64>::default();
        let set = [(0, -5), (63, 7), (64, i64::MAX), (129, 0)];
        for row in 0..130 {
            column.push(set.iter().find(|(r, _)| *r == row).map(|(_, v)| *v));
        }
        let sparse = Sparse::of(column);
        assert_eq!(sparse.rows, [0, 63, 64, 129]);
        let full = sparse.column(130);
        let full = full.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
        assert_eq!(full.null_count(), 126);
        for (row, value) in set {
            assert_eq!(full.value(row), value, "row {row}");
        }
        assert!(full.is_null(1) && full.is_null(65) && full.is_null(128));
    }

    /// t_end is ts + dur, ts without dur, NULL without ts.
    #[test]
    fn t_end_is_ts_plus_dur() {
        let ts: ArrayRef = Arc::new(Float64Array::from(vec![Some(1.5), Some(2.0), None]));
        let dur: ArrayRef = Arc::new(Float64Array::from(vec![Some(0.25), None, Some(1.0)]));
        let ends = t_end_column(&ts, &dur).expect("Float64 columns");
        let ends = ends.as_primitive::<Float64Type>();
        assert_eq!(
            ends.iter().collect::<Vec<_>>(),
            [Some(1.75), Some(2.0), None]
        );
    }
}
