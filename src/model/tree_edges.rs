//! `tree_edges`: the call tree as parent → child edges.

use super::columns::{col, int64, repeat_dict, utf8, TableDoc};
use crate::tree::Links;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "tree_edges",
    doc: "The call tree: python frame → cpu_op → runtime launch → GPU work. Each child has at most one parent.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        col!("parent_uid", Int64, "uid of the enclosing / launching event."),
        col!("child_uid", Int64, "uid of the enclosed / launched event."),
        col!("kind", Utf8, "host: nesting by time of cpu_ops and runtime calls on one thread; python: a python frame around a frame or a top-level host event; launch: a runtime/driver call and the GPU work it started."),
    ],
};

pub fn build(links: &Links, name: &str) -> Result<RecordBatch, ArrowError> {
    let e = &links.edges;
    DOC.batch(vec![
        ("trace", repeat_dict(name, e.len())),
        (
            "parent_uid",
            int64(e.iter().map(|(p, _, _)| Some(*p as i64))),
        ),
        (
            "child_uid",
            int64(e.iter().map(|(_, c, _)| Some(*c as i64))),
        ),
        ("kind", utf8(e.iter().map(|(_, _, k)| Some(k.as_str())))),
    ])
}
