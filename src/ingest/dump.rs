//! A trace's rows as text, for the tests and fuzz targets that compare two
//! ways of reading the same file.

use super::RawTrace;

/// What a reader builds, as text: every event row, every native row, the
/// process and thread names and the metadata.
pub fn everything(trace: &RawTrace) -> String {
    let n = &trace.native;
    let processes: std::collections::BTreeMap<_, _> = trace.process_names.iter().collect();
    let threads: std::collections::BTreeMap<_, _> = trace.thread_names.iter().collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        trace.digest(),
        n.dispatches,
        n.memory_copies,
        n.api_calls,
        n.agents,
        n.hlo_instructions,
        (processes, threads, &trace.metadata)
    )
}

/// `a == b`, saying where they first differ rather than printing both.
#[cfg(test)]
pub fn assert_same(a: &str, b: &str) {
    if let Some(at) = (a.bytes().zip(b.bytes())).position(|(x, y)| x != y) {
        let from = at.saturating_sub(80);
        let around = |s: &str| {
            s.get(from..(at + 80).min(s.len()))
                .unwrap_or("")
                .to_string()
        };
        panic!("differ at byte {at}: {:?} vs {:?}", around(a), around(b));
    }
    assert_eq!(a.len(), b.len());
}
