//! Host nesting: which cpu_op / runtime call / python frame encloses which.

use super::{EdgeKind, Links};
use crate::ingest::{EventKind, FxMap, RawTrace};

/// A partial overlap shorter than this is measurement noise: the earlier event is
/// treated as finished. Longer overlaps make the later event unplaceable.
const BLEED_TOLERANCE_US: f64 = 1.0;

type Thread = (Option<u32>, Option<u32>);

/// Events in stable `ts` order (ties keep file order), as the reference sorts them.
fn by_start(trace: &RawTrace, keep: impl Fn(usize) -> bool) -> Vec<u32> {
    let mut uids: Vec<u32> = (0..trace.len())
        .filter(|&u| keep(u))
        .map(|u| u as u32)
        .collect();
    uids.sort_by(|&a, &b| ts(trace, a).total_cmp(&ts(trace, b)));
    uids
}

fn ts(trace: &RawTrace, uid: u32) -> f64 {
    trace.ts.get(uid as usize).unwrap_or(f64::NEG_INFINITY)
}

fn t_end(trace: &RawTrace, uid: u32) -> f64 {
    trace.t_end(uid as usize).unwrap_or(f64::NEG_INFINITY)
}

fn thread(trace: &RawTrace, uid: u32) -> Thread {
    (trace.pid.get(uid as usize), trace.tid.get(uid as usize))
}

#[derive(Default)]
struct Stack {
    open: Vec<u32>,
    /// How many cpu_ops are on `open`: a cpu_op pushed when this is 0 is a root.
    cpu_ops: usize,
}

impl Stack {
    fn pop(&mut self, trace: &RawTrace) {
        if let Some(top) = self.open.pop() {
            if trace.kind[top as usize] == EventKind::CpuOp {
                self.cpu_ops -= 1;
            }
        }
    }
}

/// Nests cpu_ops and runtime/driver calls by time on each (pid, tid).
///
/// An event starting at or after the top's end closes it (touching events are
/// siblings). An event that outlasts the top by overlapping it for less than 1 µs
/// closes the top once; a longer overlap leaves the event out of the tree.
pub fn nest_host_events(trace: &RawTrace, links: &mut Links) {
    let mut stacks: FxMap<Thread, Stack> = FxMap::default();
    for uid in by_start(trace, |u| trace.kind[u].is_host()) {
        let stack = stacks.entry(thread(trace, uid)).or_default();
        let (start, end) = (ts(trace, uid), t_end(trace, uid));
        while stack
            .open
            .last()
            .is_some_and(|&top| start >= t_end(trace, top))
        {
            stack.pop(trace);
        }
        if let Some(&top) = stack.open.last() {
            if end > t_end(trace, top) {
                let overlap = t_end(trace, top) - start;
                if overlap < BLEED_TOLERANCE_US && stack.open.len() >= 2 {
                    stack.pop(trace);
                } else {
                    links.dropped[uid as usize] = true;
                    continue;
                }
            }
        }
        if let Some(&top) = stack.open.last() {
            links.set_parent(uid, top, EdgeKind::Host);
        }
        if trace.kind[uid as usize] == EventKind::CpuOp {
            links.cpu_root[uid as usize] = stack.cpu_ops == 0;
            stack.cpu_ops += 1;
        }
        stack.open.push(uid);
    }
}

/// Nests python frames by time on each thread, and hangs every host event that has
/// no host parent under the innermost python frame around it.
///
/// This runs after host nesting and never changes it, so the cpu_op tree is the
/// same whether or not a trace recorded python frames. Events the host pass dropped
/// (bleed rule) stay out of the tree here too: spec §2.3 gives them no parent.
pub fn nest_python_frames(trace: &RawTrace, links: &mut Links) {
    let is_python = |u: usize| trace.kind[u] == EventKind::PythonFunction;
    let is_top_host =
        |u: usize| trace.kind[u].is_host() && links.parent[u].is_none() && !links.dropped[u];
    let mut order = by_start(trace, |u| is_python(u) || is_top_host(u));
    if !order.iter().any(|&u| is_python(u as usize)) {
        return;
    }
    // At equal start, a frame encloses the host event and the longer frame the shorter.
    order.sort_by(|&a, &b| {
        ts(trace, a)
            .total_cmp(&ts(trace, b))
            .then(is_python(b as usize).cmp(&is_python(a as usize)))
            .then(t_end(trace, b).total_cmp(&t_end(trace, a)))
    });
    let mut stacks: FxMap<Thread, Vec<u32>> = FxMap::default();
    for uid in order {
        let stack = stacks.entry(thread(trace, uid)).or_default();
        let start = ts(trace, uid);
        while stack.last().is_some_and(|&top| start >= t_end(trace, top)) {
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            links.set_parent(uid, top, EdgeKind::Python);
        }
        if is_python(uid as usize) {
            stack.push(uid);
        }
    }
}
