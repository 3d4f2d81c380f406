//! `tracesql analyze`: the catalog's rules as findings, ranked by SQL, rendered as
//! a standalone analysis report.
//!
//! The pipeline: [`runner`] runs every `-- kind: rule` query into the table
//! `findings_raw`; the catalog query `findings` adds priority, impact and order;
//! the report's other sections are catalog queries too (`summary_metrics`,
//! `top_ops`, `category_manifest`, `category_ops`, `platform_peaks`). [`render`]
//! only lays the results out (Markdown, CSV, JSON, terminal).

pub mod render;
pub mod runner;

use datafusion::arrow::array::Array;
use datafusion::arrow::record_batch::RecordBatch;

use crate::engine::Engine;
use crate::output::report_csv;
use crate::Error;

pub use runner::RuleRun;

/// The catalog queries the report is made of, in the order they run.
pub const SECTION_QUERIES: [&str; 6] = [
    "findings",
    "summary_metrics",
    "top_ops",
    "category_manifest",
    "category_ops",
    "platform_peaks",
];

/// A query result: column names and batches.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub name: String,
    pub version: u32,
    pub header: Vec<String>,
    pub batches: Vec<RecordBatch>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    /// Every row as display cells (NULL as ""), in column order.
    pub fn cells(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for batch in &self.batches {
            for row in 0..batch.num_rows() {
                out.push(
                    batch
                        .columns()
                        .iter()
                        .map(|c| report_csv::cell(c.as_ref(), row))
                        .collect(),
                );
            }
        }
        out
    }

    /// The position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Whether a cell is NULL, by row number over all batches.
    pub fn is_null(&self, mut row: usize, column: usize) -> bool {
        for batch in &self.batches {
            if row < batch.num_rows() {
                return batch.column(column).is_null(row);
            }
            row -= batch.num_rows();
        }
        true
    }
}

/// Everything the report shows for one trace.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub trace: String,
    pub platform: Option<String>,
    pub rules: Vec<RuleRun>,
    pub findings: Table,
    pub summary: Table,
    pub top_ops: Table,
    pub categories: Table,
    pub category_ops: Table,
    pub peaks: Table,
}

/// Runs the rules and the report's queries over the engine's (one) trace.
///
/// The views most rules and sections read (`gpu_time_totals`, `analyze_ops`)
/// are computed once for all of them (the session's views are kept once read,
/// see [`crate::engine`]); `findings_raw` holds the findings afterwards.
pub async fn analyze(engine: &Engine) -> Result<Analysis, Error> {
    let rules = runner::run_rules(engine).await?;
    let mut tables = Vec::new();
    for name in SECTION_QUERIES {
        tables.push(run_section(engine, name).await?);
    }
    let mut tables = tables.into_iter();
    let mut next = || tables.next().unwrap_or_default();
    Ok(Analysis {
        trace: engine.trace_names().join(", "),
        platform: engine.platform(),
        rules,
        findings: next(),
        summary: next(),
        top_ops: next(),
        categories: next(),
        category_ops: next(),
        peaks: next(),
    })
}

/// Runs a section query from its SQL text, so that it reads the `findings_raw`
/// just registered (a view made earlier would hold the empty one).
async fn run_section(engine: &Engine, name: &str) -> Result<Table, Error> {
    let query = engine.catalog().get(name).ok_or_else(|| {
        Error::Usage(format!(
            "the catalog has no query `{name}`, which `analyze` needs"
        ))
    })?;
    let fail = |e: &dyn std::fmt::Display| {
        Error::Query(crate::one_line(&format!("{name} ({}): {e}", query.origin)))
    };
    let frame = engine
        .context()
        .sql(&query.sql)
        .await
        .map_err(|e| fail(&e))?;
    let header = frame
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let batches = frame.collect().await.map_err(|e| fail(&e))?;
    Ok(Table {
        name: name.to_string(),
        version: query.version,
        header,
        batches,
    })
}
