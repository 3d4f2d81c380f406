//! Drill-down table functions: "where does this event come from" in one query.
//!
//! | function | returns |
//! |---|---|
//! | `ancestors(uid [, trace])` | the chain of parents up to the root, nearest first |
//! | `descendants(uid [, max_depth] [, trace])` | the subtree below `uid`, depth first |
//! | `call_stack(uid [, trace])` | root → … → `uid`, one row per level, with `depth` |
//! | `kernels_of(uid [, trace])` | the `kernels` rows of every GPU event in the subtree |
//!
//! They walk `tree_edges` (every edge kind: python, host, launch), so a kernel's
//! ancestors go launch → cpu_op → … → python root. Example:
//!
//! ```sql
//! SELECT repeat('  ', depth) || name AS frame, cat, dur
//! FROM call_stack((SELECT uid FROM kernels ORDER BY dur DESC LIMIT 1));
//! ```
//!
//! Contract on the arguments: `uid` is an integer or a constant expression, a
//! scalar subquery included; it cannot refer to a column of an outer query (no
//! lateral calls). A NULL `uid` (a subquery that found nothing) gives no rows; a
//! `uid` that is not an event of the trace is an error. With several traces loaded
//! uids repeat, so the trace is named by a text argument (`ancestors(12, 'bert')`);
//! with one trace loaded it may be left out.
//!
//! The arguments are evaluated when the query runs, not when it is planned: the
//! function returns a table whose scan evaluates them (a scalar subquery needs the
//! session) and then walks an index of the tree built once per trace, on first use.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use async_trait::async_trait;
use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, StringArray,
};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{plan_datafusion_err, plan_err, Result, ScalarValue};
use datafusion::datasource::{MemTable, TableType};
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;

use crate::model::call_tree::{f64_column, i64_column, utf8_column, CallTree};
use crate::model::{col, table_doc, TableDoc};

/// `ancestors(uid [, trace])`.
pub const ANCESTORS: TableDoc = TableDoc {
    name: "ancestors",
    doc: "ancestors(uid [, trace]): the events above uid in the call tree, nearest first, up to the root (a python frame, or a host event outside every frame). Example: SELECT * FROM ancestors((SELECT uid FROM kernels ORDER BY dur DESC LIMIT 1))",
    columns: &[
        col!("trace", Utf8, "Trace name."),
        col!("uid", Int64, "The ancestor's uid."),
        col!("distance", Int64, "Steps up from the given uid: 1 is its parent."),
        col!("kind", Utf8, "Kind of the edge from this ancestor down to the next event on the path (host, python, launch)."),
        col!("cat", Utf8, "Category of the ancestor."),
        col!("name", Utf8, "Name of the ancestor."),
        col!("ts", Float64, "Start, µs."),
        col!("dur", Float64, "Duration, µs."),
    ],
};

/// `descendants(uid [, max_depth] [, trace])`.
pub const DESCENDANTS: TableDoc = TableDoc {
    name: "descendants",
    doc: "descendants(uid [, max_depth] [, trace]): the events below uid, depth first, children in time order; max_depth 1 gives the children only. Example: SELECT * FROM descendants(17, 2)",
    columns: &[
        col!("trace", Utf8, "Trace name."),
        col!("uid", Int64, "The descendant's uid."),
        col!("parent_uid", Int64, "Its parent."),
        col!("distance", Int64, "Steps down from the given uid: 1 is a child."),
        col!("kind", Utf8, "Kind of the edge from parent_uid to uid (host, python, launch)."),
        col!("cat", Utf8, "Category."),
        col!("name", Utf8, "Name."),
        col!("ts", Float64, "Start, µs."),
        col!("dur", Float64, "Duration, µs."),
    ],
};

/// `call_stack(uid [, trace])`.
pub const CALL_STACK: TableDoc = TableDoc {
    name: "call_stack",
    doc: "call_stack(uid [, trace]): the path from the root down to uid itself, one row per level. Example: SELECT repeat('  ', depth) || name AS frame FROM call_stack(29)",
    columns: &[
        col!("trace", Utf8, "Trace name."),
        col!("depth", Int64, "Level on the path: 0 is the root; indent by it."),
        col!("uid", Int64, "The event at this level (the last row is the given uid)."),
        col!("kind", Utf8, "Kind of the edge from the level above (host, python, launch); NULL at the root."),
        col!("cat", Utf8, "Category."),
        col!("name", Utf8, "Name."),
        col!("ts", Float64, "Start, µs."),
        col!("dur", Float64, "Duration, µs."),
    ],
};

