//! `tree_edges`: the call tree as parent → child edges.

use super::columns::{col, dict, int64, repeat_dict, TableDoc};
use crate::tree::EdgeKind;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "tree_edges",
    doc: "The call tree: python frame → cpu_op → runtime launch → GPU work. Each child has at most one parent.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("parent_uid", Int64, "uid of the enclosing / launching event."),
        col!("child_uid", Int64, "uid of the enclosed / launched event."),
        col!("kind", Utf8Dict, "host: nesting by time of cpu_ops and runtime calls on one thread; python: a python frame around a frame or a top-level host event; launch: a runtime/driver call and the GPU work it started."),
    ],
};

/// Builds the table from the call tree's edges.
pub fn build(e: &[(u32, u32, EdgeKind)], name: &str) -> Result<RecordBatch, ArrowError> {
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
        ("kind", dict(e.iter().map(|(_, _, k)| Some(k.as_str())))?),
    ])
}
