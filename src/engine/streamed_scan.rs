//! A scan whose batches are made while the query pulls them, with the row
//! count known before it runs.
//!
//! A derived table as large as `kernel_ancestors` (6 M rows on a 1 GB trace,
//! 150 MB as whole columns) would otherwise be built whole when its scan is
//! planned and held until the query ends; most of its rows are then dropped by
//! the first join. Made a batch at a time, it holds one batch.
//!
//! DataFusion's own lazy scan (`LazyMemoryExec`) gives no statistics, and a
//! hash join whose sides have none keeps the order the SQL wrote: a view
//! naming this table first would collect all of it as the build side. The
//! exact row count given here lets the optimizer build on the smaller side
//! whatever the order in the SQL.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::coop::cooperative;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    ReplaceChildrenOptions, SendableRecordBatchStream, Statistics, StatisticsArgs,
};

/// The batches of one run of the scan, made as they are asked for.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// Starts a run of the scan.
pub type MakeBatches = dyn Fn() -> Batches + Send + Sync;

/// One partition whose batches come from `make`, run anew on each execution.
pub struct StreamedScan {
    name: &'static str,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    make: Arc<MakeBatches>,
    /// Rows every run gives.
    rows: usize,
}

impl StreamedScan {
    /// A scan of `name` giving `rows` rows of `schema` from `make`.
    pub fn new(name: &'static str, schema: SchemaRef, rows: usize, make: Arc<MakeBatches>) -> Self {
        let properties = PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        StreamedScan {
            name,
            schema,
            properties: Arc::new(properties),
            make,
            rows,
        }
    }

    fn statistics(&self) -> Arc<Statistics> {
        let mut stats = Statistics::new_unknown(&self.schema);
        stats.num_rows = Precision::Exact(self.rows);
        // Fixed-width columns only for the tables streamed so far; a rough
        // size is enough to pick a join's build side.
        let width: usize = (self.schema.fields().iter())
            .map(|f| f.data_type().primitive_width().unwrap_or(16))
            .sum();
        stats.total_byte_size = Precision::Inexact(self.rows.saturating_mul(width));
        Arc::new(stats)
    }
}

impl fmt::Debug for StreamedScan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StreamedScan({}, {} rows)", self.name, self.rows)
    }
}

impl DisplayAs for StreamedScan {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "StreamedScan: table={}, rows={}", self.name, self.rows)
    }
}

impl ExecutionPlan for StreamedScan {
    fn name(&self) -> &str {
        "StreamedScan"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _: Vec<Arc<dyn ExecutionPlan>>,
        _: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        _: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(&self, _: usize, _: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let batches = futures::stream::iter((self.make)());
        let stream = RecordBatchStreamAdapter::new(Arc::clone(&self.schema), batches);
        // Each batch is ready at once: yield to the runtime's other tasks
        // (the reports side by side) as DataFusion's own scans do.
        Ok(Box::pin(cooperative(stream)))
    }

    fn partition_statistics(&self, _: Option<usize>) -> Result<Arc<Statistics>> {
        Ok(self.statistics())
    }

    fn statistics_from_inputs(
        &self,
        _: &[Arc<Statistics>],
        _: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(self.statistics())
    }
}
