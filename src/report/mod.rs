//! Running the catalog's report queries and writing their sheets.
//!
//! Which sheets exist, what they contain and when they apply is all in the SQL
//! files (`-- when:`, `-- sheet:`, `-- empty:` headers); this module only runs them
//! in order and hands the results to a writer.

use std::path::Path;

use datafusion::arrow::record_batch::RecordBatch;

use crate::catalog::{Query, QueryKind};
use crate::engine::Engine;
use crate::output::{atomic, report_csv};
use crate::Error;

/// One report's result.
pub struct Sheet {
    /// Output name (`-- sheet:`, default the query name): `<sheet>.csv`.
    pub sheet: String,
    pub query_name: String,
    pub query_version: u32,
    /// Column names as the query returned them.
    pub header: Vec<String>,
    pub batches: Vec<RecordBatch>,
}

impl Sheet {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

impl Query {
    /// The sheet a report writes.
    pub fn sheet(&self) -> &str {
        self.extra.get("sheet").map_or(&self.name, String::as_str)
    }

    /// Whether an empty result is still written (`-- empty: write`).
    fn writes_when_empty(&self) -> bool {
        self.extra.get("empty").is_some_and(|v| v == "write")
    }
}

/// Runs the reports (all, or those named in `only` by sheet or query name) whose
/// `-- when:` condition holds, in catalog order.
pub async fn run_reports(engine: &Engine, only: Option<&[String]>) -> Result<Vec<Sheet>, Error> {
    let reports = engine.catalog().of_kind(QueryKind::Report);
    if let Some(names) = only {
        for name in names {
            let known = reports.iter().any(|q| q.name == *name || q.sheet() == name);
            if !known {
                return Err(Error::Usage(format!(
                    "unknown report '{name}' (see `tracesql queries`)"
                )));
            }
        }
    }
    let mut sheets = Vec::new();
    for query in reports {
        let wanted =
            only.is_none_or(|names| names.iter().any(|n| *n == query.name || n == query.sheet()));
        if !wanted
            || !engine
                .condition_holds(query)
                .await
                .map_err(|e| report_error(query, e))?
        {
            continue;
        }
        let mut results = engine
            .run_sql(&query.sql)
            .await
            .map_err(|e| report_error(query, e))?;
        let batches = results.pop().unwrap_or_default();
        let header = match batches.first() {
            Some(b) => b
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect(),
            None => plan_header(engine, query).await?,
        };
        let sheet = Sheet {
            sheet: query.sheet().to_string(),
            query_name: query.name.clone(),
            query_version: query.version,
            header,
            batches,
        };
        if sheet.rows() > 0 || query.writes_when_empty() {
            sheets.push(sheet);
        }
    }
    Ok(sheets)
}

/// Column names of a query that returned no batches.
async fn plan_header(engine: &Engine, query: &Query) -> Result<Vec<String>, Error> {
    let frame = engine
        .context()
        .sql(&query.sql)
        .await
        .map_err(|e| report_error(query, e))?;
    Ok(frame
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect())
}

fn report_error(query: &Query, e: impl std::fmt::Display) -> Error {
    Error::query(format!("report {} ({}): {e}", query.name, query.origin))
}

/// Writes each sheet to `dir/<sheet>.csv`, each file atomically.
pub fn write_csv_dir(dir: &Path, sheets: &[Sheet]) -> Result<(), Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Output(format!("{}: cannot create directory: {e}", dir.display())))?;
    for sheet in sheets {
        let path = dir.join(format!("{}.csv", sheet.sheet));
        atomic::write_file(&path, |out| {
            report_csv::write_csv(out, &sheet.header, &sheet.batches)
        })
        .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}
