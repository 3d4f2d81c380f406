//! `collectives`: NCCL/RCCL kernels and the record_param_comms ops that describe them.

use serde::Deserialize;
use serde_json::Value;

use super::columns::{col, float64, int64, repeat_dict, utf8, TableDoc};
use crate::ingest::{ArgsText, EventKind, RawTrace};
use crate::tree::{GpuClass, Links};
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "collectives",
    doc: "Collective communication: NCCL/RCCL kernels (source = 'kernel') and record_param_comms cpu_ops (source = 'op'), with the process group and message metadata PyTorch records.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid."),
        col!("source", Utf8, "kernel: a collective GPU kernel; op: a record_param_comms cpu_op."),
        col!("name", Utf8, "Event name."),
        col!("ts", Float64, "Start, µs."),
        col!("dur", Float64, "Duration, µs."),
        col!("device", Int64, "args.device (kernels)."),
        col!("stream", Int64, "args.stream (kernels)."),
        col!("op_uid", Int64, "Kernels: the cpu_op they are attributed to; ops: their own uid."),
        col!("process_group_name", Utf8, "args['Process Group Name']."),
        col!("process_group_ranks", Utf8, "args['Process Group Ranks'] as written (a list in text)."),
        col!("collective_name", Utf8, "args['Collective name'] (allreduce, allgather, ...); allreduce for cross_device_reduce kernels that lack it."),
        col!("group_size", Int64, "args['Group size']."),
        col!("dtype", Utf8, "args.dtype (Float, BFloat16, ...)."),
        col!("in_msg_nelems", Int64, "args['In msg nelems']."),
        col!("out_msg_nelems", Int64, "args['Out msg nelems']."),
        col!("in_split_size", Utf8, "args['In split size'] as written."),
        col!("out_split_size", Utf8, "args['Out split size'] as written."),
        col!("in_msg_bytes", Float64, "in_msg_nelems × bytes per element of dtype (every c10 ScalarType name: Float8_* and Char are 1 byte); NULL when dtype is unknown."),
        col!("out_msg_bytes", Float64, "out_msg_nelems × bytes per element of dtype."),
        col!("record_uid", Int64, "The record_param_comms op describing this collective: for a kernel, the nearest one above its launch in the call tree, else the one with the kernel's External id; for an op, its own uid. NULL when none."),
        col!("seq", Int64, "args.Seq of that record_param_comms: the process group's sequence number, the same on every rank for one collective instance (newer PyTorch; NULL before)."),
        col!("comms_id", Utf8, "args['Comms Id'] of that record_param_comms, as written: one id per collective instance across ranks (newest PyTorch; NULL before)."),
        col!("peer_rank", Int64, "args.Rank of that record_param_comms: for send/recv the peer's rank, for collectives this rank."),
    ],
};

#[derive(Deserialize, Default)]
struct CommArgs {
    #[serde(rename = "Process Group Name")]
    pg_name: Option<Value>,
    #[serde(rename = "Process Group Ranks")]
    pg_ranks: Option<Value>,
    #[serde(rename = "Collective name")]
    collective: Option<Value>,
    #[serde(rename = "Group size")]
    group_size: Option<Value>,
    dtype: Option<Value>,
    #[serde(rename = "In msg nelems")]
    in_nelems: Option<Value>,
    #[serde(rename = "Out msg nelems")]
    out_nelems: Option<Value>,
    #[serde(rename = "In split size")]
    in_split: Option<Value>,
    #[serde(rename = "Out split size")]
    out_split: Option<Value>,
    #[serde(rename = "Seq")]
    seq: Option<Value>,
    #[serde(rename = "Comms Id")]
    comms_id: Option<Value>,
    #[serde(rename = "Rank")]
    rank: Option<Value>,
}

/// Bytes per element of the c10 ScalarType names PyTorch writes for
/// collectives. Wider than TraceLens's table (which has no Char, Float8 or
/// unsigned types, so FP8 all-gathers get no size there; `--tracelens-compat`
/// reports use its table, see queries/collectives/comm_kernels.sql).
fn dtype_bytes(dtype: &str) -> Option<f64> {
    if dtype.starts_with("Float8_") || dtype.starts_with("QInt8") || dtype.starts_with("QUInt8") {
        return Some(1.0);
    }
    Some(match dtype {
        "Float" | "Int" | "UInt32" | "ComplexHalf" | "QInt32" => 4.0,
        "Long" | "Double" | "UInt64" | "ComplexFloat" => 8.0,
        "ComplexDouble" => 16.0,
        "BFloat16" | "Half" | "Short" | "UInt16" => 2.0,
        "Bool" | "Byte" | "Char" | "Float4_e2m1fn_x2" => 1.0,
        _ => return None,
    })
}

/// The record_param_comms op describing collective event `u`: the nearest one
/// above it in the call tree (a kernel's launch sits under `nccl:*` under
/// record_param_comms), else the op whose External id the kernel carries.
fn record_op(
    trace: &RawTrace,
    links: &Links,
    by_external_id: &std::collections::HashMap<i64, usize>,
    u: usize,
) -> Option<usize> {
    let is_record =
        |v: usize| trace.kind[v] == EventKind::CpuOp && trace.name_of(v) == "record_param_comms";
    if is_record(u) {
        return Some(u);
    }
    let mut at = u;
    // A call tree is shallow; the bound only guards a malformed parent chain.
    for _ in 0..256 {
        let Some((parent, _)) = links.parent[at] else {
            break;
        };
        at = parent as usize;
        if is_record(at) {
            return Some(at);
        }
    }
    trace
        .external_id
        .get(u)
        .and_then(|id| by_external_id.get(&id).copied())
}

