//! `ops`: cpu_ops with their inputs and the GPU time they account for.

use super::columns::{
    boolean, col, dict, dict_interned, float64, int64, int64_list_list_from_json, repeat_dict,
    utf8_list_from_json, TableDoc,
};
use super::{busy_time, process_label, process_name, thread_name};
use crate::ingest::{Column, EventKind, OpInputs, RawTrace};
use crate::tree::{EdgeKind, Links};
use datafusion::arrow::array::{new_null_array, ArrayRef, AsArray};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, UInt32Type};
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

/// The eight input columns (`input_dims` … `concrete_inputs_json`): the four
/// JSON texts as the trace writes them, and the four lists parsed from them
/// left NULL until a query reads them ([`with_input_lists`]).
///
/// Why not held: the parsed lists are a list per op, 165 of the 265 MB of
/// `ops` on a 1 GB trace, and no report reads them (the perf models take the
/// JSON texts); each is exactly its JSON column parsed, so a scan that
/// projects one derives it from the JSON column's few hundred distinct texts.
pub struct InputColumns(Vec<(&'static str, ArrayRef)>);

pub fn input_columns(trace: &RawTrace, uids: &[usize]) -> Result<InputColumns, ArrowError> {
    let inputs = trace.op_inputs_of(uids);
    let json = |pick: fn(&OpInputs) -> Option<u32>| {
        dict_interned(inputs.iter().map(|i| i.and_then(pick)), &trace.strings)
    };
    let schema = DOC.schema();
    let not_yet = |list: &str| -> Result<ArrayRef, ArrowError> {
        let field = schema.field_with_name(list)?;
        Ok(new_null_array(field.data_type(), uids.len()))
    };
    Ok(InputColumns(vec![
        ("input_dims", not_yet("input_dims")?),
        ("input_types", not_yet("input_types")?),
        ("input_strides", not_yet("input_strides")?),
        ("concrete_inputs", not_yet("concrete_inputs")?),
        ("input_dims_json", json(|i| i.dims)?),
        ("input_strides_json", json(|i| i.strides)?),
        ("input_types_json", json(|i| i.types)?),
        ("concrete_inputs_json", json(|i| i.concrete)?),
    ]))
}

/// A parsed input list column, the JSON column it is parsed from, and how.
type InputList = (
    &'static str,
    &'static str,
    fn(Vec<Option<&str>>) -> ArrayRef,
);

const INPUT_LISTS: [InputList; 4] = [
    ("input_dims", "input_dims_json", shapes),
    ("input_types", "input_types_json", strings),
    ("input_strides", "input_strides_json", shapes),
    ("concrete_inputs", "concrete_inputs_json", strings),
];

/// `batch` (a trace's ops) with its input list columns parsed from their JSON
/// columns, then projected to `projection` (column indexes; None: all). Only
/// the projected lists are parsed, and a list column that holds values (ops
/// read back from an export) is kept as it is.
pub fn with_input_lists(
    batch: &RecordBatch,
    projection: Option<&[usize]>,
) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    let mut columns = batch.columns().to_vec();
    for (list, json, parse) in INPUT_LISTS {
        let Ok(at) = schema.index_of(list) else {
            continue;
        };
        let wanted = projection.is_none_or(|p| p.contains(&at));
        if !wanted || columns[at].null_count() < batch.num_rows() {
            continue;
        }
        let Some(json) = batch.column_by_name(json) else {
            continue;
        };
        columns[at] = parsed_rows(json, parse)?;
    }
    let full = RecordBatch::try_new(schema, columns)?;
    match projection {
        Some(p) => full.project(p),
        None => Ok(full),
    }
}

/// `parse` over a JSON text column: for a dictionary, each distinct text is
/// parsed once and its list repeated by `take` (the same shapes recur across
/// layers and steps: a few hundred texts for 24 K ops on the benchmark trace).
fn parsed_rows(
    json: &ArrayRef,
    parse: fn(Vec<Option<&str>>) -> ArrayRef,
) -> Result<ArrayRef, ArrowError> {
    let Some(dictionary) = json.as_any_dictionary_opt() else {
        let texts = cast(json, &DataType::Utf8)?;
        return Ok(parse(texts.as_string::<i32>().iter().collect()));
    };
    let texts = cast(dictionary.values(), &DataType::Utf8)?;
    let lists = parse(texts.as_string::<i32>().iter().collect());
    let keys = cast(dictionary.keys(), &DataType::UInt32)?;
    take(lists.as_ref(), keys.as_primitive::<UInt32Type>(), None)
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
