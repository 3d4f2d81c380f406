//! The tables of what non-Kineto formats record beyond the events:
//! `kernel_dispatches`, `api_calls`, `memory_copies`, `agents` and
//! `hlo_instructions` (rows of [`crate::ingest::native`]). A Kineto trace has none of these rows; the
//! tables exist for every trace so that a query over them never fails on one.

use super::columns::{
    boolean, col, dict, dict_interned, int64, repeat_dict, utf8_list_from_json, TableDoc,
};
use crate::ingest::native::{Native, Text};
use crate::ingest::Strings;
use datafusion::arrow::array::{ArrayRef, BooleanBufferBuilder, Int64Array};
use datafusion::arrow::buffer::{NullBuffer, ScalarBuffer};
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};
use std::sync::Arc;

pub const DISPATCHES: TableDoc = TableDoc {
    name: "kernel_dispatches",
    doc: "rocprofv3 / Perfetto / JAX traces: one row per GPU kernel dispatch (the `kernels` row of the same uid), with the profiler's own fields and exact times. Values are as the trace writes them, NULL where it does not. JAX: agent is the plane (/device:GPU:n), gpu_index n, stream_id the stream line id, and the HLO key (hlo_module, program_id, hlo_op) joins hlo_instructions (module, program_id, name).",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid (kernels.uid, events.uid)."),
        col!("name", Utf8Dict, "The name events use: rocprofv3 JSON's truncated name (TraceLens's choice: template instantiations merge), the Perfetto slice's name."),
        col!("name_full", Utf8Dict, "The full demangled name with template arguments."),
        col!("agent", Utf8Dict, "The agent as written: rocprofv3 JSON's agent handle, Perfetto's args.agent ('Agent-2', 'gpu_0'); NULL when absent or falsy."),
        col!("gpu_index", Int64, "The GPU ordinal the trace gives (rocprofv3 JSON agents.gpu_index)."),
        col!("queue_id", Int64, "HSA queue."),
        col!("stream_id", Int64, "HIP stream handle (0: the null stream)."),
        col!("kernel_id", Int64, "rocprofv3 kernel id (kernel_symbols)."),
        col!("dispatch_id", Int64, "rocprofv3 dispatch id, unique per process."),
        col!("corr_id", Int64, "Correlation id linking the dispatch to the API call that enqueued it."),
        col!("thread_id", Int64, "OS thread that enqueued it."),
        col!("begin_ns", Int64, "Start, ns (profiler clock; JAX: begin_ps / 1000 rounded down, relative to the profile start)."),
        col!("end_ns", Int64, "End, ns."),
        col!("delta_ns", Int64, "Duration as written (Perfetto's delta_ns; NULL for rocprofv3 JSON, which writes start and end)."),
        col!("grid_x", Int64, "Grid size in work-items (not blocks), x; also y, z below. JAX: in blocks, as kernel_details' grid: writes it (work-items = grid_x · block_x)."),
        col!("grid_y", Int64, "Grid size, y."),
        col!("grid_z", Int64, "Grid size, z."),
        col!("block_x", Int64, "Work-group size, x."),
        col!("block_y", Int64, "Work-group size, y."),
        col!("block_z", Int64, "Work-group size, z."),
        col!("grid_size", Int64, "Grid work-items x·y·z (what Perfetto writes; JAX: grid_x·grid_y·grid_z in blocks)."),
        col!("workgroup_size", Int64, "Work-group size x·y·z."),
        col!("lds", Int64, "LDS (group segment) bytes (JAX: kernel_details group_mem:, else static_shared + dynamic_shared)."),
        col!("scratch", Int64, "Scratch (private segment) bytes (JAX: kernel_details private_mem:)."),
        col!("vgpr", Int64, "Architected VGPRs."),
        col!("accum_vgpr", Int64, "Accumulation VGPRs."),
        col!("sgpr", Int64, "SGPRs."),
        col!("device_id", Int64, "An explicit device id in the args (device_id, deviceId, dev_id, DevId, gpu_id, gpuId)."),
        col!("begin_ps", Int64, "JAX: exact start, ps since the profile start (line timestamp_ns·1000 + offset_ps)."),
        col!("end_ps", Int64, "JAX: exact end, ps (begin_ps + duration_ps)."),
        col!("hlo_module", Utf8Dict, "JAX: the XLA module (hlo_module stat), e.g. jit_forward_3d_conv."),
        col!("hlo_op", Utf8Dict, "JAX: the HLO instruction the kernel runs (hlo_op stat), e.g. cudnn-conv.1: hlo_instructions.name."),
        col!("program_id", Int64, "JAX: the module's program id (program_id stat): the N of the metadata plane's <module>(N)."),
        col!("tf_op", Utf8Dict, "JAX: the tf_op stat (XlaModule:, ...)."),
        col!("name_scope", Utf8Dict, "JAX: the JAX name scope (the name stat), e.g. jit(forward_3d_conv)/jit(main)/conv_general_dilated."),
        col!("kernel_details", Utf8Dict, "JAX: the kernel_details stat as written, e.g. ' grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0'."),
    ],
};

