//! How a tracesql plan crosses the wire to a Ballista scheduler and executors.
//!
//! Ballista serializes plans with DataFusion's protobuf codecs, which know the
//! built-in nodes and Parquet scans. A tracesql plan holds three things they do
//! not: dataset tables ([`DatasetTable`]: their file lists, pruned when the
//! scan is planned on the scheduler), small in-memory tables (the platform
//! list, the session's platform: sent as Arrow IPC), and functions that carry
//! session state (the roofline functions' platforms, `tracelens_compat()`,
//! `setting()`: see [`tracesql_udfs::shipping`]). Everything else is Ballista's
//! own codec's. The same codecs run in the client, the scheduler and the
//! executors, so each side rebuilds exactly what the other wrote.

use std::any::Any;
use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::common::{plan_datafusion_err, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan, ScalarUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use crate::dataset::DatasetTable;

/// The first byte of an encoded table: which kind follows.
const DATASET: u8 = b'D';
const MEMORY: u8 = b'M';

/// Ballista's logical codec, plus dataset and memory tables and stateful functions.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    inner: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match buf.split_first() {
            Some((&DATASET, rest)) => {
                let mut table: DatasetTable = serde_json::from_slice(rest)
                    .map_err(|e| plan_datafusion_err!("dataset table {table_ref}: {e}"))?;
                table.schema = schema;
                Ok(Arc::new(table))
            }
            Some((&MEMORY, rest)) => {
                let batches = read_ipc(rest)
                    .map_err(|e| plan_datafusion_err!("memory table {table_ref}: {e}"))?;
                Ok(Arc::new(MemTable::try_new(schema, vec![batches])?))
            }
            _ => self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let any: &dyn Any = node.as_ref();
        if let Some(table) = any.downcast_ref::<DatasetTable>() {
            buf.push(DATASET);
            serde_json::to_writer(&mut *buf, table)
                .map_err(|e| plan_datafusion_err!("dataset table {table_ref}: {e}"))?;
            return Ok(());
        }
        if let Some(table) = any.downcast_ref::<MemTable>() {
            buf.push(MEMORY);
            let mut batches = Vec::new();
            for partition in &table.batches {
                // Never blocks: nothing writes to these tables while a query plans.
                let partition = partition.try_read().map_err(|_| {
                    plan_datafusion_err!("memory table {table_ref} is being written")
                })?;
                batches.extend(partition.iter().cloned());
            }
            write_ipc(&table.schema(), &batches, buf)
                .map_err(|e| plan_datafusion_err!("memory table {table_ref}: {e}"))?;
            return Ok(());
        }
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        encode_udf(node, buf);
        Ok(())
    }
}

/// Ballista's physical codec, plus stateful functions.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.try_decode(buf, inputs, ctx, converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        self.inner.try_encode(node, buf, converter)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        encode_udf(node, buf);
        Ok(())
    }
}

/// Writes a stateful function's state; a pure function writes nothing and is
/// found by name on the other side.
fn encode_udf(node: &ScalarUDF, buf: &mut Vec<u8>) {
    if let Some(state) = tracesql_udfs::shipping::encode(node) {
        buf.extend(state);
    }
}

fn decode_udf(name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
    match tracesql_udfs::shipping::decode(name, buf) {
        Some(udf) => udf.map(Arc::new),
        None => Err(plan_datafusion_err!(
            "function {name} came with state that this tracesql does not know"
        )),
    }
}

fn write_ipc(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    buf: &mut Vec<u8>,
) -> datafusion::arrow::error::Result<()> {
    let mut writer = StreamWriter::try_new(buf, schema)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()
}

fn read_ipc(bytes: &[u8]) -> datafusion::arrow::error::Result<Vec<RecordBatch>> {
    StreamReader::try_new(bytes, None)?.collect()
}
