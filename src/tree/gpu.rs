//! Attaching GPU work to the runtime/driver call that launched it.

use super::{EdgeKind, Grouped, Links};
use crate::ingest::{Column, EventKind, FxMap, RawTrace};

/// What kind of work a GPU event is, for timelines and attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuClass {
    Compute,
    Communication,
    Memcpy,
    Memset,
}

impl GpuClass {
    pub fn as_str(self) -> &'static str {
        match self {
            GpuClass::Compute => "compute",
            GpuClass::Communication => "communication",
            GpuClass::Memcpy => "memcpy",
            GpuClass::Memset => "memset",
        }
    }

    /// Classifies a GPU event by category and name (spec §4.2).
    ///
    /// ROCm 7.1 issues copies as kernels named `MEMORY_COPY_*` or
    /// `__amd_rocclr_copyBuffer*`; those are memcpy. Collective kernels are found by
    /// name (`nccl`, `rccl`, `cross_device_reduce`, any case).
    pub fn of(kind: EventKind, name: &str) -> Option<GpuClass> {
        match kind {
            EventKind::Memcpy => Some(GpuClass::Memcpy),
            EventKind::Kernel if is_rocm_copy_kernel(name) => Some(GpuClass::Memcpy),
            EventKind::Kernel if is_rocm_fill_kernel(name) => Some(GpuClass::Compute),
            EventKind::Kernel | EventKind::Memset if is_collective(name) => {
                Some(GpuClass::Communication)
            }
            EventKind::Kernel => Some(GpuClass::Compute),
            EventKind::Memset => Some(GpuClass::Memset),
            _ => None,
        }
    }
}

/// Names of collective-communication kernels (NCCL, RCCL, vLLM custom all-reduce).
pub fn is_collective(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("nccl") || lower.contains("rccl") || lower.contains("cross_device_reduce")
}

fn strip_kd(name: &str) -> &str {
    name.strip_suffix(".kd").unwrap_or(name)
}

fn is_rocm_copy_kernel(name: &str) -> bool {
    let n = strip_kd(name);
    matches!(
        n,
        "MEMORY_COPY_HOST_TO_DEVICE"
            | "MEMORY_COPY_DEVICE_TO_HOST"
            | "MEMORY_COPY_DEVICE_TO_DEVICE"
    ) || n
        .strip_prefix("__amd_rocclr_copyBuffer")
        .is_some_and(|rest| {
            let rest = rest.strip_prefix("Rect").unwrap_or(rest);
            rest.is_empty() || rest == "Aligned"
        })
}

fn is_rocm_fill_kernel(name: &str) -> bool {
    matches!(
        strip_kd(name),
        "__amd_rocclr_fillBuffer" | "__amd_rocclr_fillBufferAligned"
    )
}

/// How a GPU event was tied to its launching call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkedBy {
    /// By a CPU→GPU flow (`ac2g`, or the older `async_cpu_to_gpu`) whose end lands
    /// on this event.
    Flow,
    /// A graph launch claims every GPU event carrying its correlation id.
    Graph,
    /// By the correlation id alone: the trace has no flow for it. The reference
    /// tool leaves these unlinked.
    Correlation,
}

impl LinkedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkedBy::Flow => "flow",
            LinkedBy::Graph => "graph",
            LinkedBy::Correlation => "correlation",
        }
    }
}

/// Which argument ties launches to GPU work: `correlation`, unless the first launch
/// call in the trace lacks it, in which case old traces used `External id`.
fn link_values(trace: &RawTrace) -> &Column<i64> {
    let first_launch = (0..trace.len()).find(|&u| {
        trace.kind[u].is_launch_api() && trace.name_of(u).to_ascii_lowercase().contains("launch")
    });
    match first_launch {
        Some(u) if trace.correlation.get(u).is_none() => &trace.external_id,
        _ => &trace.correlation,
    }
}

fn is_graph_launch(name: &str) -> bool {
    matches!(name, "cudaGraphLaunch" | "hipGraphLaunch")
}

/// One GPU event, and the runtime/driver call it links to.
pub struct GpuLaunch {
    gpu: u32,
    class: Option<GpuClass>,
    /// The launching call and what confirms the link; None if unlinked.
    launch: Option<(u32, LinkedBy)>,
}