pub const API_CALLS: TableDoc = TableDoc {
    name: "api_calls",
    doc: "rocprofv3 / Perfetto / JAX traces: one row per host API call (HIP, HSA, RCCL, roctx markers; JAX: each host-plane event with a correlation_id stat), linked to the work it enqueued by corr_id.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid."),
        col!("domain", Utf8Dict, "hip_api, hsa_api, rccl_api, marker_api, ... (the Perfetto category as written; JAX: xla_launch)."),
        col!("name", Utf8Dict, "API function (hipLaunchKernel, ...) or marker text."),
        col!("thread_id", Int64, "The real OS thread (Perfetto's args.tid: async slices carry the pid as tid; JAX: the full 64-bit host line id, whose low 32 bits are events.tid)."),
        col!("begin_ns", Int64, "Start, ns."),
        col!("end_ns", Int64, "End, ns."),
        col!("delta_ns", Int64, "Duration as written (Perfetto only)."),
        col!("corr_id", Int64, "Correlation id."),
        col!("kind", Int64, "rocprofv3's record kind (an index into its name tables)."),
        col!("operation", Int64, "rocprofv3's operation id within that kind."),
        col!("device_id", Int64, "An explicit device id in the args (JAX: the device_id stat)."),
        col!("agent", Utf8Dict, "args.agent, when truthy."),
        col!("stream_id", Int64, "args.stream_ID (rocprofv3 never writes it)."),
    ],
};

pub const MEMORY_COPIES: TableDoc = TableDoc {
    name: "memory_copies",
    doc: "rocprofv3 / Perfetto / JAX traces: one row per copy-engine memory copy (JAX: each memcpy event of a GPU stream line; bytes from memcpy_details size:).",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid."),
        col!("name", Utf8Dict, "MEMORY_COPY_HOST_TO_DEVICE, ..._DEVICE_TO_HOST, ..._DEVICE_TO_DEVICE, ..._HOST_TO_HOST."),
        col!("begin_ns", Int64, "Start, ns."),
        col!("end_ns", Int64, "End, ns."),
        col!("delta_ns", Int64, "Duration as written (Perfetto only)."),
        col!("bytes", Int64, "Bytes copied."),
        col!("src_agent", Utf8Dict, "Source agent as written ('Agent-0'; rocprofv3 JSON: Agent-<logical node id>)."),
        col!("dst_agent", Utf8Dict, "Destination agent as written."),
        col!("corr_id", Int64, "Correlation id of the API call that asked for it."),
        col!("stream_id", Int64, "HIP stream handle."),
        col!("thread_id", Int64, "OS thread that asked for it."),
    ],
};

pub const AGENTS: TableDoc = TableDoc {
    name: "agents",
    doc: "rocprofv3 JSON traces: the HSA agents (CPUs and GPUs) of the profiled node.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!(
            "handle",
            Int64,
            "Opaque agent handle (what dispatch records name)."
        ),
        col!("type", Utf8Dict, "CPU or GPU."),
        col!("node_id", Int64, "KFD node id."),
        col!(
            "logical_node_id",
            Int64,
            "The N of 'Agent-N' in rocprofv3's other outputs."
        ),
        col!("gpu_index", Int64, "GPU ordinal (NULL for CPUs)."),
        col!("name", Utf8Dict, "gfx target (gfx942) or CPU model."),
        col!(
            "product_name",
            Utf8Dict,
            "Marketing name (AMD Instinct MI300X)."
        ),
        col!("cu_count", Int64, "Compute units."),
        col!("simd_count", Int64, "SIMDs."),
        col!("wave_front_size", Int64, "Wavefront size."),
        col!("max_engine_clk_fcompute", Int64, "Peak engine clock, MHz."),
        col!("num_xcc", Int64, "Accelerator complex dies."),
    ],
};