/// `kernels_of(uid [, trace])`: the `kernels` table's columns.
pub const KERNELS_OF: TableDoc = TableDoc {
    name: "kernels_of",
    doc: "kernels_of(uid [, trace]): the kernels rows (kernels, memcpy, memset) of every GPU event in the subtree of uid, uid itself included; same columns as kernels. Example: SELECT sum(dur) FROM kernels_of(17)",
    columns: &[],
};

/// The drill-down functions, in the order `.help` and docs list them.
pub const FUNCTIONS: &[&TableDoc] = &[&ANCESTORS, &DESCENDANTS, &CALL_STACK, &KERNELS_OF];

/// Output schema of one function.
pub fn function_schema(doc: &TableDoc) -> SchemaRef {
    if doc.name == KERNELS_OF.name {
        kernels_doc().schema()
    } else {
        doc.schema()
    }
}

fn kernels_doc() -> &'static TableDoc {
    table_doc("kernels").unwrap_or_else(|| panic!("the model has no kernels table"))
}

/// The call trees of the loaded traces, shared by the engine (which adds traces)
/// and the table functions (which read them).
#[derive(Debug, Clone, Default)]
pub struct Forest {
    traces: Arc<RwLock<Vec<Arc<TraceTree>>>>,
    /// Why no tree can be walked in this session (a dataset read in place):
    /// what every function says instead of walking.
    unavailable: Arc<RwLock<Option<String>>>,
}

impl Forest {
    /// Adds one trace's tables; its index is built on first use.
    pub fn add(&self, name: &str, events: RecordBatch, kernels: RecordBatch) {
        let tree = Arc::new(TraceTree {
            name: name.to_string(),
            events,
            kernels,
            index: OnceLock::new(),
        });
        // A poisoned lock only means another thread panicked mid-push; the
        // vector itself is still whole.
        let mut traces = self.traces.write().unwrap_or_else(|e| e.into_inner());
        traces.push(tree);
    }

    /// Makes every function fail with `reason` (the session has no trees).
    pub fn set_unavailable(&self, reason: String) {
        *self.unavailable.write().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }

