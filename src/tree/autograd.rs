//! Tying backward wrappers to the forward op they differentiate.

use super::Links;
use crate::ingest::{FxMap, RawTrace};

const BACKWARD_PREFIX: &str = "autograd::engine::evaluate_function:";

/// For each sequence number: the first event named `autograd::engine::
/// evaluate_function: ...` is the backward wrapper; among the events with that
/// number on other threads, the one that starts last is its forward op.
pub fn link_backward_to_forward(trace: &RawTrace, links: &mut Links) {
    let mut by_seq: FxMap<i64, Vec<usize>> = FxMap::default();
    for u in 0..trace.len() {
        if let Some(seq) = trace.seq_num.get(u) {
            by_seq.entry(seq).or_default().push(u);
        }
    }
    for uids in by_seq.values() {
        let Some(&bwd) = uids
            .iter()
            .find(|&&u| trace.name_of(u).starts_with(BACKWARD_PREFIX))
        else {
            continue;
        };
        let bwd_thread = (trace.pid.get(bwd), trace.tid.get(bwd));
        let mut forward: Option<usize> = None;
        for &u in uids {
            if u == bwd || (trace.pid.get(u), trace.tid.get(u)) == bwd_thread {
                continue;
            }
            let later = forward.is_none_or(|f| trace.ts.get(u) > trace.ts.get(f));
            if later {
                forward = Some(u);
            }
        }
        if let Some(f) = forward {
            links.forward_of.insert(bwd as u32, f as u32);
        }
    }
}
