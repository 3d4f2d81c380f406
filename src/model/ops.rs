//! `ops`: cpu_ops with their inputs and the GPU time they account for.

use super::columns::{
    boolean, col, dict, dict_interned, float64, int64, int64_list_list_from_json, repeat_dict,
    utf8_list_from_json, TableDoc,
};
use super::{busy_time, process_label, process_name, thread_name};
use crate::ingest::{Column, EventKind, FxMap, OpInputs, RawTrace};
use crate::tree::{EdgeKind, Links};
use datafusion::arrow::array::{ArrayRef, UInt32Array};
use datafusion::arrow::compute::take;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "ops",
    doc: "cpu_op events (ATen and framework operators) with parsed inputs and their GPU kernel time.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid (see events.uid)."),
        col!("name", Utf8Dict, "Operator name, e.g. aten::addmm."),
        col!("ts", Float64, "CPU start, µs."),
        col!("dur", Float64, "CPU duration, µs."),
        col!("pid", Utf8Dict, "Process id as text."),
        col!("tid", Utf8Dict, "Thread id as text."),
        col!("process_name", Utf8Dict, "Name of the process from metadata events, 'Unknown' if absent."),
        col!("process_label", Utf8Dict, "Label of the process (e.g. CPU), 'Unknown' if absent."),
        col!("thread_name", Utf8Dict, "Name of the thread from metadata events, 'Unknown' if absent."),
        col!("external_id", Int64, "args['External id']."),
        col!("seq_num", Int64, "args['Sequence number'] (autograd pairing)."),
        col!("parent_uid", Int64, "Enclosing cpu_op or python frame; NULL for roots."),
        col!("is_root", Bool, "No cpu_op encloses this op on its thread."),
        col!("in_tree", Bool, "False when the op overlaps its neighbour by 1 µs or more and was left out of the call tree (it still owns its launches)."),
        col!("forward_uid", Int64, "For backward wrappers (autograd::engine::evaluate_function: ...): the forward op they differentiate."),
        col!("input_dims", Int64ListList, "args['Input Dims'] parsed: one shape per input, [] for non-tensors, NULL element for a TensorList input (see input_dims_json)."),
        col!("input_types", Utf8List, "args['Input type']: one dtype string per input (c10::BFloat16, float, Scalar, ...)."),
        col!("input_strides", Int64ListList, "args['Input Strides'] parsed like input_dims."),
        col!("concrete_inputs", Utf8List, "args['Concrete Inputs']: literal values of non-tensor inputs as strings, '' for tensors."),
        col!("input_dims_json", Utf8Dict, "args['Input Dims'] exactly as written (JSON text), nested TensorList shapes included."),
        col!("input_strides_json", Utf8Dict, "args['Input Strides'] exactly as written (JSON text)."),
        col!("input_types_json", Utf8Dict, "args['Input type'] exactly as written (JSON text)."),
        col!("concrete_inputs_json", Utf8Dict, "args['Concrete Inputs'] exactly as written (JSON text)."),
        col!("direct_kernel_count", Int64, "GPU events this op launched itself (its runtime calls, through `execute` wrappers and python frames), collectives excluded."),
        col!("direct_kernel_time", Float64, "Busy time (union of intervals) of those events, µs; 0 if none."),
        col!("subtree_kernel_count", Int64, "All GPU events below this op, collectives included."),
        col!("subtree_kernel_time", Float64, "Busy time of all GPU events below this op, µs; 0 if none."),
    ],
};

/// The uids of the ops: every cpu_op, in file order.
pub fn op_uids(trace: &RawTrace) -> Vec<usize> {
    (0..trace.len())
        .filter(|&u| trace.kind[u] == EventKind::CpuOp)
        .collect()
}

/// The four GPU-time columns (`direct_kernel_count` … `subtree_kernel_time`):
/// with [`input_columns`], the costly part of the table, built on another
/// thread than the rest ([`base_columns`]).
pub struct KernelTimes([ArrayRef; 4]);

pub fn kernel_times(trace: &RawTrace, links: &Links, uids: &[usize]) -> KernelTimes {
    let direct = |u: usize| links.direct(u as u32);
    let subtree = |u: usize| links.subtree(u as u32);
    KernelTimes([
        int64(uids.iter().map(|&u| Some(direct(u).len() as i64))),
        float64(uids.iter().map(|&u| Some(busy_time(trace, direct(u))))),
        int64(uids.iter().map(|&u| Some(subtree(u).len() as i64))),
        float64(uids.iter().map(|&u| Some(busy_time(trace, subtree(u))))),
    ])
}

