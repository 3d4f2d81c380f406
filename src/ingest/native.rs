//! What a non-Kineto format records beyond the Kineto-shaped events: exact
//! nanosecond times, agents, queues, API calls and memory copies as their
//! profiler wrote them.
//!
//! Every reader turns its format into the same [`RawTrace`] rows (so the call
//! tree, `events`, `kernels` and the reports built on them work unchanged) and
//! fills these rows beside them; `model` makes them the `kernel_dispatches`,
//! `api_calls`, `memory_copies` and `agents` tables. Values are kept as written
//! (`None` when the format does not write them): the reports that reproduce a
//! tool's parsing rules (TraceLens's two time extractors, say) are SQL over
//! these columns, not Rust.
//!
//! [`RawTrace`]: super::RawTrace

/// The input format a trace was read from (`trace_meta.source_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceFormat {
    /// PyTorch profiler (Kineto) JSON.
    #[default]
    Kineto,
    /// rocprofv3 `--output-format json` (`*_results.json`).
    Rocprofv3,
    /// Perfetto-style JSON: a rocprofv3 `.pftrace` converted by traceconv, or
    /// any Chrome-trace JSON whose slices carry rocprofv3's annotations.
    Pftrace,
    /// JAX's profiler output: an XPlane protobuf (`*.xplane.pb`).
    Jax,
}

impl SourceFormat {
    pub const ALL: [SourceFormat; 4] = [
        SourceFormat::Kineto,
        SourceFormat::Rocprofv3,
        SourceFormat::Pftrace,
        SourceFormat::Jax,
    ];

    /// The name used in `trace_meta`, `--format-hint` and `-- formats:` headers.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::Kineto => "kineto",
            SourceFormat::Rocprofv3 => "rocprofv3",
            SourceFormat::Pftrace => "pftrace",
            SourceFormat::Jax => "jax",
        }
    }

    pub fn parse(name: &str) -> Option<SourceFormat> {
        SourceFormat::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }
}

/// A string held by the trace's interned strings ([`RawTrace::strings`],
/// [`RawTrace::intern`]), None when the trace does not write it.
///
/// Native rows repeat a handful of names tens of thousands of times (every
/// dispatch of a kernel carries its full demangled name, often a kilobyte):
/// as ids they cost no allocation per row and become dictionary columns
/// without hashing each row again.
///
/// [`RawTrace::strings`]: super::RawTrace::strings
/// [`RawTrace::intern`]: super::RawTrace::intern
pub type Text = Option<u32>;

/// One GPU kernel dispatch (a `kernels` row of the same `uid`).
#[derive(Debug, Clone, Default)]
pub struct Dispatch {
    pub uid: u32,
    /// The name the events use (rocprofv3 JSON: TraceLens's choice, the
    /// truncated name first).
    pub name: Text,
    /// The full name: demangled with its template arguments (rocprofv3 JSON's
    /// formatted name, pftrace's slice name).
    pub name_full: Text,
    /// The agent as the trace writes it: rocprofv3 JSON's handle as text,
    /// pftrace's `args.agent` string ("Agent-2").
    pub agent: Text,
    /// The GPU ordinal where the trace says it (rocprofv3 JSON `gpu_index`).
    pub gpu_index: Option<i64>,
    pub queue_id: Option<i64>,
    pub stream_id: Option<i64>,
    pub kernel_id: Option<i64>,
    pub dispatch_id: Option<i64>,
    pub corr_id: Option<i64>,
    /// The OS thread that enqueued it.
    pub thread_id: Option<i64>,
    pub begin_ns: Option<i64>,
    pub end_ns: Option<i64>,
    /// Written only by pftrace (`delta_ns`).
    pub delta_ns: Option<i64>,
    /// Grid and work-group sizes in work-items, per axis (rocprofv3 JSON).
    pub grid: [Option<i64>; 3],
    pub block: [Option<i64>; 3],
    /// Products x·y·z (what pftrace writes).
    pub grid_size: Option<i64>,
    pub workgroup_size: Option<i64>,
    pub lds: Option<i64>,
    pub scratch: Option<i64>,
    pub vgpr: Option<i64>,
    pub accum_vgpr: Option<i64>,
    pub sgpr: Option<i64>,
    /// An explicit device id in the args (`device_id`, `deviceId`, ...).
    pub device_id: Option<i64>,
    /// Exact start and end in picoseconds (JAX XPlane).
    pub begin_ps: Option<i64>,
    pub end_ps: Option<i64>,
    /// JAX: the XLA module, its program id and the HLO instruction the kernel
    /// runs (`hlo_module`, `program_id`, `hlo_op` stats): the key into
    /// `hlo_instructions`.
    pub hlo_module: Text,
    pub hlo_op: Text,
    pub program_id: Option<i64>,
    /// JAX: the `tf_op` stat and the name scope (`name` stat).
    pub tf_op: Text,
    pub name_scope: Text,
    /// JAX: the `kernel_details` stat as written (`grid:… block:… group_mem:…`).
    pub kernel_details: Text,
}

