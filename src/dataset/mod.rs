//! A `tracesql export` dataset read in place: each table is a scan of its
//! Parquet files, pruned before any file is opened.
//!
//! Loading a dataset of a thousand traces into memory to ask about one rank
//! would read a thousand traces. Here the manifest says which partition holds
//! which trace (with its rank and run), so a query's filters on `trace`,
//! `rank` and `trace_run(trace)` pick the files to read before DataFusion
//! opens any; what is left
//! is read by DataFusion's Parquet scan, which reads only the columns the query
//! uses and skips row groups by their statistics.
//!
//! The providers here are plain data (file lists), so a plan over them can be
//! shipped to a cluster and rebuilt there (see `cluster::codec`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::Result;
use datafusion::logical_expr::{
    BinaryExpr, Expr, Operator, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::ExecutionPlan;
use serde::{Deserialize, Serialize};

use crate::ingest::{IngestError, Problem};
use crate::load::{reopen, Manifest, TraceInfo};
use crate::model::{stored_schema, TableDoc, TABLES};

/// An opened dataset: its manifest, and where it is.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

impl Dataset {
    /// Reads and checks the manifest of the dataset at `dir`.
    pub fn open(dir: &str) -> Result<Dataset, IngestError> {
        let manifest = reopen::read_manifest(dir)?;
        let dir = std::fs::canonicalize(dir)
            .map_err(|e| IngestError::new(dir, Problem::Read(e.to_string())))?;
        Ok(Dataset { dir, manifest })
    }

    /// The dataset restricted to its trace number `index` (a report's session).
    pub fn only(mut self, index: usize) -> Dataset {
        let kept: Vec<_> = self.manifest.traces.drain(..).skip(index).take(1).collect();
        self.manifest.traces = kept;
        self
    }

    /// The traces' provenance, in manifest order.
    pub fn traces(&self) -> impl Iterator<Item = &TraceInfo> {
        self.manifest.traces.iter().map(|t| &t.info)
    }

    /// Rows of `table` over every trace, from the manifest.
    pub fn rows(&self, table: &str) -> usize {
        let rows = |t: &crate::load::ExportedTrace| {
            t.tables
                .iter()
                .find(|f| f.name == table)
                .map_or(0, |f| f.rows)
        };
        self.manifest.traces.iter().map(rows).sum()
    }

    /// Every table's row count.
    pub fn row_counts(&self) -> BTreeMap<String, usize> {
        TABLES
            .iter()
            .map(|doc| (doc.name.to_string(), self.rows(doc.name)))
            .collect()
    }

    /// The table `doc` of every trace, as a provider that scans its files.
    pub fn table(&self, doc: &TableDoc) -> DatasetTable {
        let files = self
            .manifest
            .traces
            .iter()
            .filter(|t| t.tables.iter().any(|f| f.name == doc.name))
            .map(|t| DatasetFile {
                path: Manifest::data_file(&self.dir, "tables", doc.name, t),
                trace: t.info.name.clone(),
                rank: t.rank,
                run: t.run.clone(),
            })
            .collect();
        DatasetTable {
            name: doc.name.to_string(),
            schema: stored_schema(&doc.schema()),
            files,
        }
    }

    /// One trace's table read into memory (small tables: `trace_meta`).
    pub fn read_table(
        &self,
        trace: usize,
        doc: &TableDoc,
    ) -> Result<datafusion::arrow::record_batch::RecordBatch, IngestError> {
        let dir = self.dir.to_string_lossy();
        reopen::read_trace_table(&dir, &self.manifest.traces[trace], doc)
    }
}

/// One trace's file of a table, with the partition values it can be pruned by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetFile {
    pub path: PathBuf,
    pub trace: String,
    pub rank: Option<i64>,
    #[serde(default)]
    pub run: Option<String>,
}

/// A table of a dataset: every trace's file of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DatasetTable {
    pub name: String,
    #[serde(skip, default = "empty_schema")]
    pub schema: SchemaRef,
    pub files: Vec<DatasetFile>,
}

fn empty_schema() -> SchemaRef {
    Arc::new(datafusion::arrow::datatypes::Schema::empty())
}