/// The eight input columns (`input_dims` … `concrete_inputs_json`), parsed
/// from the ops' args (half the table's time on a large trace).
pub struct InputColumns(Vec<(&'static str, ArrayRef)>);

pub fn input_columns(trace: &RawTrace, uids: &[usize]) -> Result<InputColumns, ArrowError> {
    let inputs = trace.op_inputs_of(uids);
    // Each distinct input description is parsed once and its list repeated by
    // `take`: the same shapes recur across layers and steps (a few hundred
    // distinct texts for 24 K ops on the benchmark trace).
    let parsed = |pick: fn(&OpInputs) -> Option<u32>, parse: fn(Vec<Option<&str>>) -> ArrayRef| {
        let mut slot_of: FxMap<u32, u32> = FxMap::default();
        let mut texts = Vec::new();
        let rows: UInt32Array = inputs
            .iter()
            .map(|i| {
                let id = i.and_then(pick)?;
                Some(*slot_of.entry(id).or_insert_with(|| {
                    texts.push(trace.input_text(Some(id)));
                    texts.len() as u32 - 1
                }))
            })
            .collect();
        take(parse(texts).as_ref(), &rows, None)
    };
    let json = |pick: fn(&OpInputs) -> Option<u32>| {
        dict_interned(inputs.iter().map(|i| i.and_then(pick)), &trace.strings)
    };
    Ok(InputColumns(vec![
        ("input_dims", parsed(|i| i.dims, shapes)?),
        ("input_types", parsed(|i| i.types, strings)?),
        ("input_strides", parsed(|i| i.strides, shapes)?),
        ("concrete_inputs", parsed(|i| i.concrete, strings)?),
        ("input_dims_json", json(|i| i.dims)?),
        ("input_strides_json", json(|i| i.strides)?),
        ("input_types_json", json(|i| i.types)?),
        ("concrete_inputs_json", json(|i| i.concrete)?),
    ]))
}

/// The columns of the ops `uids` ([`op_uids`]) but their [`input_columns`]
/// and [`kernel_times`]: [`build`] puts the three together.
pub struct BaseColumns(Vec<(&'static str, ArrayRef)>);

pub fn base_columns(
    trace: &RawTrace,
    links: &Links,
    uids: &[usize],
    name: &str,
) -> Result<BaseColumns, ArrowError> {
    let n = uids.len();
    let interned =
        |column: &Column<u32>| dict_interned(uids.iter().map(|&u| column.get(u)), &trace.strings);
    let parent = |u: usize| {
        links.parent[u]
            .filter(|(_, k)| matches!(k, EdgeKind::Host | EdgeKind::Python))
            .map(|(p, _)| p as i64)
    };
    Ok(BaseColumns(vec![
        ("trace", repeat_dict(name, n)),
        ("uid", int64(uids.iter().map(|&u| Some(u as i64)))),
        ("name", interned(&trace.name)?),
        ("ts", float64(uids.iter().map(|&u| trace.ts.get(u)))),
        ("dur", float64(uids.iter().map(|&u| trace.dur.get(u)))),
        ("pid", interned(&trace.pid)?),
        ("tid", interned(&trace.tid)?),
        (
            "process_name",
            dict(uids.iter().map(|&u| Some(process_name(trace, u))))?,
        ),
        (
            "process_label",
            dict(uids.iter().map(|&u| Some(process_label(trace, u))))?,
        ),
        (
            "thread_name",
            dict(uids.iter().map(|&u| Some(thread_name(trace, u))))?,
        ),
        (
            "external_id",
            int64(uids.iter().map(|&u| trace.external_id.get(u))),
        ),
        ("seq_num", int64(uids.iter().map(|&u| trace.seq_num.get(u)))),
        ("parent_uid", int64(uids.iter().map(|&u| parent(u)))),
        (
            "is_root",
            boolean(uids.iter().map(|&u| Some(links.cpu_root[u]))),
        ),
        (
            "in_tree",
            boolean(uids.iter().map(|&u| Some(!links.dropped[u]))),
        ),
        (
            "forward_uid",
            int64(
                uids.iter()
                    .map(|&u| links.forward_of.get(&(u as u32)).map(|&f| f as i64)),
            ),
        ),
    ]))
}

/// The table, from its three sets of columns.
pub fn build(
    base: BaseColumns,
    inputs: InputColumns,
    times: KernelTimes,
) -> Result<RecordBatch, ArrowError> {
    let [direct_count, direct_time, subtree_count, subtree_time] = times.0;
    let mut columns = base.0;
    columns.extend(inputs.0);
    columns.extend([
        ("direct_kernel_count", direct_count),
        ("direct_kernel_time", direct_time),
        ("subtree_kernel_count", subtree_count),
        ("subtree_kernel_time", subtree_time),
    ]);
    DOC.batch(columns)
}

fn shapes(texts: Vec<Option<&str>>) -> ArrayRef {
    int64_list_list_from_json(texts)
}

fn strings(texts: Vec<Option<&str>>) -> ArrayRef {
    utf8_list_from_json(texts)
}