/// One host API call (HIP, HSA, RCCL, roctx marker, CUDA runtime).
#[derive(Debug, Clone, Default)]
pub struct ApiCall {
    pub uid: u32,
    /// hip_api, hsa_api, rccl_api, marker_api, ...
    pub domain: Text,
    pub name: Text,
    /// The real OS thread (`args.tid`, rocprofv3 JSON `thread_id`).
    pub thread_id: Option<i64>,
    pub begin_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub delta_ns: Option<i64>,
    pub corr_id: Option<i64>,
    pub kind: Option<i64>,
    pub operation: Option<i64>,
    pub device_id: Option<i64>,
    pub agent: Text,
    /// `args.stream_ID` (rocprofv3 never writes it).
    pub stream_id: Option<i64>,
}

/// One memory copy done by a copy engine.
#[derive(Debug, Clone, Default)]
pub struct MemoryCopy {
    pub uid: u32,
    /// MEMORY_COPY_HOST_TO_DEVICE, ...
    pub name: Text,
    pub begin_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub delta_ns: Option<i64>,
    pub bytes: Option<i64>,
    pub src_agent: Text,
    pub dst_agent: Text,
    pub corr_id: Option<i64>,
    pub stream_id: Option<i64>,
    pub thread_id: Option<i64>,
}

/// One HSA agent (a CPU or a GPU) the profiler saw.
#[derive(Debug, Clone, Default)]
pub struct Agent {
    pub handle: Option<i64>,
    /// CPU or GPU.
    pub kind: Option<String>,
    pub node_id: Option<i64>,
    pub logical_node_id: Option<i64>,
    pub gpu_index: Option<i64>,
    pub name: Option<String>,
    pub product_name: Option<String>,
    pub cu_count: Option<i64>,
    pub simd_count: Option<i64>,
    pub wave_front_size: Option<i64>,
    pub max_engine_clk_fcompute: Option<i64>,
    pub num_xcc: Option<i64>,
}

/// One instruction of a compiled XLA program (JAX XPlane's HLO protos).
#[derive(Debug, Clone, Default)]
pub struct HloInstruction {
    pub module: String,
    /// The `N` of the metadata plane's `<module>(N)`.
    pub program_id: Option<i64>,
    pub computation: String,
    /// Whether the computation is the module's entry computation.
    pub is_entry: bool,
    /// Without HLO text's `%`.
    pub name: String,
    pub id: i64,
    pub opcode: String,
    /// HLO text of the output shape (`bf16[1,16,32]{2,1,0}`, `(a,b)`, `f32[]`).
    pub shape: String,
    /// JSON arrays of text: operand names, their shape texts, and the names
    /// of the called computations.
    pub operands: String,
    pub operand_shapes: String,
    pub called_computations: String,
    pub custom_call_target: Option<String>,
    pub backend_config: Option<String>,
    pub fusion_kind: Option<String>,
    pub op_type: Option<String>,
    pub op_name: Option<String>,
    pub source_file: Option<String>,
    pub source_line: Option<i64>,
    pub is_root: bool,
}

/// Everything of [`super::RawTrace`] that only non-Kineto formats have.
#[derive(Debug, Default)]
pub struct Native {
    pub format: SourceFormat,
    pub dispatches: Vec<Dispatch>,
    pub api_calls: Vec<ApiCall>,
    pub memory_copies: Vec<MemoryCopy>,
    pub agents: Vec<Agent>,
    pub hlo_instructions: Vec<HloInstruction>,
}
