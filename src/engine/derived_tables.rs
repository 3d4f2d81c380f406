//! Tables not held whole in memory, produced by the queries that read them.
//!
//! * `events`: in memory like the others, except what a load holds apart
//!   (`model::events::HeldApart`), filled in by the scans that project it:
//!   `args`, read back from the trace files (half of what a load would hold,
//!   27 MB of the 55 MB benchmark trace, and no shipped report, view or rule
//!   reads it; see `ingest::reread`); the ids of args most events lack
//!   (`correlation`, `stream`, ...), held as (row, value) pairs; `t_end`,
//!   computed. Their columns in the batch are NULL placeholders, never seen.
//! * `ops`: in memory like the others, except its four parsed input lists
//!   (`input_dims`, ...), parsed from their JSON columns by the scans that
//!   project them (see `model::ops::with_input_lists`): 165 of the 265 MB of
//!   `ops` on a 1 GB trace, read by no report.
//! * `tree_edges`: `events.parent_uid` and `events.parent_kind` as edges,
//!   derived from `events` on each scan (99 MB on a 1 GB trace; only
//!   TraceDiff reads it).
//! * `kernel_ancestors`: the closure of `events.parent_uid` over the GPU events,
//!   derived from `events` and `kernels` on each scan a batch at a time, as
//!   the query pulls them (see `model::kernel_ancestors` and
//!   [`StreamedScan`]): 7 MB on the benchmark trace, 6 M rows and 150 MB of
//!   columns on a 1 GB trace, of which a scan holds one batch.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::streamed_scan::{Batches, StreamedScan};

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use crate::model::{
    complete_events, kernel_ancestors, ops_with_input_lists, tree_edges_columns, tree_edges_count,
    EventsHeldApart,
};

/// One trace's events and what it holds apart from the batch (None: all in it).
pub type TraceEvents = (RecordBatch, Option<Arc<EventsHeldApart>>);

/// One trace's `events` and `kernels` batches, and its name.
#[derive(Clone)]
pub struct TraceTree {
    pub name: String,
    pub events: RecordBatch,
    pub kernels: RecordBatch,
}

/// The registered tables' batches (one per trace) and each trace's tree, kept
/// to count rows when asked: `kernel_ancestors` is counted by walking the tree,
/// which a session should not pay for until a listing is read.
#[derive(Clone, Default)]
pub struct RowCounts {
    pub batches: BTreeMap<&'static str, Vec<RecordBatch>>,
    pub trees: Vec<TraceTree>,
    /// Counts known without reading the tables (a dataset's manifest).
    pub counted: Option<Arc<BTreeMap<String, usize>>>,
}

impl RowCounts {
    /// Rows of `table` over every trace.
    pub fn count(&self, table: &str) -> usize {
        if let Some(counted) = &self.counted {
            return counted.get(table).copied().unwrap_or(0);
        }
        if table == "kernel_ancestors" {
            let count = |t: &TraceTree| kernel_ancestors::count(&t.events, &t.kernels).unwrap_or(0);
            return self.trees.iter().map(count).sum();
        }
        if table == "tree_edges" {
            return self.trees.iter().map(|t| tree_edges_count(&t.events)).sum();
        }
        self.batches
            .get(table)
            .map_or(0, |b| b.iter().map(|b| b.num_rows()).sum())
    }
}

/// Produces a scan's batches with only the columns of its projection (column
/// indexes, in that order; None: all).
type Produce = dyn Fn(Option<&Vec<usize>>) -> Result<Vec<RecordBatch>> + Send + Sync;

/// A table whose batches are produced for each scan, then served from memory.
pub struct ProducedTable {
    name: &'static str,
    schema: SchemaRef,
    produce: Box<Produce>,
}

impl std::fmt::Debug for ProducedTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "table {} (produced on scan)", self.name)
    }
}

/// `events`: the batches with the columns the projection includes that are
/// held apart (args read back from the files, sparse ids, t_end) filled in.
pub fn events(schema: SchemaRef, traces: Vec<TraceEvents>) -> Result<ProducedTable> {
    let produce = move |projection: Option<&Vec<usize>>| {
        let projection = projection.map(Vec::as_slice);
        traces
            .iter()
            .map(|(batch, apart)| match apart {
                Some(apart) => complete_events(batch, apart, projection)
                    .map_err(|e| DataFusionError::External(Box::new(e))),
                None => match projection {
                    Some(columns) => Ok(batch.project(columns)?),
                    None => Ok(batch.clone()),
                },
            })
            .collect()
    };
    Ok(ProducedTable {
        name: "events",
        schema,
        produce: Box::new(produce),
    })
}