pub const HLO_INSTRUCTIONS: TableDoc = TableDoc {
    name: "hlo_instructions",
    doc: "JAX XPlane traces: one row per instruction of every compiled XLA module whose HloProto the trace's /host:metadata plane holds (the `Hlo Proto` stat of its `<module>(<program_id>)` entries). Kernels join it on (hlo_module, program_id, hlo_op) = (module, program_id, name).",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("module", Utf8Dict, "Module name, from the metadata entry <module>(<program_id>), e.g. jit_forward_3d_conv."),
        col!("program_id", Int64, "The program id in that entry's name (NULL if it has none)."),
        col!("computation", Utf8Dict, "The computation holding the instruction (ENTRY main.42, fused_convert, ...)."),
        col!("is_entry", Bool, "Whether that computation is the module's entry computation."),
        col!("name", Utf8Dict, "Instruction name without HLO text's %, e.g. cudnn-conv.1 (what the hlo_op stat names)."),
        col!("id", Int64, "Instruction id, unique in the module (may exceed 2^31)."),
        col!("opcode", Utf8Dict, "HLO opcode: fusion, custom-call, convolution, ..."),
        col!("shape", Utf8Dict, "Output shape as HLO text: bf16[1,16,32]{2,1,0} (dims, then the layout's minor_to_major), scalars f32[], tuples (a,b) with elements joined by ',' and XLA's /*index=5*/ before every fifth element (TraceLens's normalised output)."),
        col!("operands", Utf8List, "Operand instruction names, in order (no %)."),
        col!("operand_shapes", Utf8List, "The operands' shapes as HLO text, in order (TraceLens's resolved operands, without its /*index=N*/ quirk)."),
        col!("called_computations", Utf8List, "Names of the computations it calls (a fusion's fused computation, a reduce's reducer, ...)."),
        col!("custom_call_target", Utf8Dict, "custom-call target, e.g. __cudnn$convForward (bare; TraceLens keeps the key and quotes)."),
        col!("backend_config", Utf8, "backend_config as written (JSON for GPU custom calls and fusions)."),
        col!("fusion_kind", Utf8Dict, "kLoop, kInput, kOutput, kCustom for fusions."),
        col!("op_type", Utf8Dict, "OpMetadata op_type (the JAX primitive)."),
        col!("op_name", Utf8Dict, "OpMetadata op_name (the JAX name scope of the op)."),
        col!("source_file", Utf8Dict, "OpMetadata source_file."),
        col!("source_line", Int64, "OpMetadata source_line."),
        col!("is_root", Bool, "Whether it is its computation's root (TraceLens's HLO-text parser skips ROOT lines, so an ENTRY root is 'Missing hlo_op' there)."),
    ],
};

fn ints<T>(rows: &[T], f: impl Fn(&T) -> Option<i64>) -> ArrayRef {
    int64(rows.iter().map(f))
}

/// `N` Int64 columns of `rows` filled in one pass over them. A native row is
/// large (a dispatch is over half a kilobyte of optional fields), so a pass
/// per column reads every row again from memory; here each row is read once
/// and each column written in order. A column gets a validity buffer only
/// where a row lacks its value, as `Int64Array::from_iter` gives it.
fn int_columns<T, const N: usize>(rows: &[T], f: impl Fn(&T) -> [Option<i64>; N]) -> [ArrayRef; N] {
    let mut values: [Vec<i64>; N] = std::array::from_fn(|_| Vec::with_capacity(rows.len()));
    let mut valid: [BooleanBufferBuilder; N] =
        std::array::from_fn(|_| BooleanBufferBuilder::new(rows.len()));
    let mut nulls = [0usize; N];
    for row in rows {
        for (i, value) in f(row).into_iter().enumerate() {
            values[i].push(value.unwrap_or_default());
            valid[i].append(value.is_some());
            nulls[i] += usize::from(value.is_none());
        }
    }
    std::array::from_fn(|i| {
        let valid = (nulls[i] > 0).then(|| NullBuffer::new(valid[i].finish()));
        let values = ScalarBuffer::from(std::mem::take(&mut values[i]));
        Arc::new(Int64Array::new(values, valid)) as ArrayRef
    })
}

/// Columns taken in turn, in the order they were made.
struct Columns<const N: usize>(std::array::IntoIter<ArrayRef, N>);

impl<const N: usize> From<[ArrayRef; N]> for Columns<N> {
    fn from(columns: [ArrayRef; N]) -> Self {
        Columns(columns.into_iter())
    }
}

impl<const N: usize> Columns<N> {
    /// The next column; an empty one past the last (a table built with one
    /// too few fails its row count check).
    fn next(&mut self) -> ArrayRef {
        self.0.next().unwrap_or_else(|| int64([]))
    }
}