fn text(v: &Option<Value>) -> Option<String> {
    match v.as_ref()? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn int(v: &Option<Value>) -> Option<i64> {
    match v.as_ref()? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `args` holds the GPU events' (and record_param_comms ops') args
/// (`RawTrace::held_args`, taken out of the trace for the build).
pub fn build(
    trace: &RawTrace,
    args: &ArgsText,
    links: &Links,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let uids: Vec<usize> = (0..trace.len())
        .filter(|&u| {
            links.gpu_class[u] == Some(GpuClass::Communication)
                || (trace.kind[u] == EventKind::CpuOp && trace.name_of(u) == "record_param_comms")
        })
        .collect();
    let parse = |u: usize| -> CommArgs {
        args.get(u)
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or_default()
    };
    let args: Vec<CommArgs> = uids.iter().map(|&u| parse(u)).collect();
    let by_external_id: std::collections::HashMap<i64, usize> = uids
        .iter()
        .filter(|&&u| !trace.kind[u].is_gpu())
        .filter_map(|&u| Some((trace.external_id.get(u)?, u)))
        .collect();
    let records: Vec<Option<usize>> = uids
        .iter()
        .map(|&u| record_op(trace, links, &by_external_id, u))
        .collect();
    let record_args: std::collections::HashMap<usize, CommArgs> =
        records.iter().flatten().map(|&r| (r, parse(r))).collect();
    let of_record = |f: &dyn Fn(&CommArgs) -> &Option<Value>| -> Vec<Option<Value>> {
        records
            .iter()
            .map(|r| {
                r.and_then(|r| record_args.get(&r))
                    .and_then(|a| f(a).clone())
            })
            .collect()
    };
    let (seq, comms_id, peer) = (
        of_record(&|a| &a.seq),
        of_record(&|a| &a.comms_id),
        of_record(&|a| &a.rank),
    );
    let collective: Vec<Option<String>> = uids
        .iter()
        .zip(&args)
        .map(|(&u, a)| {
            text(&a.collective).or_else(|| {
                let fallback =
                    trace.kind[u].is_gpu() && trace.name_of(u).contains("cross_device_reduce");
                fallback.then(|| "allreduce".to_string())
            })
        })
        .collect();
    let msg_bytes = |a: &CommArgs, nelems: &Option<Value>| {
        Some(int(nelems)? as f64 * dtype_bytes(&text(&a.dtype)?)?)
    };
    let is_kernel = |u: usize| trace.kind[u].is_gpu();
    let n = uids.len();
    DOC.batch(vec![
        ("trace", repeat_dict(name, n)),
        ("uid", int64(uids.iter().map(|&u| Some(u as i64)))),
        (
            "source",
            utf8(
                uids.iter()
                    .map(|&u| Some(if is_kernel(u) { "kernel" } else { "op" })),
            ),
        ),
        (
            "name",
            utf8(uids.iter().map(|&u| trace.str(trace.name.get(u)))),
        ),
        ("ts", float64(uids.iter().map(|&u| trace.ts.get(u)))),
        ("dur", float64(uids.iter().map(|&u| trace.dur.get(u)))),
        ("device", int64(uids.iter().map(|&u| trace.device.get(u)))),
        ("stream", int64(uids.iter().map(|&u| trace.stream.get(u)))),
        (
            "op_uid",
            int64(uids.iter().map(|&u| {
                if is_kernel(u) {
                    links.launcher_op[u].map(|o| o as i64)
                } else {
                    Some(u as i64)
                }
            })),
        ),
        (
            "process_group_name",
            utf8(args.iter().map(|a| text(&a.pg_name))),
        ),
        (
            "process_group_ranks",
            utf8(args.iter().map(|a| text(&a.pg_ranks))),
        ),
        ("collective_name", utf8(collective)),
        ("group_size", int64(args.iter().map(|a| int(&a.group_size)))),
        ("dtype", utf8(args.iter().map(|a| text(&a.dtype)))),
        (
            "in_msg_nelems",
            int64(args.iter().map(|a| int(&a.in_nelems))),
        ),
        (
            "out_msg_nelems",
            int64(args.iter().map(|a| int(&a.out_nelems))),
        ),
        (
            "in_split_size",
            utf8(args.iter().map(|a| text(&a.in_split))),
        ),
        (
            "out_split_size",
            utf8(args.iter().map(|a| text(&a.out_split))),
        ),
        (
            "in_msg_bytes",
            float64(args.iter().map(|a| msg_bytes(a, &a.in_nelems))),
        ),
        (
            "out_msg_bytes",
            float64(args.iter().map(|a| msg_bytes(a, &a.out_nelems))),
        ),
        (
            "record_uid",
            int64(records.iter().map(|r| r.map(|r| r as i64))),
        ),
        ("seq", int64(seq.into_iter().map(|v| int(&v)))),
        ("comms_id", utf8(comms_id.into_iter().map(|v| text(&v)))),
        ("peer_rank", int64(peer.into_iter().map(|v| int(&v)))),
    ])
}