    /// Why no tree can be walked, when none can.
    fn unavailable(&self) -> Option<String> {
        self.unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The trace named `name`, or the only one loaded.
    fn trace(&self, function: &str, name: Option<&str>) -> Result<Arc<TraceTree>> {
        if let Some(reason) = self.unavailable() {
            return plan_err!("{function}: {reason}");
        }
        let traces = self.traces.read().unwrap_or_else(|e| e.into_inner());
        let names = || {
            traces
                .iter()
                .map(|t| format!("'{}'", t.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match name {
            Some(name) => traces
                .iter()
                .find(|t| t.name == name)
                .cloned()
                .ok_or_else(|| {
                    plan_datafusion_err!(
                        "{function}: no trace named '{name}'; loaded traces: {}",
                        if traces.is_empty() {
                            "none".to_string()
                        } else {
                            names()
                        }
                    )
                }),
            None => match traces.as_slice() {
                [only] => Ok(Arc::clone(only)),
                [] => plan_err!("{function}: no trace is loaded"),
                _ => plan_err!(
                    "{function}: {} traces are loaded ({}); name one, e.g. {function}(uid, '{}')",
                    traces.len(),
                    names(),
                    traces[0].name
                ),
            },
        }
    }
}

/// Registers the four functions in `ctx`, reading the traces of `forest`.
pub fn register(ctx: &SessionContext, forest: &Forest) {
    for (doc, kind) in [
        (&ANCESTORS, Kind::Ancestors),
        (&DESCENDANTS, Kind::Descendants),
        (&CALL_STACK, Kind::CallStack),
        (&KERNELS_OF, Kind::KernelsOf),
    ] {
        ctx.register_udtf(
            doc.name,
            Arc::new(DrillFunction {
                kind,
                forest: forest.clone(),
            }),
        );
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ancestors,
    Descendants,
    CallStack,
    KernelsOf,
}

impl Kind {
    fn doc(self) -> &'static TableDoc {
        match self {
            Kind::Ancestors => &ANCESTORS,
            Kind::Descendants => &DESCENDANTS,
            Kind::CallStack => &CALL_STACK,
            Kind::KernelsOf => &KERNELS_OF,
        }
    }

    fn name(self) -> &'static str {
        self.doc().name
    }

    fn usage(self) -> &'static str {
        match self {
            Kind::Ancestors => "ancestors(uid [, trace])",
            Kind::Descendants => "descendants(uid [, max_depth] [, trace])",
            Kind::CallStack => "call_stack(uid [, trace])",
            Kind::KernelsOf => "kernels_of(uid [, trace])",
        }
    }

    fn max_args(self) -> usize {
        match self {
            Kind::Descendants => 3,
            _ => 2,
        }
    }
}

#[derive(Debug)]
struct DrillFunction {
    kind: Kind,
    forest: Forest,
}

impl TableFunctionImpl for DrillFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let exprs = args.exprs();
        let kind = self.kind;
        // A session without trees says so while planning, before a plan that
        // cannot hold this table is shipped anywhere.
        if let Some(reason) = self.forest.unavailable() {
            return plan_err!("{}: {reason}", kind.name());
        }
        if exprs.is_empty() || exprs.len() > kind.max_args() {
            return plan_err!(
                "{} takes 1 to {} arguments, got {}: {}",
                kind.name(),
                kind.max_args(),
                exprs.len(),
                kind.usage()
            );
        }
        // Literals are checked now, so a wrong call fails while planning.
        if exprs.iter().all(|e| matches!(e, Expr::Literal(..))) {
            let values: Vec<ScalarValue> = exprs
                .iter()
                .filter_map(|e| match e {
                    Expr::Literal(v, _) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            Call::parse(kind, &values)?;
        }
        Ok(Arc::new(DrillTable {
            kind,
            args: exprs.to_vec(),
            forest: self.forest.clone(),
            schema: function_schema(kind.doc()),
        }))
    }
}

/// One call's arguments, evaluated.
struct Call {
    uid: Option<i64>,
    max_depth: Option<i64>,
    trace: Option<String>,
}

impl Call {
    fn parse(kind: Kind, values: &[ScalarValue]) -> Result<Call> {
        let usage = kind.usage();
        let Some(first) = values.first() else {
            return plan_err!("{} needs a uid: {usage}", kind.name());
        };
        let uid = match integer(first) {
            Some(v) => v,
            None => {
                return plan_err!(
                    "{}: uid must be an integer, got {} ({usage})",
                    kind.name(),
                    first.data_type()
                )
            }
        };
        let mut call = Call {
            uid,
            max_depth: None,
            trace: None,
        };
        for value in &values[1..] {
            if let Some(text) = text(value) {
                if call.trace.is_some() {
                    return plan_err!("{}: trace given twice ({usage})", kind.name());
                }
                call.trace = Some(text);
            } else if kind == Kind::Descendants && integer(value).is_some() {
                if call.max_depth.is_some() {
                    return plan_err!("{}: max_depth given twice ({usage})", kind.name());
                }
                match integer(value).flatten() {
                    Some(d) if d < 0 => {
                        return plan_err!("{}: max_depth must be 0 or more", kind.name())
                    }
                    d => call.max_depth = d,
                }
            } else {
                return plan_err!(
                    "{}: unexpected argument of type {} ({usage})",
                    kind.name(),
                    value.data_type()
                );
            }
        }
        Ok(call)
    }
}

/// `Some(Some(v))` for an integer, `Some(None)` for NULL, `None` for other types.
fn integer(value: &ScalarValue) -> Option<Option<i64>> {
    let ty = value.data_type();
    if !(ty.is_integer() || ty == DataType::Null) {
        return None;
    }
    if value.is_null() {
        return Some(None);
    }
    match value.cast_to(&DataType::Int64) {
        Ok(ScalarValue::Int64(v)) => Some(v),
        _ => None,
    }
}

fn text(value: &ScalarValue) -> Option<String> {
    match value {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The table a call returns; computed when scanned.
struct DrillTable {
    kind: Kind,
    args: Vec<Expr>,
    forest: Forest,
    schema: SchemaRef,
}

impl fmt::Debug for DrillTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DrillTable")
            .field("function", &self.kind.name())
            .field("args", &self.args)
            .finish()
    }
}

impl DrillTable {
    /// The arguments' values: literals as they are, anything else (a scalar
    /// subquery) by running `SELECT arg, ...` in the session.
    async fn values(&self, state: &dyn Session) -> Result<Vec<ScalarValue>> {
        let literals: Option<Vec<ScalarValue>> = self
            .args
            .iter()
            .map(|e| match e {
                Expr::Literal(v, _) => Some(v.clone()),
                _ => None,
            })
            .collect();
        if let Some(values) = literals {
            return Ok(values);
        }
        let projection: Vec<Expr> = self
            .args
            .iter()
            .enumerate()
            .map(|(i, e)| e.clone().alias(format!("arg{i}")))
            .collect();
        let plan = LogicalPlanBuilder::empty(true)
            .project(projection)?
            .build()?;
        let physical = state.create_physical_plan(&plan).await?;
        let batches = collect(physical, state.task_ctx()).await?;
        let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
            return plan_err!("{}: its arguments gave no value", self.kind.name());
        };
        (0..batch.num_columns())
            .map(|i| ScalarValue::try_from_array(batch.column(i), 0))
            .collect()
    }
}

#[async_trait]
impl TableProvider for DrillTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let values = self.values(state).await?;
        let call = Call::parse(self.kind, &values)?;
        let batch = match call.uid {
            None => RecordBatch::new_empty(Arc::clone(&self.schema)),
            Some(uid) => {
                let tree = self.forest.trace(self.kind.name(), call.trace.as_deref())?;
                tree.answer(self.kind, uid, call.max_depth)?
            }
        };
        let table = MemTable::try_new(Arc::clone(&self.schema), vec![vec![batch]])?;
        table.scan(state, projection, filters, limit).await
    }
}