fn texts<T>(rows: &[T], f: impl Fn(&T) -> Option<&str>) -> Result<ArrayRef, ArrowError> {
    dict(rows.iter().map(f))
}

/// A column of interned strings ([`Text`]): keys renumbered, never rehashed.
fn interned<T>(
    rows: &[T],
    strings: &Strings,
    f: impl Fn(&T) -> Text,
) -> Result<ArrayRef, ArrowError> {
    if rows.is_empty() {
        // Not a key table the size of every string of a Kineto trace.
        return dict(std::iter::empty::<Option<&str>>());
    }
    dict_interned(rows.iter().map(f), strings)
}

pub fn dispatches(
    native: &Native,
    strings: &Strings,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let r = &native.dispatches;
    // In the table's order, taken in turn below.
    let mut ints = Columns::from(int_columns(r, |d| {
        [
            Some(i64::from(d.uid)),
            d.gpu_index,
            d.queue_id,
            d.stream_id,
            d.kernel_id,
            d.dispatch_id,
            d.corr_id,
            d.thread_id,
            d.begin_ns,
            d.end_ns,
            d.delta_ns,
            d.grid[0],
            d.grid[1],
            d.grid[2],
            d.block[0],
            d.block[1],
            d.block[2],
            d.grid_size,
            d.workgroup_size,
            d.lds,
            d.scratch,
            d.vgpr,
            d.accum_vgpr,
            d.sgpr,
            d.device_id,
            d.begin_ps,
            d.end_ps,
            d.program_id,
        ]
    }));
    DISPATCHES.batch(vec![
        ("trace", repeat_dict(name, r.len())),
        ("uid", ints.next()),
        ("name", interned(r, strings, |d| d.name)?),
        ("name_full", interned(r, strings, |d| d.name_full)?),
        ("agent", interned(r, strings, |d| d.agent)?),
        ("gpu_index", ints.next()),
        ("queue_id", ints.next()),
        ("stream_id", ints.next()),
        ("kernel_id", ints.next()),
        ("dispatch_id", ints.next()),
        ("corr_id", ints.next()),
        ("thread_id", ints.next()),
        ("begin_ns", ints.next()),
        ("end_ns", ints.next()),
        ("delta_ns", ints.next()),
        ("grid_x", ints.next()),
        ("grid_y", ints.next()),
        ("grid_z", ints.next()),
        ("block_x", ints.next()),
        ("block_y", ints.next()),
        ("block_z", ints.next()),
        ("grid_size", ints.next()),
        ("workgroup_size", ints.next()),
        ("lds", ints.next()),
        ("scratch", ints.next()),
        ("vgpr", ints.next()),
        ("accum_vgpr", ints.next()),
        ("sgpr", ints.next()),
        ("device_id", ints.next()),
        ("begin_ps", ints.next()),
        ("end_ps", ints.next()),
        ("hlo_module", interned(r, strings, |d| d.hlo_module)?),
        ("hlo_op", interned(r, strings, |d| d.hlo_op)?),
        ("program_id", ints.next()),
        ("tf_op", interned(r, strings, |d| d.tf_op)?),
        ("name_scope", interned(r, strings, |d| d.name_scope)?),
        (
            "kernel_details",
            interned(r, strings, |d| d.kernel_details)?,
        ),
    ])
}

pub fn api_calls(
    native: &Native,
    strings: &Strings,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let r = &native.api_calls;
    let mut ints = Columns::from(int_columns(r, |a| {
        [
            Some(i64::from(a.uid)),
            a.thread_id,
            a.begin_ns,
            a.end_ns,
            a.delta_ns,
            a.corr_id,
            a.kind,
            a.operation,
            a.device_id,
            a.stream_id,
        ]
    }));
    API_CALLS.batch(vec![
        ("trace", repeat_dict(name, r.len())),
        ("uid", ints.next()),
        ("domain", interned(r, strings, |a| a.domain)?),
        ("name", interned(r, strings, |a| a.name)?),
        ("thread_id", ints.next()),
        ("begin_ns", ints.next()),
        ("end_ns", ints.next()),
        ("delta_ns", ints.next()),
        ("corr_id", ints.next()),
        ("kind", ints.next()),
        ("operation", ints.next()),
        ("device_id", ints.next()),
        ("agent", interned(r, strings, |a| a.agent)?),
        ("stream_id", ints.next()),
    ])
}

