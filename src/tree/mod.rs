//! Linking events into a call tree: python → cpu_op → runtime launch → GPU work.
//!
//! The passes follow ../shared/spec (TraceLens's Trace2Tree) so that everything
//! built on the tree agrees with the reference tool:
//! 1. `host`: cpu_ops and runtime/driver calls nest by time on their thread;
//!    python frames then nest around the host roots.
//! 2. `gpu`: GPU events attach to the runtime call with their correlation id.
//! 3. `launcher`: each GPU event is attributed to the cpu_op that launched it.
//! 4. `autograd`: backward wrappers are tied to their forward op.

mod autograd;
mod gpu;
mod host;
mod launcher;

use crate::ingest::{FxMap, RawTrace};

pub use gpu::{GpuClass, LinkedBy};

/// Why one event is the parent of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// Host nesting on one thread: cpu_op → cpu_op, cpu_op → runtime call.
    Host,
    /// Python frame → python frame, or python frame → top-level host event.
    Python,
    /// Runtime/driver call → the GPU work it launched.
    Launch,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Host => "host",
            EdgeKind::Python => "python",
            EdgeKind::Launch => "launch",
        }
    }
}

/// The call tree of one trace. Vectors are indexed by uid.
pub struct Links {
    /// Parent of each event and the kind of that edge.
    pub parent: Vec<Option<(u32, EdgeKind)>>,
    /// Edges in the order they were made.
    pub edges: Vec<(u32, u32, EdgeKind)>,
    /// Host events left out of the tree because they overlap their neighbour by
    /// 1 µs or more (the reference tool's "bleed" rule).
    pub dropped: Vec<bool>,
    /// cpu_ops with no cpu_op above them on their thread.
    pub cpu_root: Vec<bool>,
    /// Class of each GPU event (None for host events).
    pub gpu_class: Vec<Option<GpuClass>>,
    /// How each GPU event was tied to its launch (None if unlinked).
    pub linked_by: Vec<Option<LinkedBy>>,
    /// The cpu_op each GPU event is attributed to.
    pub launcher_op: Vec<Option<u32>>,
    /// For each launcher (a cpu_op, or a runtime call with no cpu_op above it): the
    /// non-communication GPU events it launched directly, in file order.
    pub direct_gpu: FxMap<u32, Vec<u32>>,
    /// For each host event: all GPU events below it, in attach order.
    pub subtree_gpu: FxMap<u32, Vec<u32>>,
    /// Backward wrapper (`autograd::engine::evaluate_function: ...`) → forward op.
    pub forward_of: FxMap<u32, u32>,
}

impl Links {
    /// The GPU events `uid` launched directly, excluding collectives.
    pub fn direct(&self, uid: u32) -> &[u32] {
        self.direct_gpu.get(&uid).map_or(&[], Vec::as_slice)
    }

    /// All GPU events below `uid`.
    pub fn subtree(&self, uid: u32) -> &[u32] {
        self.subtree_gpu.get(&uid).map_or(&[], Vec::as_slice)
    }

    /// The parents and the edges, the rest dropped: what the last tables built
    /// need of the links.
    #[allow(clippy::type_complexity)]
    pub fn into_parents_and_edges(
        self,
    ) -> (Vec<Option<(u32, EdgeKind)>>, Vec<(u32, u32, EdgeKind)>) {
        (self.parent, self.edges)
    }
}

/// Builds the call tree of `trace`.
pub fn link(trace: &RawTrace) -> Links {
    let n = trace.len();
    let mut links = Links {
        parent: vec![None; n],
        edges: Vec::new(),
        dropped: vec![false; n],
        cpu_root: vec![false; n],
        gpu_class: vec![None; n],
        linked_by: vec![None; n],
        launcher_op: vec![None; n],
        direct_gpu: FxMap::default(),
        subtree_gpu: FxMap::default(),
        forward_of: FxMap::default(),
    };
    let step = |name: &str, link: fn(&RawTrace, &mut Links), links: &mut Links| {
        crate::timing::timed(&format!("    link: {name}"), || link(trace, links))
    };
    step("nest host events", host::nest_host_events, &mut links);
    step("nest python frames", host::nest_python_frames, &mut links);
    step("attach gpu events", gpu::attach_gpu_events, &mut links);
    step(
        "attribute gpu events",
        launcher::attribute_gpu_events,
        &mut links,
    );
    step(
        "backward to forward",
        autograd::link_backward_to_forward,
        &mut links,
    );
    links
}

impl Links {
    fn set_parent(&mut self, child: u32, parent: u32, kind: EdgeKind) {
        self.parent[child as usize] = Some((parent, kind));
        self.edges.push((parent, child, kind));
    }
}