/// One trace's tables and, once used, its tree index.
#[derive(Debug)]
struct TraceTree {
    name: String,
    events: RecordBatch,
    kernels: RecordBatch,
    index: OnceLock<std::result::Result<CallTree, String>>,
}

struct EventColumns<'a> {
    cat: StringArray,
    name: StringArray,
    ts: &'a Float64Array,
    dur: &'a Float64Array,
}

impl TraceTree {
    fn index(&self) -> Result<&CallTree> {
        self.index
            .get_or_init(|| CallTree::build(&self.events))
            .as_ref()
            .map_err(|e| {
                plan_datafusion_err!("trace '{}': cannot index its call tree: {e}", self.name)
            })
    }

    fn columns(&self) -> Result<EventColumns<'_>> {
        let get = || -> std::result::Result<EventColumns<'_>, String> {
            Ok(EventColumns {
                cat: utf8_column(&self.events, "cat")?,
                name: utf8_column(&self.events, "name")?,
                ts: f64_column(&self.events, "ts")?,
                dur: f64_column(&self.events, "dur")?,
            })
        };
        get().map_err(|e| plan_datafusion_err!("trace '{}': events: {e}", self.name))
    }

    /// The function's rows for `uid`.
    fn answer(&self, kind: Kind, uid: i64, max_depth: Option<i64>) -> Result<RecordBatch> {
        let index = self.index()?;
        let Some(u) = u32::try_from(uid)
            .ok()
            .filter(|&u| index.row_of(u).is_some())
        else {
            return plan_err!(
                "{}: uid {uid} is not an event of trace '{}'",
                kind.name(),
                self.name
            );
        };
        match kind {
            Kind::Ancestors => {
                let rows: Vec<EventRow> = index
                    .ancestors(u)
                    .into_iter()
                    .map(|(a, d, k)| EventRow::new(a, None, d, Some(k)))
                    .collect();
                self.event_batch(kind, &rows)
            }
            Kind::CallStack => {
                let mut path: Vec<(u32, Option<&str>)> = vec![(u, None)];
                let up = index.ancestors(u);
                if let Some(first) = path.first_mut() {
                    first.1 = up.first().map(|(_, _, k)| *k);
                }
                for (i, (a, _, _)) in up.iter().enumerate() {
                    path.push((*a, up.get(i + 1).map(|(_, _, k)| *k)));
                }
                path.reverse();
                let rows: Vec<EventRow> = path
                    .into_iter()
                    .enumerate()
                    .map(|(depth, (e, k))| EventRow::new(e, None, depth as i64, k))
                    .collect();
                self.event_batch(kind, &rows)
            }
            Kind::Descendants => {
                let rows: Vec<EventRow> = index
                    .descendants(u, max_depth)
                    .into_iter()
                    .map(|(d, p, dist, k)| EventRow::new(d, Some(p), dist, Some(k)))
                    .collect();
                self.event_batch(kind, &rows)
            }
            Kind::KernelsOf => {
                let mut inside = vec![false; index.len()];
                inside[u as usize] = true;
                for (d, ..) in index.descendants(u, None) {
                    inside[d as usize] = true;
                }
                let uids = i64_column(&self.kernels, "uid")
                    .map_err(|e| plan_datafusion_err!("trace '{}': kernels: {e}", self.name))?;
                let mask: BooleanArray = uids
                    .iter()
                    .map(|v| {
                        Some(
                            v.and_then(|v| usize::try_from(v).ok())
                                .is_some_and(|v| inside.get(v).copied().unwrap_or(false)),
                        )
                    })
                    .collect();
                let kept = filter_record_batch(&self.kernels, &mask)?;
                Ok(RecordBatch::try_new(
                    kernels_doc().schema(),
                    kept.columns().to_vec(),
                )?)
            }
        }
    }

    /// Builds an ancestors / descendants / call_stack batch.
    fn event_batch(&self, kind: Kind, rows: &[EventRow<'_>]) -> Result<RecordBatch> {
        let index = self.index()?;
        let cols = self.columns()?;
        // The event's row, if the uid has one (an edge may name a uid the
        // events table lacks only in a damaged export; its cells are NULL).
        let row_of = |uid: u32| index.row_of(uid);
        let text = |a: &StringArray, uid: u32| {
            row_of(uid)
                .filter(|&r| a.is_valid(r))
                .map(|r| a.value(r).to_string())
        };
        let float =
            |a: &Float64Array, uid: u32| row_of(uid).filter(|&r| a.is_valid(r)).map(|r| a.value(r));
        let mut arrays: HashMap<&str, ArrayRef> = HashMap::new();
        arrays.insert(
            "trace",
            Arc::new(StringArray::from(vec![self.name.as_str(); rows.len()])),
        );
        arrays.insert(
            "uid",
            Arc::new(Int64Array::from_iter_values(
                rows.iter().map(|r| r.uid as i64),
            )),
        );
        arrays.insert(
            "parent_uid",
            Arc::new(Int64Array::from_iter(
                rows.iter().map(|r| r.parent.map(|p| p as i64)),
            )),
        );
        let level: ArrayRef = Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.level)));
        arrays.insert("distance", Arc::clone(&level));
        arrays.insert("depth", level);
        arrays.insert(
            "kind",
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.kind))),
        );
        arrays.insert(
            "cat",
            Arc::new(StringArray::from_iter(
                rows.iter().map(|r| text(&cols.cat, r.uid)),
            )),
        );
        arrays.insert(
            "name",
            Arc::new(StringArray::from_iter(
                rows.iter().map(|r| text(&cols.name, r.uid)),
            )),
        );
        arrays.insert(
            "ts",
            Arc::new(Float64Array::from_iter(
                rows.iter().map(|r| float(cols.ts, r.uid)),
            )),
        );
        arrays.insert(
            "dur",
            Arc::new(Float64Array::from_iter(
                rows.iter().map(|r| float(cols.dur, r.uid)),
            )),
        );
        let doc = kind.doc();
        let columns = doc
            .columns
            .iter()
            .map(|c| {
                arrays
                    .get(c.name)
                    .cloned()
                    .ok_or_else(|| plan_datafusion_err!("{}: no column {}", doc.name, c.name))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(doc.schema(), columns)?)
    }
}

