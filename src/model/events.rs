//! `events`: every event of the trace, one row each.

use super::columns::{col, float64, int64, repeat_utf8, utf8, TableDoc};
use crate::ingest::RawTrace;
use crate::tree::Links;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "events",
    doc: "Every event of the trace in file order, metadata, flows and instants included.",
    columns: &[
        col!("trace", Utf8, "Trace name (file name without extension); tells traces apart in one session."),
        col!("uid", Int64, "0-based index of the event in traceEvents, counting every event (the reference tool's UID)."),
        col!("ph", Utf8, "Phase: X complete, i instant, s/f flow start/end, M metadata, ..."),
        col!("cat", Utf8, "Category: cpu_op, python_function, cuda_runtime, cuda_driver, kernel, gpu_memcpy, gpu_memset, ac2g, ... NULL if absent."),
        col!("name", Utf8, "Event name."),
        col!("pid", Utf8, "Process id as text (traces use numbers and strings); for GPU events, the device."),
        col!("tid", Utf8, "Thread id as text; for GPU events, the stream."),
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
        col!("args", Utf8, "The raw args object as JSON text."),
    ],
};

pub fn build(trace: &RawTrace, links: &Links, name: &str) -> Result<RecordBatch, ArrowError> {
    let n = trace.len();
    let s = |col: &Vec<Option<u32>>| utf8(col.iter().map(|id| trace.str(*id)));
    DOC.batch(vec![
        ("trace", repeat_utf8(name, n)),
        ("uid", int64((0..n as i64).map(Some))),
        ("ph", s(&trace.ph)),
        ("cat", s(&trace.cat)),
        ("name", s(&trace.name)),
        ("pid", s(&trace.pid)),
        ("tid", s(&trace.tid)),
        ("ts", float64(trace.ts.iter().copied())),
        ("dur", float64(trace.dur.iter().copied())),
        ("t_end", float64((0..n).map(|u| trace.t_end(u)))),
        ("correlation", int64(trace.correlation.iter().copied())),
        ("external_id", int64(trace.external_id.iter().copied())),
        ("stream", int64(trace.stream.iter().copied())),
        ("device", int64(trace.device.iter().copied())),
        ("seq_num", int64(trace.seq_num.iter().copied())),
        ("flow_id", int64(trace.flow_id.iter().copied())),
        (
            "parent_uid",
            int64(links.parent.iter().map(|p| p.map(|(u, _)| u as i64))),
        ),
        ("args", utf8((0..n).map(|u| trace.args_of(u)))),
    ])
}