/// `ops`: the batches with the input lists the projection includes parsed
/// from their JSON columns.
pub fn ops(schema: SchemaRef, batches: Vec<RecordBatch>) -> ProducedTable {
    each_batch("ops", schema, batches, ops_with_input_lists)
}

/// `tree_edges`, derived from each trace's events.
pub fn tree_edges(schema: SchemaRef, events: Vec<RecordBatch>) -> ProducedTable {
    each_batch("tree_edges", schema, events, tree_edges_columns)
}

/// A table whose scan gives `derive(batch, projection)` of each of `batches`
/// (one per trace).
fn each_batch(
    name: &'static str,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    derive: fn(&RecordBatch, Option<&[usize]>) -> std::result::Result<RecordBatch, ArrowError>,
) -> ProducedTable {
    let produce = move |projection: Option<&Vec<usize>>| {
        let projection = projection.map(Vec::as_slice);
        Ok(batches
            .iter()
            .map(|batch| derive(batch, projection))
            .collect::<std::result::Result<_, _>>()?)
    };
    ProducedTable {
        name,
        schema,
        produce: Box::new(produce),
    }
}

/// `kernel_ancestors`, derived from each trace's events and kernels a batch at
/// a time as a query reads it (see [`StreamedScan`]).
pub struct AncestorsTable {
    schema: SchemaRef,
    traces: Arc<Vec<TraceTree>>,
    /// Rows over every trace, counted by the first scan (a walk of the tree).
    rows: OnceLock<usize>,
}

/// Rows per batch of a `kernel_ancestors` scan: large enough that the walk,
/// not the batches, costs the time; small enough to hold (2 MB per column).
const ANCESTOR_ROWS_PER_BATCH: usize = 1 << 18;

pub fn kernel_ancestors(schema: SchemaRef, traces: Vec<TraceTree>) -> AncestorsTable {
    AncestorsTable {
        schema,
        traces: Arc::new(traces),
        rows: OnceLock::new(),
    }
}

impl AncestorsTable {
    fn rows(&self) -> Result<usize> {
        if let Some(&rows) = self.rows.get() {
            return Ok(rows);
        }
        let mut rows = 0;
        for t in self.traces.iter() {
            rows += kernel_ancestors::count(&t.events, &t.kernels)?;
        }
        Ok(*self.rows.get_or_init(|| rows))
    }
}

impl std::fmt::Debug for AncestorsTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "table kernel_ancestors (streamed on scan)")
    }
}

#[async_trait]
impl TableProvider for AncestorsTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = projected(&self.schema, projection)?;
        let (traces, projection) = (Arc::clone(&self.traces), projection.cloned());
        let make = move || ancestor_batches(Arc::clone(&traces), projection.clone());
        let scan = StreamedScan::new("kernel_ancestors", schema, self.rows()?, Arc::new(make));
        Ok(Arc::new(scan))
    }
}

/// One run of a `kernel_ancestors` scan: each trace's batches in turn.
fn ancestor_batches(traces: Arc<Vec<TraceTree>>, projection: Option<Vec<usize>>) -> Batches {
    let per_trace = (0..traces.len()).map(move |i| -> Batches {
        let t = &traces[i];
        let projection = projection.as_deref();
        let rows = ANCESTOR_ROWS_PER_BATCH;
        match kernel_ancestors::Batches::new(&t.events, &t.kernels, &t.name, projection, rows) {
            Ok(batches) => Box::new(batches.map(|b| b.map_err(DataFusionError::from))),
            Err(e) => Box::new(std::iter::once(Err(e.into()))),
        }
    });
    Box::new(per_trace.flatten())
}

/// `schema` with only the columns of `projection` (None: all).
fn projected(schema: &SchemaRef, projection: Option<&Vec<usize>>) -> Result<SchemaRef> {
    Ok(match projection {
        Some(columns) => Arc::new(schema.project(columns)?),
        None => Arc::clone(schema),
    })
}

#[async_trait]
impl TableProvider for ProducedTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let batches = (self.produce)(projection)?;
        MemTable::try_new(projected(&self.schema, projection)?, vec![batches])?
            .scan(state, None, filters, limit)
            .await
    }
}