/// One output row of the event-shaped functions.
struct EventRow<'a> {
    uid: u32,
    parent: Option<u32>,
    /// distance or depth.
    level: i64,
    kind: Option<&'a str>,
}

impl<'a> EventRow<'a> {
    fn new(uid: u32, parent: Option<u32>, level: i64, kind: Option<&'a str>) -> Self {
        EventRow {
            uid,
            parent,
            level,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against the edges listed in fixtures/EXPECTED.md.
    use crate::engine::Engine;
    use crate::load::load_trace;
    use datafusion::arrow::util::display::array_value_to_string;

    fn engine(files: &[&str]) -> Engine {
        let mut engine = Engine::new();
        for file in files {
            let path = format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
            let trace = load_trace(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            engine.add(trace).expect("add trace");
        }
        engine
    }

    async fn try_rows(engine: &Engine, sql: &str) -> Result<Vec<Vec<String>>, String> {
        let results = engine.run_sql(sql).await.map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for batch in results.last().into_iter().flatten() {
            for row in 0..batch.num_rows() {
                out.push(
                    batch
                        .columns()
                        .iter()
                        .map(|c| {
                            if c.is_null(row) {
                                "NULL".to_string()
                            } else {
                                array_value_to_string(c, row).expect("cell")
                            }
                        })
                        .collect(),
                );
            }
        }
        Ok(out)
    }

    async fn rows(engine: &Engine, sql: &str) -> Vec<Vec<String>> {
        try_rows(engine, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    async fn column(engine: &Engine, sql: &str) -> Vec<String> {
        rows(engine, sql)
            .await
            .into_iter()
            .map(|r| r.join(" "))
            .collect()
    }

    async fn error(engine: &Engine, sql: &str) -> String {
        match try_rows(engine, sql).await {
            Ok(rows) => panic!("{sql}: expected an error, got {rows:?}"),
            Err(e) => e,
        }
    }

    #[tokio::test]
    async fn ancestors_climb_from_a_kernel_to_the_python_root() {
        let e = engine(&["basic_linear.json"]);
        let want = [
            "31 1 launch",
            "6 2 host",
            "2 3 host",
            "21 4 python",
            "20 5 python",
            "19 6 python",
            "18 7 python",
            "17 8 python",
        ];
        assert_eq!(
            column(&e, "SELECT uid, distance, kind FROM ancestors(29)").await,
            want
        );
        // The issue's example: the argument is a scalar subquery.
        assert_eq!(
            column(
                &e,
                "SELECT uid, distance, kind FROM ancestors((SELECT uid FROM kernels ORDER BY dur DESC LIMIT 1))"
            )
            .await,
            want
        );
        // A root has none; a subquery that finds nothing gives no rows.
        assert!(column(&e, "SELECT uid FROM ancestors(17)").await.is_empty());
        assert!(column(
            &e,
            "SELECT uid FROM ancestors((SELECT uid FROM kernels WHERE dur < 0))"
        )
        .await
        .is_empty());
    }

    #[tokio::test]
    async fn the_nearest_ancestor_of_every_child_is_its_edge_parent() {
        let e = engine(&["basic_linear.json"]);
        let edges = rows(&e, "SELECT parent_uid, child_uid, kind FROM tree_edges").await;
        assert_eq!(edges.len(), 36);
        for edge in edges {
            let sql = format!(
                "SELECT uid, kind FROM ancestors({}) WHERE distance = 1",
                edge[1]
            );
            assert_eq!(rows(&e, &sql).await, [[edge[0].clone(), edge[2].clone()]]);
        }
    }

    #[tokio::test]
    async fn call_stack_runs_root_first_down_to_the_event() {
        let e = engine(&["basic_linear.json"]);
        assert_eq!(
            column(&e, "SELECT depth, uid, kind, name FROM call_stack(29) WHERE depth IN (0, 5, 8)")
                .await,
            [
                "0 17 NULL train.py(88): train_step",
                "5 2 python aten::linear",
                "8 29 launch sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
            ]
        );
        assert_eq!(
            column(&e, "SELECT uid FROM call_stack(29)").await,
            ["17", "18", "19", "20", "21", "2", "6", "31", "29"]
        );
        // A root is a stack of one.
        assert_eq!(
            column(&e, "SELECT depth, uid FROM call_stack(1)").await,
            ["0 1"]
        );
    }

    #[tokio::test]
    async fn descendants_walk_depth_first_in_time_order() {
        let e = engine(&["basic_linear.json"]);
        assert_eq!(
            column(
                &e,
                "SELECT uid, parent_uid, distance, kind FROM descendants(2)"
            )
            .await,
            [
                "3 2 1 host",
                "4 3 2 host",
                "5 4 3 host",
                "6 2 1 host",
                "31 6 2 host",
                "29 31 3 launch",
            ]
        );
        assert_eq!(
            column(&e, "SELECT uid FROM descendants(17, 1)").await,
            ["18", "25", "26", "27", "28"]
        );
        assert!(column(&e, "SELECT uid FROM descendants(2, 0)")
            .await
            .is_empty());
        // Every edge hangs below the python root 17 (the other root, op 1, has
        // no children).
        assert_eq!(
            column(&e, "SELECT count(*) FROM descendants(17)").await,
            ["36"]
        );
    }

    #[tokio::test]
    async fn kernels_of_collects_the_gpu_work_of_a_subtree() {
        let e = engine(&["basic_linear.json"]);
        assert_eq!(
            column(&e, "SELECT uid, op_uid FROM kernels_of(17) ORDER BY uid").await,
            ["29 6", "33 7", "35 12", "39 13", "43 16"]
        );
        // Through the `execute` pass-through op.
        assert_eq!(column(&e, "SELECT uid FROM kernels_of(13)").await, ["39"]);
        // A kernel is its own subtree; an op that launches nothing has none.
        assert_eq!(column(&e, "SELECT uid FROM kernels_of(29)").await, ["29"]);
        assert!(column(&e, "SELECT uid FROM kernels_of(3)").await.is_empty());

        let g = engine(&["nccl_graph.json"]);
        // A graph launch claims three kernels.
        assert_eq!(
            column(&g, "SELECT uid FROM kernels_of(11) ORDER BY uid").await,
            ["9", "13", "14"]
        );
        assert_eq!(
            column(&g, "SELECT uid, class FROM kernels_of(3)").await,
            ["29 communication"]
        );
        assert_eq!(
            column(&g, "SELECT uid, distance FROM ancestors(29)").await,
            ["31 1", "4 2", "3 3"]
        );
    }

    #[tokio::test]
    async fn several_traces_need_a_trace_argument() {
        let e = engine(&["basic_linear.json", "nccl_graph.json"]);
        let ambiguous = error(&e, "SELECT * FROM ancestors(29)").await;
        assert!(
            ambiguous.contains("2 traces are loaded ('basic_linear', 'nccl_graph')"),
            "{ambiguous}"
        );
        assert_eq!(
            column(&e, "SELECT trace, uid FROM ancestors(29, 'nccl_graph')").await,
            ["nccl_graph 31", "nccl_graph 4", "nccl_graph 3"]
        );
        assert_eq!(
            column(
                &e,
                "SELECT count(*) FROM descendants(17, 1, 'basic_linear')"
            )
            .await,
            ["5"]
        );
        assert_eq!(
            column(
                &e,
                "SELECT count(*) FROM descendants(17, 'basic_linear', 1)"
            )
            .await,
            ["5"]
        );
        let unknown = error(&e, "SELECT * FROM call_stack(1, 'bert')").await;
        assert!(unknown.contains("no trace named 'bert'"), "{unknown}");
    }

    #[tokio::test]
    async fn bad_calls_are_one_clear_error() {
        let e = engine(&["basic_linear.json"]);
        for (sql, needle) in [
            (
                "SELECT * FROM ancestors(100000)",
                "uid 100000 is not an event of trace 'basic_linear'",
            ),
            ("SELECT * FROM ancestors('x')", "uid must be an integer"),
            ("SELECT * FROM ancestors()", "takes 1 to 2 arguments"),
            (
                "SELECT * FROM descendants(1, 2, 'a', 4)",
                "takes 1 to 3 arguments",
            ),
            (
                "SELECT * FROM ancestors(1, 2)",
                "unexpected argument of type Int64",
            ),
            (
                "SELECT * FROM descendants(1, -1)",
                "max_depth must be 0 or more",
            ),
            ("SELECT * FROM kernels_of(1.5)", "uid must be an integer"),
        ] {
            let message = error(&e, sql).await;
            assert!(message.contains(needle), "{sql}: {message}");
            assert!(!message.contains('\n'), "{sql}: {message}");
        }
        let empty = Engine::new();
        let none = error(&empty, "SELECT * FROM ancestors(1)").await;
        assert!(none.contains("no trace is loaded"), "{none}");
    }
}