pub fn memory_copies(
    native: &Native,
    strings: &Strings,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let r = &native.memory_copies;
    MEMORY_COPIES.batch(vec![
        ("trace", repeat_dict(name, r.len())),
        ("uid", ints(r, |m| Some(i64::from(m.uid)))),
        ("name", interned(r, strings, |m| m.name)?),
        ("begin_ns", ints(r, |m| m.begin_ns)),
        ("end_ns", ints(r, |m| m.end_ns)),
        ("delta_ns", ints(r, |m| m.delta_ns)),
        ("bytes", ints(r, |m| m.bytes)),
        ("src_agent", interned(r, strings, |m| m.src_agent)?),
        ("dst_agent", interned(r, strings, |m| m.dst_agent)?),
        ("corr_id", ints(r, |m| m.corr_id)),
        ("stream_id", ints(r, |m| m.stream_id)),
        ("thread_id", ints(r, |m| m.thread_id)),
    ])
}

pub fn agents(native: &Native, name: &str) -> Result<RecordBatch, ArrowError> {
    let r = &native.agents;
    AGENTS.batch(vec![
        ("trace", repeat_dict(name, r.len())),
        ("handle", ints(r, |a| a.handle)),
        ("type", texts(r, |a| a.kind.as_deref())?),
        ("node_id", ints(r, |a| a.node_id)),
        ("logical_node_id", ints(r, |a| a.logical_node_id)),
        ("gpu_index", ints(r, |a| a.gpu_index)),
        ("name", texts(r, |a| a.name.as_deref())?),
        ("product_name", texts(r, |a| a.product_name.as_deref())?),
        ("cu_count", ints(r, |a| a.cu_count)),
        ("simd_count", ints(r, |a| a.simd_count)),
        ("wave_front_size", ints(r, |a| a.wave_front_size)),
        (
            "max_engine_clk_fcompute",
            ints(r, |a| a.max_engine_clk_fcompute),
        ),
        ("num_xcc", ints(r, |a| a.num_xcc)),
    ])
}

pub fn hlo_instructions(native: &Native, name: &str) -> Result<RecordBatch, ArrowError> {
    let r = &native.hlo_instructions;
    let lists = |f: fn(&crate::ingest::native::HloInstruction) -> &str| {
        utf8_list_from_json(r.iter().map(|h| Some(f(h))))
    };
    HLO_INSTRUCTIONS.batch(vec![
        ("trace", repeat_dict(name, r.len())),
        ("module", texts(r, |h| Some(h.module.as_str()))?),
        ("program_id", ints(r, |h| h.program_id)),
        ("computation", texts(r, |h| Some(h.computation.as_str()))?),
        ("is_entry", boolean(r.iter().map(|h| Some(h.is_entry)))),
        ("name", texts(r, |h| Some(h.name.as_str()))?),
        ("id", ints(r, |h| Some(h.id))),
        ("opcode", texts(r, |h| Some(h.opcode.as_str()))?),
        ("shape", texts(r, |h| Some(h.shape.as_str()))?),
        ("operands", lists(|h| h.operands.as_str())),
        ("operand_shapes", lists(|h| h.operand_shapes.as_str())),
        (
            "called_computations",
            lists(|h| h.called_computations.as_str()),
        ),
        (
            "custom_call_target",
            texts(r, |h| h.custom_call_target.as_deref())?,
        ),
        (
            "backend_config",
            super::columns::utf8(r.iter().map(|h| h.backend_config.as_deref())),
        ),
        ("fusion_kind", texts(r, |h| h.fusion_kind.as_deref())?),
        ("op_type", texts(r, |h| h.op_type.as_deref())?),
        ("op_name", texts(r, |h| h.op_name.as_deref())?),
        ("source_file", texts(r, |h| h.source_file.as_deref())?),
        ("source_line", ints(r, |h| h.source_line)),
        ("is_root", boolean(r.iter().map(|h| Some(h.is_root)))),
    ])
}

/// All five tables of one trace, in [`super::TABLES`] order.
pub fn build(
    native: &Native,
    strings: &Strings,
    name: &str,
) -> Result<Vec<(&'static str, RecordBatch)>, ArrowError> {
    Ok(vec![
        (DISPATCHES.name, dispatches(native, strings, name)?),
        (API_CALLS.name, api_calls(native, strings, name)?),
        (MEMORY_COPIES.name, memory_copies(native, strings, name)?),
        (AGENTS.name, agents(native, name)?),
        (HLO_INSTRUCTIONS.name, hlo_instructions(native, name)?),
    ])
}
