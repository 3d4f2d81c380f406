//! `threads`: the names of the processes and threads events ran on.

use std::collections::BTreeSet;

use super::columns::{col, repeat_dict, utf8, TableDoc};
use super::{process_label, process_name, thread_name};
use crate::ingest::RawTrace;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "threads",
    doc: "One row per (pid, tid) that events use, with the names the trace's metadata events give them ('Unknown' when it gives none).",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("pid", Utf8, "Process id as text (for GPU events: the device)."),
        col!("tid", Utf8, "Thread id as text (for GPU events: the stream)."),
        col!("process_name", Utf8, "process_name metadata, e.g. python3."),
        col!("process_label", Utf8, "process_labels metadata, e.g. CPU or GPU 0."),
        col!("thread_name", Utf8, "thread_name metadata, e.g. 'thread 19392 (python3)' or 'stream 7'."),
    ],
};

pub fn build(trace: &RawTrace, name: &str) -> Result<RecordBatch, ArrowError> {
    let mut seen = BTreeSet::new();
    let mut first_uid = Vec::new();
    for u in 0..trace.len() {
        let key = (trace.pid.get(u), trace.tid.get(u));
        if key.0.is_some() && seen.insert(key) {
            first_uid.push(u);
        }
    }
    let n = first_uid.len();
    DOC.batch(vec![
        ("trace", repeat_dict(name, n)),
        (
            "pid",
            utf8(first_uid.iter().map(|&u| trace.str(trace.pid.get(u)))),
        ),
        (
            "tid",
            utf8(first_uid.iter().map(|&u| trace.str(trace.tid.get(u)))),
        ),
        (
            "process_name",
            utf8(first_uid.iter().map(|&u| Some(process_name(trace, u)))),
        ),
        (
            "process_label",
            utf8(first_uid.iter().map(|&u| Some(process_label(trace, u)))),
        ),
        (
            "thread_name",
            utf8(first_uid.iter().map(|&u| Some(thread_name(trace, u)))),
        ),
    ])
}
