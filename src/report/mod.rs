//! Running the catalog's report queries and writing their sheets.
//!
//! Which sheets exist, what they contain and when they apply is all in the SQL
//! files (`-- when:`, `-- sheet:`, `-- empty:`, `-- empty_text:`, `-- integer_columns:`,
//! `-- drop_null_columns:`,
//! `-- column_order_from:` headers, see [`crate::catalog`]); this module only runs
//! them in order, shapes their columns as the headers say and hands the results
//! to a writer.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use tokio::sync::OnceCell;
use tokio::task::JoinSet;

use crate::catalog::{Catalog, Query, QueryKind};
use crate::engine::{Engine, SqlRunner};
use crate::load::TraceInfo;
use crate::model::SCHEMA_VERSION;
pub use crate::output::Sheet;
use crate::output::{atomic, report_csv, xlsx};
use crate::Error;

mod spread;

impl Query {
    /// The sheet a report writes.
    pub fn sheet(&self) -> &str {
        self.extra.get("sheet").map_or(&self.name, String::as_str)
    }

    /// Whether the report runs only when named (`-- runs: on request`): HTA's
    /// analyses, which a default `report` (TraceLens's sheets) leaves out.
    pub fn on_request(&self) -> bool {
        self.extra.get("runs").is_some_and(|v| v == "on request")
    }

    /// Whether an empty result is still written (`-- empty: write`).
    fn writes_when_empty(&self) -> bool {
        self.extra.get("empty").is_some_and(|v| v == "write")
    }
}

/// The catalog's reports selected by `only` (sheet or query names; when None,
/// all but those that run on request), in catalog order; a name that is no
/// report is an error.
pub fn selected_reports<'a>(
    catalog: &'a Catalog,
    only: Option<&[String]>,
) -> Result<Vec<&'a Query>, Error> {
    selected_of_kind(catalog, QueryKind::Report, only)
}

/// [`selected_reports`] among the queries of `kind` (reports, or the
/// multi-rank collective sheets).
pub fn selected_of_kind<'a>(
    catalog: &'a Catalog,
    kind: QueryKind,
    only: Option<&[String]>,
) -> Result<Vec<&'a Query>, Error> {
    let reports = catalog.of_kind(kind);
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
    Ok(reports
        .into_iter()
        .filter(|q| match only {
            None => !q.on_request(),
            Some(names) => names.iter().any(|n| *n == q.name || n == q.sheet()),
        })
        .collect())
}

