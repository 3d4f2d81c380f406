//! Attributing GPU work to the cpu_op that launched it.

use super::{GpuClass, Links};
use crate::ingest::{EventKind, RawTrace};

/// The cpu_op above a runtime call, skipping python frames and cpu_ops named
/// `execute` (a pass-through wrapper); None if the walk meets anything else first.
pub fn launching_op(trace: &RawTrace, links: &Links, launch: u32) -> Option<u32> {
    let mut at = links.parent[launch as usize].map(|(p, _)| p);
    while let Some(uid) = at {
        match trace.kind[uid as usize] {
            EventKind::CpuOp if trace.name_of(uid as usize) != "execute" => return Some(uid),
            EventKind::CpuOp | EventKind::PythonFunction => {}
            _ => return None,
        }
        at = links.parent[uid as usize].map(|(p, _)| p);
    }
    None
}

/// Sets `launcher_op` for every linked GPU event, and fills `direct_gpu`: the
/// launcher is the cpu_op found above, or the runtime call itself when there is none.
/// Collectives are left out of `direct_gpu`, as in the reference's op tables.
pub fn attribute_gpu_events(trace: &RawTrace, links: &mut Links) {
    for g in 0..trace.len() {
        let Some((launch, _)) = links.parent[g].filter(|_| trace.kind[g].is_gpu()) else {
            continue;
        };
        let op = launching_op(trace, links, launch);
        links.launcher_op[g] = op;
        if links.gpu_class[g] != Some(GpuClass::Communication) {
            let launcher = op.unwrap_or(launch);
            links.direct_gpu.entry(launcher).or_default().push(g as u32);
        }
    }
}
