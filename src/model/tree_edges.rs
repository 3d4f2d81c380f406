//! `tree_edges`: the call tree as parent → child edges.
//!
//! The table is `events.parent_uid` and `events.parent_kind` seen as edges, so
//! it is not held: it is derived from `events` when a query reads it (2.9 M
//! rows, 99 MB on a 1 GB trace, which no report reads). See
//! `engine::derived_tables`.

use super::columns::{col, TableDoc};
use datafusion::arrow::compute::{filter, is_not_null};
use datafusion::arrow::record_batch::RecordBatchOptions;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "tree_edges",
    doc: "The call tree: python frame → cpu_op → runtime launch → GPU work, one row per event that has a parent (events.parent_uid, events.parent_kind), in child uid order. Each child has at most one parent.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("parent_uid", Int64, "uid of the enclosing / launching event."),
        col!("child_uid", Int64, "uid of the enclosed / launched event."),
        col!("kind", Utf8Dict, "host: nesting by time of cpu_ops and runtime calls on one thread; python: a python frame around a frame or a top-level host event; launch: a runtime/driver call and the GPU work it started."),
    ],
};

/// The events column each column of the table is read from.
const FROM_EVENTS: [(&str, &str); 5] = [
    ("trace", "trace"),
    (super::columns::RANK.name, super::columns::RANK.name),
    ("parent_uid", "parent_uid"),
    ("child_uid", "uid"),
    ("kind", "parent_kind"),
];

/// The table for one trace, from its `events` batch, with only the columns at
/// `projection` (indexes into [`DOC`]'s columns; None: all), in that order.
pub fn derive_columns(
    events: &RecordBatch,
    projection: Option<&[usize]>,
) -> Result<RecordBatch, ArrowError> {
    let schema = DOC.projected_schema(projection)?;
    let column = |name: &str| {
        events
            .column_by_name(name)
            .cloned()
            .ok_or_else(|| ArrowError::SchemaError(format!("events has no column {name}")))
    };
    let has_parent = is_not_null(column("parent_uid")?.as_ref())?;
    let mut columns = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let name = field.name();
        let source = FROM_EVENTS
            .iter()
            .find(|(table, _)| table == name)
            .map(|(_, source)| *source)
            .ok_or_else(|| ArrowError::SchemaError(format!("tree_edges has no column {name}")))?;
        columns.push(filter(column(source)?.as_ref(), &has_parent)?);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(count(events)));
    RecordBatch::try_new_with_options(schema, columns, &options)
}

/// The number of rows [`derive_columns`] gives, without building them.
pub fn count(events: &RecordBatch) -> usize {
    events
        .column_by_name("parent_uid")
        .map_or(0, |parents| parents.len() - parents.null_count())
}