/// Finds each GPU event's launch: the runtime/driver call with the same link
/// value (the last such call in file order), and what confirms the link. Reads
/// the trace alone, so it runs on its own thread while host events nest.
pub fn find_launches(trace: &RawTrace) -> Vec<GpuLaunch> {
    let key = link_values(trace);
    let mut launch_by_key: FxMap<i64, u32> = FxMap::default();
    for u in 0..trace.len() {
        if trace.kind[u].is_launch_api() {
            if let Some(k) = key.get(u) {
                launch_by_key.insert(k, u as u32);
            }
        }
    }
    let flow_targets = flow_targets(trace, key);
    let mut launches = Vec::new();
    for g in 0..trace.len() {
        let kind = trace.kind[g];
        if !kind.is_gpu() {
            continue;
        }
        let class = GpuClass::of(kind, trace.name_of(g));
        let launch = key.get(g).and_then(|k| {
            let launch = launch_by_key.get(&k).copied()?;
            let by = if is_graph_launch(trace.name_of(launch as usize)) {
                LinkedBy::Graph
            } else if flow_targets.get(&k) == Some(&(g as u32)) {
                LinkedBy::Flow
            } else {
                LinkedBy::Correlation
            };
            Some((launch, by))
        });
        let gpu = g as u32;
        launches.push(GpuLaunch { gpu, class, launch });
    }
    launches
}

/// Attaches every GPU event to its launch ([`find_launches`]), once the host
/// events are nested: each event is listed under the launch and every event
/// above it.
pub fn attach_gpu_events(launches: &[GpuLaunch], links: &mut Links) {
    // (event above, GPU event) for every GPU event and each event above it.
    let mut below = Vec::new();
    for &GpuLaunch { gpu, class, launch } in launches {
        links.gpu_class[gpu as usize] = class;
        let Some((launch, by)) = launch else {
            continue;
        };
        links.linked_by[gpu as usize] = Some(by);
        links.set_parent(gpu, launch, EdgeKind::Launch);
        add_to_ancestors(links, launch, gpu, &mut below);
    }
    links.subtree_gpu = Grouped::from_pairs(links.parent.len(), &below);
}

/// For each flow id with both ends, the event the reference tool would link: the
/// last event on the end's (pid, tid) whose link value equals the id.
///
/// Older PyTorch versions name these flows `async_cpu_to_gpu` instead of `ac2g`; both
/// confirm a link (the reference indexes `ac2g` alone and so leaves such traces
/// unlinked, see DIFFERENCES.md).
fn flow_targets(trace: &RawTrace, key: &Column<i64>) -> FxMap<i64, u32> {
    let mut starts = FxMap::default();
    let mut ends = FxMap::default();
    for u in 0..trace.len() {
        match (trace.kind[u], trace.flow_id.get(u)) {
            (EventKind::FlowStart, Some(id)) => {
                starts.insert(id, u);
            }
            (EventKind::FlowEnd, Some(id)) => {
                ends.insert(id, u);
            }
            _ => {}
        }
    }
    // Flow ids with both ends, and the end's place; the last event there whose
    // link value is the id wins (file order).
    let both: FxMap<i64, usize> = ends
        .into_iter()
        .filter(|(id, _)| starts.contains_key(id))
        .collect();
    let mut targets = FxMap::default();
    for u in 0..trace.len() {
        let flow = matches!(trace.kind[u], EventKind::FlowStart | EventKind::FlowEnd);
        let Some(k) = key.get(u).filter(|_| !flow && trace.has_args(u)) else {
            continue;
        };
        if let Some(&end) = both.get(&k) {
            let here = (trace.pid.get(u), trace.tid.get(u));
            if here == (trace.pid.get(end), trace.tid.get(end)) {
                targets.insert(k, u as u32);
            }
        }
    }
    targets
}

/// Records `gpu` below `launch` and every ancestor above it.
fn add_to_ancestors(links: &Links, launch: u32, gpu: u32, below: &mut Vec<(u32, u32)>) {
    let mut at = Some(launch);
    while let Some(uid) = at {
        below.push((uid, gpu));
        at = links.parent[uid as usize].map(|(p, _)| p);
    }
}
