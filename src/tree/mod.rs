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
    pub subtree_gpu: Grouped,
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
        self.subtree_gpu.get(uid)
    }
}

/// Lists of uids keyed by uid, stored flat (compressed rows): every GPU event
/// is listed under each event above it, some ten lists per kernel, and one
/// vector per key cost an allocation each (a second of the link on a 1 GB
/// trace).
#[derive(Debug, Default)]
pub struct Grouped {
    /// The list of key `k` is `values[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    values: Vec<u32>,
}

impl Grouped {
    /// Groups `(key, value)` pairs by key, keys below `keys`; each list keeps
    /// the pairs' order.
    pub fn from_pairs(keys: usize, pairs: &[(u32, u32)]) -> Grouped {
        let mut starts = vec![0u32; keys + 1];
        for &(key, _) in pairs {
            starts[key as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut values = vec![0u32; pairs.len()];
        for &(key, value) in pairs {
            let at = &mut next[key as usize];
            values[*at as usize] = value;
            *at += 1;
        }
        Grouped { starts, values }
    }

    /// The list of `key`; empty for a key without one.
    pub fn get(&self, key: u32) -> &[u32] {
        let key = key as usize;
        match (self.starts.get(key), self.starts.get(key + 1)) {
            (Some(&from), Some(&to)) => &self.values[from as usize..to as usize],
            _ => &[],
        }
    }
}

/// Builds the call tree of `trace`.
pub fn link(trace: &RawTrace) -> Links {
    let n = trace.len();
    let mut links = Links {
        parent: vec![None; n],
        dropped: vec![false; n],
        cpu_root: vec![false; n],
        gpu_class: vec![None; n],
        linked_by: vec![None; n],
        launcher_op: vec![None; n],
        direct_gpu: FxMap::default(),
        subtree_gpu: Grouped::default(),
        forward_of: FxMap::default(),
    };
    let step = |name: &str, link: fn(&RawTrace, &mut Links), links: &mut Links| {
        crate::timing::timed(&format!("    link: {name}"), || link(trace, links))
    };
    // Finding each GPU event's launch reads the trace alone: it runs beside
    // the host nesting, which the attaching needs.
    let launches = std::thread::scope(|scope| {
        let launches = scope.spawn(|| {
            crate::timing::timed("    link: find launches (second thread)", || {
                gpu::find_launches(trace)
            })
        });
        step("nest host events", host::nest_host_events, &mut links);
        step("nest python frames", host::nest_python_frames, &mut links);
        (launches.join()).unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    crate::timing::timed("    link: attach gpu events", || {
        gpu::attach_gpu_events(&launches, &mut links)
    });
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
    }
}

#[cfg(test)]
mod tests {
    use super::Grouped;

    #[test]
    fn grouped_lists_keep_the_pairs_order_per_key() {
        let pairs = [(3, 10), (0, 11), (3, 12), (1, 13), (3, 14), (0, 15)];
        let grouped = Grouped::from_pairs(5, &pairs);
        assert_eq!(grouped.get(0), [11, 15]);
        assert_eq!(grouped.get(1), [13]);
        assert_eq!(grouped.get(2), [] as [u32; 0]);
        assert_eq!(grouped.get(3), [10, 12, 14]);
        assert_eq!(grouped.get(4), [] as [u32; 0]);
        // Past the keys, and an empty grouping: empty lists.
        assert_eq!(grouped.get(5), [] as [u32; 0]);
        assert_eq!(Grouped::default().get(0), [] as [u32; 0]);
    }
}