impl DatasetTable {
    /// The files `filters` (ANDed) may need: those whose trace and rank are not
    /// ruled out. A filter this cannot read rules nothing out.
    pub fn files_for(&self, filters: &[Expr]) -> Vec<&DatasetFile> {
        self.files
            .iter()
            .filter(|file| filters.iter().all(|f| may_match(f, file) != Some(false)))
            .collect()
    }

    /// A Parquet listing table over `files`: what a scan delegates to.
    fn listing(&self, files: &[&DatasetFile]) -> Result<ListingTable> {
        let urls = files
            .iter()
            .map(|f| ListingTableUrl::parse(f.path.to_string_lossy()))
            .collect::<Result<Vec<_>>>()?;
        let options =
            ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
        let config = ListingTableConfig::new_with_multi_paths(urls)
            .with_listing_options(options)
            .with_schema(Arc::clone(&self.schema));
        ListingTable::try_new(config)
    }
}

#[async_trait]
impl TableProvider for DatasetTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Used to prune files and row groups; DataFusion still applies them.
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let files = self.files_for(filters);
        if files.is_empty() {
            let schema = match projection {
                Some(p) => Arc::new(self.schema.project(p)?),
                None => Arc::clone(&self.schema),
            };
            return Ok(Arc::new(EmptyExec::new(schema)));
        }
        self.listing(&files)?
            .scan(state, projection, filters, limit)
            .await
    }
}

/// Whether a file may hold rows for which `filter` is true: Some(false) when
/// its partition values rule it out, None when the filter says nothing of them.
fn may_match(filter: &Expr, file: &DatasetFile) -> Option<bool> {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => match (may_match(left, file), may_match(right, file)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Operator::Or => match (may_match(left, file), may_match(right, file)) {
                (Some(false), Some(false)) => Some(false),
                (Some(true), _) | (_, Some(true)) => Some(true),
                _ => None,
            },
            Operator::Eq => equals(left, right, file).or_else(|| equals(right, left, file)),
            _ => None,
        },
        Expr::InList(list) if !list.negated => {
            let mut any_unknown = false;
            for item in &list.list {
                match equals(&list.expr, item, file) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => any_unknown = true,
                }
            }
            if any_unknown {
                None
            } else {
                Some(false)
            }
        }
        _ => None,
    }
}

/// `column = literal` for a partition column (`trace`, `rank`, or the run as
/// `trace_run(trace)`), decided for `file`.
fn equals(column: &Expr, literal: &Expr, file: &DatasetFile) -> Option<bool> {
    let Expr::Literal(value, _) = strip_casts(literal) else {
        return None;
    };
    let value = unwrap_dictionary(value);
    match strip_casts(column) {
        Expr::Column(c) if c.name == "trace" => text(value).map(|v| v == file.trace),
        Expr::Column(c) if c.name == "rank" => {
            let rank = file.rank?;
            integer(value).map(|v| v == rank)
        }
        // NULL for a trace outside any run: never equal to a name.
        Expr::ScalarFunction(call) if is_trace_run(call) => {
            text(value).map(|v| file.run.as_deref() == Some(v))
        }
        _ => None,
    }
}

/// `trace_run(trace)`: the run, which is a partition of the dataset.
fn is_trace_run(call: &datafusion::logical_expr::expr::ScalarFunction) -> bool {
    call.func.name() == tracesql_udfs::trace_run::NAME
        && matches!(call.args.as_slice(), [arg] if matches!(strip_casts(arg), Expr::Column(c) if c.name == "trace"))
}

fn strip_casts(expr: &Expr) -> &Expr {
    match expr {
        Expr::Cast(cast) => strip_casts(&cast.expr),
        Expr::TryCast(cast) => strip_casts(&cast.expr),
        other => other,
    }
}

fn unwrap_dictionary(value: &ScalarValue) -> &ScalarValue {
    match value {
        ScalarValue::Dictionary(_, inner) => unwrap_dictionary(inner),
        other => other,
    }
}

fn text(value: &ScalarValue) -> Option<&str> {
    match value {
        ScalarValue::Utf8(Some(v))
        | ScalarValue::LargeUtf8(Some(v))
        | ScalarValue::Utf8View(Some(v)) => Some(v.as_str()),
        _ => None,
    }
}

