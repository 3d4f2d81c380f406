//! The `events` table: in memory like the others, except its `args` column,
//! which is read back from the trace files only by the queries that read it.
//!
//! `events.args` is half of what a load holds (27 MB of the 55 MB benchmark
//! trace) and no shipped report, view or rule reads it; see `ingest::reread`.
//! A scan whose projection leaves `args` out serves the batches as they are
//! (their `args` is NULL and never seen); one that keeps it reads each trace's
//! args from its file first, for that query only.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use crate::ingest::ArgsInFile;
use crate::model::events_with_args;

/// One trace's events and where its args are, when they are not in the batch.
pub type TraceEvents = (RecordBatch, Option<Arc<ArgsInFile>>);

#[derive(Debug)]
pub struct EventsTable {
    schema: SchemaRef,
    traces: Vec<TraceEvents>,
}

impl EventsTable {
    pub fn new(schema: SchemaRef, traces: Vec<TraceEvents>) -> Self {
        EventsTable { schema, traces }
    }

    /// The batches a scan with `projection` needs: with their args read back
    /// from the files when the projection includes `args`.
    fn batches(&self, projection: Option<&Vec<usize>>) -> Result<Vec<RecordBatch>> {
        let args = self.schema.index_of("args")?;
        let wants_args = projection.is_none_or(|columns| columns.contains(&args));
        self.traces
            .iter()
            .map(|(batch, in_file)| match in_file {
                Some(in_file) if wants_args => events_with_args(batch, in_file)
                    .map_err(|e| DataFusionError::External(Box::new(e))),
                _ => Ok(batch.clone()),
            })
            .collect()
    }
}

#[async_trait]
impl TableProvider for EventsTable {
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
        let batches = self.batches(projection)?;
        MemTable::try_new(Arc::clone(&self.schema), vec![batches])?
            .scan(state, projection, filters, limit)
            .await
    }
}