/// What the reports' results depend on besides the trace's tables: the tracesql
/// version, every view, category and report of the catalog (headers and SQL),
/// the platform list, the session's platform and whether it reproduces TraceLens
/// (`--tracelens-compat`), hashed (SHA-256, hex).
///
/// An export stores its reports with the fingerprint of the session that ran
/// them; `report DIR` reuses them only when its own session has the same one, so
/// a changed query (`--queries`), platform or tracesql computes them afresh.
pub fn fingerprint(engine: &Engine) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let mut add = |text: &str| {
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(text.as_bytes());
    };
    add(concat!("tracesql ", env!("CARGO_PKG_VERSION")));
    for query in engine
        .catalog()
        .iter()
        .filter(|q| q.kind.is_view() || q.kind == QueryKind::Report)
    {
        add(&query.name);
        add(query.kind.as_str());
        add(&query.version.to_string());
        for (key, value) in &query.extra {
            add(key);
            add(value);
        }
        add(&query.sql);
    }
    add(&format!("{:?}", engine.platform_list()));
    add(engine.platform().as_deref().unwrap_or(""));
    if engine.tracelens_compat() {
        add("tracelens-compat");
    }
    for (name, value) in engine.settings() {
        add(&format!("set {name}={value}"));
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs the reports (all, or those named in `only` by sheet or query name) whose
/// `-- when:` condition holds, and returns their sheets in catalog order.
///
/// Each report is a task of its own on the runtime, so that reports over
/// different views (launchers, unified_perf_events, perf_metrics, ...) plan and
/// execute side by side; a view several reports read is still computed once,
/// the others waiting for it.
/// A catalog view's rows (`SELECT * FROM <name>`) as a sheet named after it,
/// with the view's version; an error names the view's file. What a chart or a
/// comparison sheet reads.
pub async fn view_rows(engine: &Engine, name: &str) -> Result<Sheet, Error> {
    let query = engine
        .catalog()
        .get(name)
        .ok_or_else(|| Error::Usage(format!("the catalog has no query '{name}'")))?;
    let mut sheet = engine
        .sheet(name, &format!("SELECT * FROM {name}"))
        .await
        .map_err(|e| Error::query(format!("{name} ({}): {e}", query.origin)))?;
    sheet.query_version = query.version;
    Ok(sheet)
}

pub async fn run_reports(engine: &Engine, only: Option<&[String]>) -> Result<Vec<Sheet>, Error> {
    run_sheets_of_kind(engine, QueryKind::Report, only).await
}

/// [`run_reports`] for the queries of `kind`.
pub async fn run_sheets_of_kind(
    engine: &Engine,
    kind: QueryKind,
    only: Option<&[String]>,
) -> Result<Vec<Sheet>, Error> {
    run_sheets(engine, kind, only, None).await
}

/// The sheets of `kind`; with `release`, views no report still running needs
/// (nor the views `release` names) are forgotten as reports finish: for a
/// caller that runs nothing else on the session's views afterwards.
async fn run_sheets(
    engine: &Engine,
    kind: QueryKind,
    only: Option<&[String]>,
    release: Option<&[&str]>,
) -> Result<Vec<Sheet>, Error> {
    let reports = selected_of_kind(engine.catalog(), kind, only)?;
    // What each report names, found once (empty when nothing is released).
    let named: Vec<Vec<String>> = match release {
        Some(_) => reports.iter().map(|q| views_named_by(engine, q)).collect(),
        None => Vec::new(),
    };
    let has_platform = engine.platform().is_some();
    let integer_times = integer_times(&engine.runner()).await?;
    // The reports are the parallelism: each runs on one partition.
    let _partitions = (reports.len() > 1).then(|| engine.one_partition_per_query());
    let conditions = Arc::new(Conditions::default());
    let mut tasks = JoinSet::new();
    for (position, query) in reports.into_iter().enumerate() {
        let (runner, query) = (engine.runner(), query.clone());
        let conditions = Arc::clone(&conditions);
        tasks.spawn(async move {
            let sheet = run_report(&runner, &conditions, &query, has_platform, integer_times).await;
            (position, sheet)
        });
    }
    let mut done = Vec::new();
    let mut finished = HashSet::new();
    while let Some(joined) = tasks.join_next().await {
        let (position, sheet) =
            joined.map_err(|e| Error::Output(format!("a report task failed: {e}")))?;
        done.push((position, sheet));
        finished.insert(position);
        if let Some(keep) = release {
            let pending = named
                .iter()
                .enumerate()
                .filter(|(p, _)| !finished.contains(p));
            let mut needed: Vec<&str> = pending
                .flat_map(|(_, names)| names.iter().map(String::as_str))
                .collect();
            needed.extend_from_slice(keep);
            let released = engine.release_views_except(&needed);
            if !released.is_empty() {
                // Off the runtime's workers: a trim of a large heap takes ~10 ms.
                tokio::task::spawn_blocking(crate::memory::return_freed_memory);
                crate::timing::note(&format!("released views: {}", released.join(", ")));
            }
        }
    }
    // Catalog order, and the first failing report in that order is the error,
    // whichever task finished first.
    done.sort_by_key(|(position, _)| *position);
    done.into_iter()
        .filter_map(|(_, sheet)| sheet.transpose())
        .collect()
}

/// [`run_reports`] and [`trace_health_lines`] side by side: the health checks
/// fill the cores the last, longest reports leave idle, instead of running
/// after them. Both run on one partition per query.
pub async fn run_reports_and_health(
    engine: &Engine,
    only: Option<&[String]>,
) -> Result<(Vec<Sheet>, Option<Vec<(String, String)>>), Error> {
    let _partitions = engine.one_partition_per_query();
    // The health line reads this view while the reports run: kept for it.
    let keep = [HEALTH_VIEW];
    let reports = run_sheets(engine, QueryKind::Report, only, Some(&keep));
    let (sheets, health) = tokio::join!(reports, trace_health_lines(engine));
    Ok((sheets?, health?))
}

/// The views a report names in every SQL text it runs: its query and its
/// header fields (`-- when:`, `-- drop_columns_if:`, `-- spread:`, ...).
fn views_named_by(engine: &Engine, query: &Query) -> Vec<String> {
    let texts = std::iter::once(&query.sql).chain(query.extra.values());
    let mut named: Vec<String> = texts.flat_map(|t| engine.views_named_in(t)).collect();
    named.sort();
    named.dedup();
    named
}

/// The `-- when:` conditions of one run of the reports, evaluated once each: most
/// reports share one (`(SELECT count(*) FROM ops) > 0`), and every evaluation is a
/// query to plan and run. Reports asking at the same time wait for one answer.
#[derive(Default)]
struct Conditions(Mutex<HashMap<String, Arc<OnceCell<bool>>>>);

impl Conditions {
    /// Whether each of the query's tests holds, asked in order until one fails.
    async fn holds(&self, runner: &SqlRunner, query: &Query) -> Result<bool, DataFusionError> {
        for condition in query.condition_parts() {
            let answer = {
                let mut known = self
                    .0
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                Arc::clone(known.entry(condition.clone()).or_default())
            };
            let holds = answer
                .get_or_try_init(|| runner.sql_condition_holds(&condition, &query.origin))
                .await?;
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// One report's sheet; None when its condition does not hold, or it has no rows
/// and is not written empty.
async fn run_report(
    runner: &SqlRunner,
    conditions: &Conditions,
    query: &Query,
    has_platform: bool,
    integer_times: bool,
) -> Result<Option<Sheet>, Error> {
    let _timing = crate::timing::Phase::start(&query.name);
    if !conditions
        .holds(runner, query)
        .await
        .map_err(|e| report_error(query, e))?
    {
        return Ok(None);
    }
    let mut results = runner
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
        None => plan_header(runner, query).await?,
    };
    let (header, batches) = spread::spread(runner, query, header, batches)
        .await
        .map_err(|e| report_error(query, e))?;
    let batches = integer_if(runner, query, &header, batches)
        .await
        .map_err(|e| report_error(query, e))?;
    let batches = if integer_times {
        integer_columns(query, &header, batches).map_err(|e| report_error(query, e))?
    } else {
        batches
    };
    let batches =
        mixed_numbers_as_float(query, &header, batches).map_err(|e| report_error(query, e))?;
    let dropped = drop_columns_if(runner, query)
        .await
        .map_err(|e| report_error(query, e))?;
    let (header, batches) = shape_columns(query, header, batches, has_platform, &dropped)
        .map_err(|e| report_error(query, e))?;
    let mut sheet = Sheet {
        sheet: query.sheet().to_string(),
        query_name: query.name.clone(),
        query_version: query.version,
        header,
        batches,
        empty_text: None,
    };
    if sheet.rows() == 0 {
        sheet.empty_text = runner
            .empty_text(query)
            .await
            .map_err(|e| report_error(query, e))?;
    }
    Ok((sheet.rows() > 0 || query.writes_when_empty()).then_some(sheet))
}

/// Column names of a query that returned no batches.
async fn plan_header(runner: &SqlRunner, query: &Query) -> Result<Vec<String>, Error> {
    let frame = runner
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

/// Applies the column headers of a report to its result:
///
/// * `-- drop_null_columns: PREFIX`: columns whose name starts with `PREFIX` and
///   that are NULL in every row are left out (all of them when there are no rows).
///   For result columns that exist only when the data has them, e.g. the perf
///   sheets' `param: <key>` columns.
/// * `dropped`: prefixes `-- drop_columns_if:` says to leave out.
/// * `-- platform_columns: PREFIX, PREFIX, ...`: columns whose name starts with
///   one of the prefixes are left out when the session has no platform (the
///   roofline columns of the perf sheets).
/// * `-- column_order_from: COLUMN`: `COLUMN` (a list of strings, read from the
///   first row where it is not NULL) names result columns; they are written in
///   the order of their first listing, in the positions they take together, and
///   `COLUMN` itself is not written. Naming a column the result lacks (or has just dropped) is an error,
///   so a query cannot silently lose a column its data asks for.
fn shape_columns(
    query: &Query,
    header: Vec<String>,
    batches: Vec<RecordBatch>,
    has_platform: bool,
    dropped: &[String],
) -> Result<(Vec<String>, Vec<RecordBatch>), String> {
    let platform_prefixes: Vec<&str> = match query.extra.get("platform_columns") {
        Some(list) if !has_platform => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let drop_prefixes: Vec<&str> = query
        .extra
        .get("drop_null_columns")
        .map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let order_column = query
        .extra
        .get("column_order_from")
        .filter(|c| !c.is_empty());
    if drop_prefixes.is_empty()
        && order_column.is_none()
        && platform_prefixes.is_empty()
        && dropped.is_empty()
    {
        return Ok((header, batches));
    }
    let all_null = |i: usize| {
        batches
            .iter()
            .all(|b| b.column(i).null_count() == b.num_rows())
    };
    let mut keep: Vec<usize> = (0..header.len())
        .filter(|&i| !(drop_prefixes.iter().any(|p| header[i].starts_with(p)) && all_null(i)))
        .filter(|&i| !platform_prefixes.iter().any(|p| header[i].starts_with(p)))
        .filter(|&i| !dropped.iter().any(|p| header[i].starts_with(p.as_str())))
        .collect();
    if let Some(column) = order_column {
        let Some(at) = header.iter().position(|h| h == column) else {
            return Err(format!(
                "-- column_order_from: the result has no column `{column}`"
            ));
        };
        keep.retain(|&i| i != at);
        if let Some(order) = first_string_list(&batches, at)? {
            let mut wanted = Vec::with_capacity(order.len());
            for name in &order {
                let Some(i) = keep.iter().copied().find(|&i| header[i] == *name) else {
                    return Err(format!(
                        "-- column_order_from: `{column}` lists column `{name}`, which the \
                         result lacks or has only NULLs in"
                    ));
                };
                if !wanted.contains(&i) {
                    wanted.push(i);
                }
            }
            // The positions (in `keep`) of the listed columns, left to right, get
            // the listed columns in list order.
            let slots: Vec<usize> = (0..keep.len())
                .filter(|&p| wanted.contains(&keep[p]))
                .collect();
            for (slot, i) in slots.into_iter().zip(wanted) {
                keep[slot] = i;
            }
        }
    }
    let header = keep.iter().map(|&i| header[i].clone()).collect();
    let batches = batches
        .iter()
        .map(|b| b.project(&keep))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((header, batches))
}

const HEALTH_VIEW: &str = "trace_health_summary";

/// The catalog's view `trace_health_summary`: per trace, its name and the one line
/// `report` and `analyze` print on whether the reports can be trusted ("reports
/// cover 98.7% of GPU time; 2 warnings: see trace_health"). None when the catalog
/// has no such view.
pub async fn trace_health_lines(engine: &Engine) -> Result<Option<Vec<(String, String)>>, Error> {
    let runner = engine.runner();
    if runner.context().table_exist(HEALTH_VIEW).ok() != Some(true) {
        return Ok(None);
    }
    let fail = |e: &dyn std::fmt::Display| Error::query(format!("view {HEALTH_VIEW}: {e}"));
    let results = runner
        .run_sql(&format!(
            "SELECT trace, line FROM {HEALTH_VIEW} ORDER BY trace"
        ))
        .await
        .map_err(|e| fail(&e))?;
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::DataType;
    let mut lines = Vec::new();
    for batch in results.iter().flatten() {
        // Whatever text type (dictionary, view) the columns come as.
        let text = |i: usize| cast(batch.column(i), &DataType::Utf8).map_err(|e| fail(&e));
        let (traces, texts) = (text(0)?, text(1)?);
        for (trace, line) in traces
            .as_string::<i32>()
            .iter()
            .zip(texts.as_string::<i32>())
        {
            lines.push((
                trace.unwrap_or_default().into(),
                line.unwrap_or_default().into(),
            ));
        }
    }
    Ok(Some(lines))
}

/// Whether the session's traces write their times as integers: the catalog's
/// view `integer_times` (false when a catalog has no such view).
async fn integer_times(runner: &SqlRunner) -> Result<bool, Error> {
    const VIEW: &str = "integer_times";
    if runner.context().table_exist(VIEW).ok() != Some(true) {
        return Ok(false);
    }
    let answer = runner
        .one_boolean(&format!("SELECT {VIEW} FROM {VIEW}"))
        .await
        .map_err(|e| Error::query(format!("view {VIEW}: {e}")))?;
    Ok(answer == Some(true))
}

/// `-- integer_columns: A, B`: in a trace whose times are integers, those
/// columns (sums, minima and maxima of times) are written as integers, as
/// TraceLens keeps them (pandas int64). A column is converted only when every
/// value in it is whole; a column the result lacks is an error.
fn integer_columns(
    query: &Query,
    header: &[String],
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>, String> {
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::DataType;
    let Some(list) = query.extra.get("integer_columns") else {
        return Ok(batches);
    };
    if batches.is_empty() {
        return Ok(batches);
    }
    let mut convert = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(at) = header.iter().position(|h| h == name) else {
            return Err(format!(
                "-- integer_columns: the result has no column `{name}`"
            ));
        };
        if whole_float_column(&batches, at, true) {
            convert.push(at);
        }
    }
    replace_columns(batches, &convert, |column| {
        cast(column, &DataType::Int64).map_err(|e| e.to_string())
    })
}

/// `-- integer_if: COLUMNS when SQL; COLUMNS when SQL ...`: when the scalar
/// query SQL is true, the listed columns (patterns as [`crate::glob_match`]:
/// `*` any text, as in `rank_*_ts`) print as integers where they have no NULL and every value is
/// whole. Why: pandas keeps a column of JSON integers as int64 only while it has
/// no missing value, and TraceLens's multi-rank sheets print `4` or `4.0` by
/// that rule (the condition says whether the source column was all integers).
async fn integer_if(
    runner: &SqlRunner,
    query: &Query,
    header: &[String],
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>, String> {
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::DataType;
    let Some(clauses) = query.extra.get("integer_if") else {
        return Ok(batches);
    };
    if batches.is_empty() {
        return Ok(batches);
    }
    let mut convert = Vec::new();
    for clause in clauses.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let Some((columns, condition)) = clause.split_once(" when ") else {
            return Err(format!(
                "-- integer_if: `{clause}` is not `COLUMNS when SQL`"
            ));
        };
        let holds = runner
            .one_boolean(condition)
            .await
            .map_err(|e| format!("-- integer_if: {e}"))?;
        if holds != Some(true) {
            continue;
        }
        for pattern in columns.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            for (at, name) in header.iter().enumerate() {
                let matches = crate::glob_match(pattern, name) && !convert.contains(&at);
                if matches && whole_float_column(&batches, at, false) {
                    convert.push(at);
                }
            }
        }
    }
    replace_columns(batches, &convert, |column| {
        cast(column, &DataType::Int64).map_err(|e| e.to_string())
    })
}

/// `-- drop_columns_if: PREFIXES when SQL`: the column-name prefixes to leave
/// out of the result because the scalar query SQL is true. Why: TraceLens
/// writes some columns only when its data had them at all (the perf-model
/// columns exist when some op's model computed), which the result's own
/// values cannot tell (a computed model may give NULLs).
async fn drop_columns_if(runner: &SqlRunner, query: &Query) -> Result<Vec<String>, String> {
    let Some(clauses) = query.extra.get("drop_columns_if") else {
        return Ok(Vec::new());
    };
    let mut dropped = Vec::new();
    // Several clauses, each `PREFIXES when SQL`, are separated by ` ; `.
    for clause in clauses.split(" ; ") {
        let Some((prefixes, condition)) = clause.split_once(" when ") else {
            return Err(format!(
                "-- drop_columns_if: `{clause}` is not `PREFIXES when SQL`"
            ));
        };
        let holds = runner
            .one_boolean(condition)
            .await
            .map_err(|e| format!("-- drop_columns_if: {e}"))?;
        if holds == Some(true) {
            dropped.extend(
                prefixes
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string),
            );
        }
    }
    Ok(dropped)
}

/// Whether column `at` is Float64 with every value whole (and, unless
/// `nulls_allowed`, none NULL): the test both integer headers apply before
/// printing a column as integers.
fn whole_float_column(batches: &[RecordBatch], at: usize, nulls_allowed: bool) -> bool {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::{DataType, Float64Type};
    let Some(first) = batches.first() else {
        return false;
    };
    if first.schema().field(at).data_type() != &DataType::Float64 {
        return false;
    }
    batches.iter().all(|b| {
        let values = b.column(at).as_primitive::<Float64Type>();
        (nulls_allowed || values.null_count() == 0)
            && (0..values.len()).all(|i| {
                values.is_null(i) || tracesql_udfs::whole_number(values.value(i)).is_some()
            })
    })
}

/// `batches` with the columns at `columns` replaced by `convert` of them, the
/// schema following the new arrays' types: what the report headers that
/// rewrite cells (`-- integer_columns:`, `-- mixed_numbers_as_float:`) share.
fn replace_columns(
    batches: Vec<RecordBatch>,
    columns: &[usize],
    convert: impl Fn(&ArrayRef) -> Result<ArrayRef, String>,
) -> Result<Vec<RecordBatch>, String> {
    use datafusion::arrow::datatypes::{Field, Schema};
    if columns.is_empty() {
        return Ok(batches);
    }
    batches
        .into_iter()
        .map(|batch| {
            let mut arrays = batch.columns().to_vec();
            for &at in columns {
                arrays[at] = convert(&arrays[at])?;
            }
            let schema = batch.schema();
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .zip(&arrays)
                .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
                .collect();
            let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
            RecordBatch::try_new(Arc::new(schema), arrays).map_err(|e| e.to_string())
        })
        .collect()
}

/// `-- mixed_numbers_as_float: PREFIX`: a text column whose name starts with
/// PREFIX and whose values are Python numbers, some ints and some floats (e.g.
/// `param: num_channels` with `16` beside a group norm's `4.0`), prints every
/// value as a float (`16.0`): TraceLens builds the sheet as a pandas frame, whose
/// column then is float64.
fn mixed_numbers_as_float(
    query: &Query,
    header: &[String],
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>, String> {
    use datafusion::arrow::array::{AsArray, StringArray};
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::DataType;
    let Some(prefix) = query
        .extra
        .get("mixed_numbers_as_float")
        .filter(|p| !p.is_empty())
    else {
        return Ok(batches);
    };
    let as_text = |column: &ArrayRef| cast(column, &DataType::Utf8).map_err(|e| e.to_string());
    let mut convert = Vec::new();
    for (at, name) in header.iter().enumerate() {
        if !name.starts_with(prefix.as_str()) {
            continue;
        }
        // (ints, floats, other) among the column's non-NULL values.
        let mut seen = (false, false, false);
        for batch in &batches {
            let text = as_text(batch.column(at))?;
            for value in text.as_string::<i32>().iter().flatten() {
                if value.parse::<i64>().is_ok() {
                    seen.0 = true;
                } else if value.parse::<f64>().is_ok() {
                    seen.1 = true;
                } else {
                    seen.2 = true;
                }
            }
        }
        if seen == (true, true, false) {
            convert.push(at);
        }
    }
    replace_columns(batches, &convert, |column| {
        let text = as_text(column)?;
        let floats: StringArray = text
            .as_string::<i32>()
            .iter()
            .map(|value| {
                value.map(|v| match v.parse::<i64>() {
                    Ok(n) => tracesql_udfs::python_float_repr(n as f64),
                    Err(_) => v.to_string(),
                })
            })
            .collect();
        // Back to the column's own type (a dictionary stays one).
        cast(&floats, column.data_type()).map_err(|e| e.to_string())
    })
}

/// The first non-NULL value of list-of-strings column `at`.
fn first_string_list(batches: &[RecordBatch], at: usize) -> Result<Option<Vec<String>>, String> {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::DataType;
    for batch in batches {
        let column = batch.column(at);
        let list_type = DataType::new_list(DataType::Utf8, true);
        let lists = cast(column, &list_type).map_err(|e| {
            format!(
                "-- column_order_from: column `{}` is {}, not a list of strings ({e})",
                batch.schema().field(at).name(),
                column.data_type()
            )
        })?;
        let lists = lists.as_list::<i32>();
        if let Some(row) = (0..lists.len()).find(|&r| lists.is_valid(r)) {
            let values = lists.value(row);
            let values = values.as_string::<i32>();
            return Ok(Some(values.iter().flatten().map(str::to_string).collect()));
        }
    }
    Ok(None)
}

fn report_error(query: &Query, e: impl std::fmt::Display) -> Error {
    Error::query(format!("report {} ({}): {e}", query.name, query.origin))
}

/// Writes each sheet to `dir/<sheet>.csv`: every file is written in full under a
/// temporary name first, and none replaces an existing CSV until all are complete.
pub fn write_csv_dir(dir: &Path, sheets: &[Sheet]) -> Result<(), Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Output(format!("{}: cannot create directory: {e}", dir.display())))?;
    let mut staged = atomic::Staged::new();
    for sheet in sheets {
        let path = dir.join(format!("{}.csv", sheet.sheet));
        staged
            .stage(&path, |out| match &sheet.empty_text {
                Some(text) if sheet.rows() == 0 => out.write_all(text.as_bytes()),
                _ => report_csv::write_csv(out, &sheet.header, &sheet.batches),
            })
            .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
    }
    staged
        .commit()
        .map_err(|e| Error::Output(format!("{}: {e}", dir.display())))
}

/// Writes the sheets to the Excel workbook `path` (atomically), after an `about`
/// sheet saying which trace, platform (the session's, `platform`, when known)
/// and versions made them.
pub fn write_xlsx(
    path: &Path,
    trace: &TraceInfo,
    platform: Option<&str>,
    sheets: &[Sheet],
) -> Result<(), Error> {
    let about = [
        ("trace", trace.name.clone()),
        ("source", trace.source.clone()),
        ("source sha256", trace.source_sha256.clone()),
        ("device", trace.device.clone()),
        ("platform", platform.unwrap_or(&trace.platform).to_string()),
        ("tool", format!("tracesql {}", env!("CARGO_PKG_VERSION"))),
        ("table schema version", SCHEMA_VERSION.to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v));
    xlsx::write_workbook(path, &about, sheets)
        .map_err(|e| Error::Output(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{ArrayRef, Int64Array, ListBuilder, StringArray, StringBuilder};

    use super::*;
    use crate::catalog::{parse_query, Origin};

    fn query(headers: &str) -> Query {
        let text = format!(
            "-- name: t\n-- version: 1\n-- kind: report\n-- description: a test report\n\
             {headers}SELECT 1"
        );
        parse_query(&text, Origin::Builtin("t.sql".into())).expect("a valid header")
    }

    fn strings(values: &[Option<&str>]) -> ArrayRef {
        Arc::new(StringArray::from(values.to_vec()))
    }

    fn order(lists: &[Option<&[&str]>]) -> ArrayRef {
        let mut b = ListBuilder::new(StringBuilder::new());
        for list in lists {
            match list {
                Some(names) => {
                    for n in *names {
                        b.values().append_value(n);
                    }
                    b.append(true);
                }
                None => b.append(false),
            }
        }
        Arc::new(b.finish())
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        RecordBatch::try_from_iter(columns).expect("columns of equal length")
    }

    fn header_of(batch: &RecordBatch) -> Vec<String> {
        batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    #[test]
    fn without_the_headers_nothing_changes() {
        let b = batch(vec![("param: a", strings(&[None]))]);
        let (header, batches) =
            shape_columns(&query(""), header_of(&b), vec![b], false, &[]).unwrap();
        assert_eq!(header, ["param: a"]);
        assert_eq!(batches[0].num_columns(), 1);
    }

    #[test]
    fn drops_all_null_prefixed_columns_and_orders_the_rest() {
        let q = query("-- drop_null_columns: param: \n-- column_order_from: order\n");
        // Two batches: `param: b` has a value only in the second; `param: z` none.
        let first = batch(vec![
            ("name", strings(&[Some("x")])),
            ("param: a", strings(&[Some("1")])),
            ("param: b", strings(&[None])),
            ("param: z", strings(&[None])),
            ("order", order(&[None])),
            ("other", strings(&[None])),
            ("n", Arc::new(Int64Array::from(vec![1]))),
        ]);
        let second = batch(vec![
            ("name", strings(&[Some("y")])),
            ("param: a", strings(&[None])),
            ("param: b", strings(&[Some("2")])),
            ("param: z", strings(&[None])),
            (
                "order",
                order(&[Some(&["param: b", "param: a", "param: b"])]),
            ),
            ("other", strings(&[None])),
            ("n", Arc::new(Int64Array::from(vec![2]))),
        ]);
        let header = header_of(&first);
        let (header, batches) = shape_columns(&q, header, vec![first, second], false, &[]).unwrap();
        // `other` is all NULL but lacks the prefix: kept. The order column goes.
        assert_eq!(header, ["name", "param: b", "param: a", "other", "n"]);
        assert_eq!(header_of(&batches[1]), header);
        let b = batches[1].column(1).as_any().downcast_ref::<StringArray>();
        assert_eq!(b.unwrap().value(0), "2");
    }

    #[test]
    fn no_rows_drop_every_prefixed_column() {
        let q = query("-- drop_null_columns: param:\n-- column_order_from: order\n");
        let header: Vec<String> = ["name", "param: a", "order"].map(String::from).to_vec();
        let (header, batches) = shape_columns(&q, header, vec![], false, &[]).unwrap();
        assert_eq!(header, ["name"]);
        assert!(batches.is_empty());
    }

    #[test]
    fn an_order_naming_a_missing_column_is_an_error() {
        let q = query("-- drop_null_columns: param:\n-- column_order_from: order\n");
        let b = batch(vec![
            ("param: a", strings(&[None])),
            ("order", order(&[Some(&["param: a"])])),
        ]);
        let e = shape_columns(&q, header_of(&b), vec![b], false, &[]).unwrap_err();
        assert!(e.contains("`param: a`"), "{e}");
        let b = batch(vec![("param: a", strings(&[Some("1")]))]);
        let e = shape_columns(&q, header_of(&b), vec![b], false, &[]).unwrap_err();
        assert!(e.contains("no column `order`"), "{e}");
    }

    #[test]
    fn platform_columns_need_a_platform() {
        let q = query("-- platform_columns: Roofline , Pct Roofline\n");
        let b = batch(vec![
            ("name", strings(&[Some("x")])),
            ("Roofline Bound", strings(&[Some("MEMORY_BOUND")])),
            ("Pct Roofline_mean", strings(&[None])),
        ]);
        let (header, _) = shape_columns(&q, header_of(&b), vec![b.clone()], false, &[]).unwrap();
        assert_eq!(header, ["name"]);
        let (header, _) = shape_columns(&q, header_of(&b), vec![b], true, &[]).unwrap();
        assert_eq!(header, ["name", "Roofline Bound", "Pct Roofline_mean"]);
    }

    /// pandas gives a column of ints and floats the float64 dtype: every value
    /// prints as a float. Columns of ints only, of text, or outside the prefix
    /// are left alone.
    #[test]
    fn mixed_numbers_print_as_floats_in_prefixed_columns() {
        let q = query("-- mixed_numbers_as_float: param:\n");
        let b = batch(vec![
            ("param: c", strings(&[Some("16"), Some("4.0"), None])),
            ("param: n", strings(&[Some("16"), Some("4"), None])),
            ("param: s", strings(&[Some("16"), Some("x"), Some("4.5")])),
            ("other", strings(&[Some("16"), Some("4.0"), None])),
        ]);
        let header = header_of(&b);
        let out = mixed_numbers_as_float(&q, &header, vec![b]).expect("shaped");
        let column = |i: usize| {
            use datafusion::arrow::array::Array;
            let c = out[0]
                .column(i)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            (0..c.len())
                .map(|r| c.is_valid(r).then(|| c.value(r).to_string()))
                .collect::<Vec<_>>()
        };
        let some = |v: &[&str]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
        assert_eq!(column(0), [Some("16.0".into()), Some("4.0".into()), None]);
        assert_eq!(column(1), [Some("16".into()), Some("4".into()), None]);
        assert_eq!(column(2), some(&["16", "x", "4.5"]));
        assert_eq!(column(3), [Some("16".into()), Some("4.0".into()), None]);
    }
}