fn integer(value: &ScalarValue) -> Option<i64> {
    match value {
        ScalarValue::Int8(Some(v)) => Some(i64::from(*v)),
        ScalarValue::Int16(Some(v)) => Some(i64::from(*v)),
        ScalarValue::Int32(Some(v)) => Some(i64::from(*v)),
        ScalarValue::Int64(Some(v)) => Some(*v),
        ScalarValue::UInt8(Some(v)) => Some(i64::from(*v)),
        ScalarValue::UInt16(Some(v)) => Some(i64::from(*v)),
        ScalarValue::UInt32(Some(v)) => Some(i64::from(*v)),
        ScalarValue::UInt64(Some(v)) => i64::try_from(*v).ok(),
        _ => None,
    }
}

/// Whether `path` is a dataset to read in place (an export directory).
pub fn is_dataset(path: &str) -> bool {
    reopen::is_directory(path) && Path::new(path).join(crate::load::MARKER).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};

    fn file(trace: &str, rank: Option<i64>) -> DatasetFile {
        DatasetFile {
            path: PathBuf::from(format!("/d/{trace}.parquet")),
            trace: trace.into(),
            rank,
            // a and b in run r1, c in r2, d in none.
            run: match trace {
                "a" | "b" => Some("r1".into()),
                "c" => Some("r2".into()),
                _ => None,
            },
        }
    }

    fn table() -> DatasetTable {
        DatasetTable {
            name: "kernels".into(),
            schema: empty_schema(),
            files: vec![
                file("a", Some(0)),
                file("b", Some(1)),
                file("c", Some(1)),
                file("d", None),
            ],
        }
    }

    fn picked(filters: &[Expr]) -> Vec<String> {
        table()
            .files_for(filters)
            .iter()
            .map(|f| f.trace.clone())
            .collect()
    }

    #[test]
    fn partition_filters_pick_files() {
        assert_eq!(picked(&[col("trace").eq(lit("b"))]), ["b"]);
        assert_eq!(picked(&[lit("c").eq(col("trace"))]), ["c"]);
        // A trace of unknown rank may be rank 1.
        assert_eq!(picked(&[col("rank").eq(lit(1i64))]), ["b", "c", "d"]);
        assert_eq!(
            picked(&[col("rank").eq(lit(1i64)), col("trace").eq(lit("c"))]),
            ["c"]
        );
        assert_eq!(
            picked(&[col("trace").eq(lit("a")).or(col("trace").eq(lit("d")))]),
            ["a", "d"]
        );
        assert_eq!(
            picked(&[col("trace").in_list(vec![lit("a"), lit("c")], false)]),
            ["a", "c"]
        );
        // What says nothing of partitions prunes nothing.
        assert_eq!(picked(&[col("dur").gt(lit(5))]).len(), 4);
        assert_eq!(picked(&[col("trace").not_eq(lit("a"))]).len(), 4);
        assert!(picked(&[col("trace").eq(lit("zzz"))]).is_empty());
    }

    #[test]
    fn the_run_is_a_partition_through_trace_run() {
        let trace_run = datafusion::logical_expr::ScalarUDF::from(
            tracesql_udfs::trace_run::TraceRun::new(Default::default()),
        );
        let run = || trace_run.call(vec![col("trace")]);
        assert_eq!(picked(&[run().eq(lit("r1"))]), ["a", "b"]);
        assert_eq!(picked(&[lit("r2").eq(run())]), ["c"]);
        assert_eq!(
            picked(&[run().in_list(vec![lit("r2"), lit("zz")], false)]),
            ["c"]
        );
        assert_eq!(
            picked(&[run().eq(lit("r1")).and(col("rank").eq(lit(1i64)))]),
            ["b"]
        );
        // Of another column, or compared otherwise: no pruning.
        let other = trace_run.call(vec![col("name")]);
        assert_eq!(picked(&[other.eq(lit("r1"))]).len(), 4);
        assert_eq!(picked(&[run().not_eq(lit("r1"))]).len(), 4);
    }
}
