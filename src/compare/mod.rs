//! Two sides compared: a base and a target, each one or more runs (traces,
//! export directories, or TraceLens report folders), pooled per side.
//!
//! Each run's reports are computed as `tracesql report` computes them; the
//! comparison is then SQL: every report sheet becomes a table `report_<sheet>`
//! holding both sides' rows (columns `side`, `run` first), `compare_runs` says
//! what each run is, and the catalog's `-- kind: comparison` views
//! (`queries/comparison/`) match, normalize and rank. TraceLens's own report
//! diff, for `--tracelens-compat`, is [`report_diff`].

pub mod comparative;
pub mod frame;
pub mod pictures;
pub mod report_diff;
pub mod tracediff;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{
    new_null_array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::MemTable;

use crate::catalog::{Catalog, Query, QueryKind};
use crate::engine::{Engine, Prepare};
use crate::load::{load_input, MARKER};
use crate::output::Sheet;
use crate::Error;
use frame::{ColumnType, Frame, Value};

/// Which side of the comparison a run is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Base,
    Target,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Base => "base",
            Role::Target => "target",
        }
    }
}

/// One input of a side: its reports and what is known about it.
pub struct Run {
    /// The trace's name (or the report folder's).
    pub name: String,
    pub source: String,
    pub sheets: Vec<Sheet>,
    /// ProfilerStep#N annotations in the trace; None for a report folder.
    pub profiler_steps: Option<i64>,
    /// The session's platform (given or detected), if any.
    pub platform: Option<String>,
    /// The call tree TraceDiff aligns (read when asked for; None for a report folder).
    pub tree: Option<tracediff::Tree>,
}

/// A side: its label (TraceLens's tag) and its runs.
pub struct Side {
    pub label: String,
    pub role: Role,
    pub runs: Vec<Run>,
}

/// A side's default label: its first input's name without the trace and
/// report-folder suffixes.
pub fn default_label(paths: &[String]) -> String {
    let first = paths.first().map(String::as_str).unwrap_or("");
    let name = Path::new(first.trim_end_matches('/'))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name = name.as_str();
    for suffix in [".gz", ".zip", ".json", "_perf_report_csvs"] {
        name = name.strip_suffix(suffix).unwrap_or(name);
    }
    name.to_string()
}

/// A TraceLens report folder (`<trace>_perf_report_csvs`): CSV sheets, no
/// tracesql export marker.
pub fn is_report_folder(path: &str) -> bool {
    let dir = Path::new(path);
    dir.is_dir() && !dir.join(MARKER).exists() && dir.join("gpu_timeline.csv").is_file()
}

/// What to read of each run besides its identity.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading {
    /// Every report (TraceLens's report diff compares the perf sheets too);
    /// else only the sheets the comparison views read ([`VIEW_SHEETS`]).
    pub all_reports: bool,
    /// The call tree, for TraceDiff.
    pub tree: bool,
    /// Each cpu_op's arguments in the tree (TraceLens's diff_stats prints them).
    pub tree_args: bool,
}

/// Reads one side: each path's reports, computed in a session `prepare` sets up
/// (platform, compat), or read from a report folder.
pub async fn read_side(
    label: &str,
    role: Role,
    paths: &[String],
    catalog: &Catalog,
    prepare: &Prepare<'_>,
    reading: Reading,
) -> Result<Side, Error> {
    let _timing = crate::timing::Phase::start(&format!("read the {} side", role.as_str()));
    let mut runs = Vec::new();
    for path in paths {
        if is_report_folder(path) {
            runs.push(read_report_folder(path)?);
            continue;
        }
        for trace in load_input(path)? {
            runs.push(read_run(trace, path, catalog, prepare, reading).await?);
        }
    }
    Ok(Side {
        label: label.to_string(),
        role,
        runs,
    })
}

/// One loaded trace as a run of a side: its reports computed in a session
/// `prepare` sets up, and its call tree when `reading` asks for it.
pub async fn read_run(
    trace: crate::load::LoadedTrace,
    source: &str,
    catalog: &Catalog,
    prepare: &Prepare<'_>,
    reading: Reading,
) -> Result<Run, Error> {
    let only_sheets: Vec<String> = VIEW_SHEETS.iter().map(|s| s.to_string()).collect();
    let only = (!reading.all_reports).then_some(only_sheets.as_slice());
    let name = trace.name.clone();
    let engine = Engine::over(catalog, prepare, [trace]).await?;
    let sheets = crate::report::run_reports(&engine, only).await?;
    let steps = scalar_i64(&engine, "SELECT profiler_steps FROM run_facts").await?;
    let tree = match reading.tree {
        true => {
            let _timing = crate::timing::Phase::start("tracediff_nodes");
            let rows = engine
                .run_sql("SELECT * FROM tracediff_nodes")
                .await
                .map_err(Error::query)?;
            let batches: Vec<RecordBatch> = rows.into_iter().flatten().collect();
            let mut tree = tracediff::Tree::from_batches(&batches)?;
            if reading.tree_args {
                let rows = engine
                    .run_sql("SELECT * FROM tracediff_args")
                    .await
                    .map_err(Error::query)?;
                let batches: Vec<RecordBatch> = rows.into_iter().flatten().collect();
                tree.add_args(&batches)?;
            }
            Some(tree)
        }
        false => None,
    };
    Ok(Run {
        name,
        source: source.to_string(),
        sheets,
        profiler_steps: steps,
        platform: engine.platform(),
        tree,
    })
}

async fn scalar_i64(engine: &Engine, sql: &str) -> Result<Option<i64>, Error> {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::Int64Type;
    let batches = engine.run_sql(sql).await.map_err(Error::query)?;
    let batch = batches.into_iter().flatten().find(|b| b.num_rows() > 0);
    Ok(batch.and_then(|b| {
        let column = cast(b.column(0), &DataType::Int64).ok()?;
        let values = column.as_primitive::<Int64Type>();
        (!values.is_null(0)).then(|| values.value(0))
    }))
}

/// A TraceLens report folder as a run: each `<sheet>.csv`, typed as pandas reads it.
fn read_report_folder(path: &str) -> Result<Run, Error> {
    let dir = Path::new(path);
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Usage(format!("{path}: {e}")))?;
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    let mut sheets = Vec::new();
    for file in files {
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let frame = Frame::read_csv(&file).map_err(Error::Usage)?;
        sheets.push(frame_sheet(&name, &frame).map_err(Error::query)?);
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name
        .strip_suffix("_perf_report_csvs")
        .unwrap_or(&name)
        .to_string();
    Ok(Run {
        name,
        source: path.to_string(),
        sheets,
        profiler_steps: None,
        platform: None,
        tree: None,
    })
}

/// A frame as a sheet: Int64, Float64, Boolean or Utf8 columns.
fn frame_sheet(name: &str, frame: &Frame) -> Result<Sheet, datafusion::arrow::error::ArrowError> {
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for column in &frame.columns {
        let values = &column.values;
        let (kind, array): (DataType, ArrayRef) = match column.kind {
            ColumnType::Int => (
                DataType::Int64,
                Arc::new(
                    values
                        .iter()
                        .map(|v| match v {
                            Value::Int(i) => Some(*i),
                            _ => None,
                        })
                        .collect::<Int64Array>(),
                ),
            ),
            ColumnType::Float => (
                DataType::Float64,
                Arc::new(values.iter().map(Value::number).collect::<Float64Array>()),
            ),
            ColumnType::Bool => (
                DataType::Boolean,
                Arc::new(
                    values
                        .iter()
                        .map(|v| match v {
                            Value::Bool(b) => Some(*b),
                            _ => None,
                        })
                        .collect::<BooleanArray>(),
                ),
            ),
            ColumnType::Str => (
                DataType::Utf8,
                Arc::new(
                    values
                        .iter()
                        .map(|v| match v {
                            Value::Str(s) => Some(s.as_str()),
                            _ => None,
                        })
                        .collect::<StringArray>(),
                ),
            ),
        };
        fields.push(Field::new(&column.name, kind, true));
        arrays.push(array);
    }
    let header = frame.columns.iter().map(|c| c.name.clone()).collect();
    let batches = if frame.columns.is_empty() {
        Vec::new()
    } else {
        vec![RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?]
    };
    Ok(Sheet {
        sheet: name.to_string(),
        query_name: name.to_string(),
        query_version: 0,
        header,
        batches,
        empty_text: None,
    })
}

/// The two sides.
pub struct Comparison {
    pub base: Side,
    pub target: Side,
}

/// The sheets the shipped comparison views read: registered (empty when no
/// run has them) so that every view plans.
pub const VIEW_SHEETS: &[&str] = &[
    "gpu_timeline",
    "ops_summary",
    "ops_summary_by_category",
    "kernel_summary",
    "unified_perf_summary",
];

impl Comparison {
    fn sides(&self) -> [&Side; 2] {
        [&self.base, &self.target]
    }

    /// A session holding `report_<sheet>` for every sheet of any run, the
    /// table `compare_runs`, and the catalog's comparison views.
    pub async fn session(&self, catalog: &Catalog, prepare: &Prepare<'_>) -> Result<Engine, Error> {
        let engine = Engine::with_catalog(catalog.clone());
        prepare(&engine)?;
        engine.enable_comparison_views();
        let mut by_sheet: BTreeMap<String, Vec<(&Side, &Run, &Sheet)>> = BTreeMap::new();
        for side in self.sides() {
            for run in &side.runs {
                for sheet in &run.sheets {
                    by_sheet
                        .entry(sheet.sheet.clone())
                        .or_default()
                        .push((side, run, sheet));
                }
            }
        }
        for (sheet, parts) in &by_sheet {
            let template = match VIEW_SHEETS.contains(&sheet.as_str()) {
                true => planned_fields(&engine, catalog, sheet).await?,
                false => Vec::new(),
            };
            let batch = side_by_side(&parts[..], &template).map_err(Error::query)?;
            register(&engine, &table_name(sheet), batch)?;
        }
        for sheet in VIEW_SHEETS {
            if by_sheet.contains_key(*sheet) {
                continue;
            }
            let template = planned_fields(&engine, catalog, sheet).await?;
            let batch = side_by_side(&[], &template).map_err(Error::query)?;
            register(&engine, &table_name(sheet), batch)?;
        }
        let runs = self.runs_batch().map_err(Error::query)?;
        register(&engine, "compare_runs", runs)?;
        register(&engine, "tracediff_stats", self.aligned_stats()?)?;
        Ok(engine)
    }

    /// TraceDiff's per-kernel rows with the roots aligned (empty unless each
    /// side is one trace): what `compare_lca` reads.
    fn aligned_stats(&self) -> Result<RecordBatch, Error> {
        let tree = |side: &Side| match side.runs.as_slice() {
            [Run {
                tree: Some(tree), ..
            }] => Some(tree.clone()),
            _ => None,
        };
        let stats = match (tree(&self.base), tree(&self.target)) {
            (Some(a), Some(b)) => {
                let _timing = crate::timing::Phase::start("tracediff (aligned roots)");
                let diff = tracediff::TraceDiff::new(a, b, tracediff::Roots::Aligned);
                diff.diff_stats().0
            }
            _ => Frame::default(),
        };
        tracediff::stats_batch(&stats)
    }

    fn runs_batch(&self) -> Result<RecordBatch, datafusion::arrow::error::ArrowError> {
        let runs: Vec<(&Side, &Run)> = self
            .sides()
            .into_iter()
            .flat_map(|s| s.runs.iter().map(move |r| (s, r)))
            .collect();
        let text = |f: &dyn Fn(&Side, &Run) -> Option<String>| -> ArrayRef {
            Arc::new(runs.iter().map(|(s, r)| f(s, r)).collect::<StringArray>())
        };
        let schema = Schema::new(vec![
            Field::new("side", DataType::Utf8, false),
            Field::new("label", DataType::Utf8, false),
            Field::new("run", DataType::Utf8, false),
            Field::new("source", DataType::Utf8, false),
            Field::new("profiler_steps", DataType::Int64, true),
            Field::new("platform", DataType::Utf8, true),
        ]);
        let steps: Int64Array = runs.iter().map(|(_, r)| r.profiler_steps).collect();
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                text(&|s, _| Some(s.role.as_str().to_string())),
                text(&|s, _| Some(s.label.clone())),
                text(&|_, r| Some(r.name.clone())),
                text(&|_, r| Some(r.source.clone())),
                Arc::new(steps),
                text(&|_, r| r.platform.clone()),
            ],
        )
    }

    /// TraceLens's report diff (its `--output_csvs_dir` files) for the sheet
    /// groups `groups`; one run per side.
    pub fn tracelens_report_diff(
        &self,
        groups: &[String],
    ) -> Result<(Vec<report_diff::Output>, report_diff::Notes), Error> {
        let _timing = crate::timing::Phase::start("TraceLens report diff");
        let one = |side: &Side| -> Result<SheetFrames, Error> {
            match side.runs.as_slice() {
                [run] => Ok(SheetFrames(
                    run.sheets
                        .iter()
                        .map(|s| (s.sheet.clone(), Frame::from_sheet(s)))
                        .collect(),
                )),
                _ => Err(Error::Usage(format!(
                    "--tracelens-compat compares one trace per side; the {} side has {}",
                    side.role.as_str(),
                    side.runs.len()
                ))),
            }
        };
        let (base, target) = (one(&self.base)?, one(&self.target)?);
        Ok(report_diff::report_diff(
            &base,
            &target,
            (&self.base.label, &self.target.label),
            groups,
        ))
    }
}

/// TraceDiff's files (`tracediff/`, spec compare.md §3.9): name and text.
impl Comparison {
    pub fn tracelens_tracediff(&self) -> Result<Vec<(String, String)>, Error> {
        let _timing = crate::timing::Phase::start("TraceLens TraceDiff files");
        let tree = |side: &Side| -> Result<tracediff::Tree, Error> {
            match side.runs.as_slice() {
                [Run {
                    tree: Some(tree), ..
                }] => Ok(tree.clone()),
                _ => Err(Error::Usage(format!(
                    "TraceDiff needs one trace (not a report folder) on the {} side",
                    side.role.as_str()
                ))),
            }
        };
        let roots = tracediff::Roots::ByPosition;
        let diff = tracediff::TraceDiff::new(tree(&self.base)?, tree(&self.target)?, roots);
        let (stats, identical) = diff.diff_stats();
        let summary = tracediff::unique_args_summary(&stats);
        let json = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default();
        // The maps are made before the renames and before identical traces lose
        // their trace2 rows, as TraceLens makes them.
        let one = json(tracediff::op_map(&summary, Some("trace1")));
        let two = json(tracediff::op_map(&summary, Some("trace2")));
        let summary = tracediff::renamed(&summary, &tracediff::rename_map(&stats));
        let ops = tracediff::cpu_op_map_json(&summary, identical);
        let (stats, summary) = match identical {
            true => (
                tracediff::trace1_only(&stats),
                tracediff::trace1_only(&summary),
            ),
            false => (stats, summary),
        };
        let mut files = vec![(
            "merged_tree_output.txt".to_string(),
            diff.merged_tree_text(),
        )];
        if stats.rows() > 0 {
            files.push(("diff_stats.csv".into(), stats.to_csv()));
            files.push((
                "diff_stats_unique_args_summary.csv".into(),
                summary.to_csv(),
            ));
        }
        files.push(("cpu_op_map_trace1.json".into(), one));
        files.push(("cpu_op_map_trace2.json".into(), two));
        files.push(("cpu_op_map.json".into(), ops));
        Ok(files)
    }
}

struct SheetFrames(BTreeMap<String, Frame>);

impl report_diff::Sheets for SheetFrames {
    fn sheet(&self, name: &str) -> Option<&Frame> {
        self.0.get(name)
    }
}

/// `report_<sheet>`, lower case (`GEMM` → `report_gemm`).
pub fn table_name(sheet: &str) -> String {
    format!("report_{}", sheet.to_ascii_lowercase())
}

fn register(engine: &Engine, name: &str, batch: RecordBatch) -> Result<(), Error> {
    let table = MemTable::try_new(batch.schema(), vec![vec![batch]]).map_err(Error::query)?;
    let ctx = engine.context();
    ctx.deregister_table(name).map_err(Error::query)?;
    ctx.register_table(name, Arc::new(table))
        .map_err(Error::query)?;
    Ok(())
}

/// The columns the reports writing `sheet` return, planned over empty tables:
/// a run whose sheet lacks some (the GPU-only kernel_summary has no parent op)
/// gets them as NULL, so that the views reading them plan for any input.
async fn planned_fields(
    engine: &Engine,
    catalog: &Catalog,
    sheet: &str,
) -> Result<Vec<Field>, Error> {
    let mut fields: Vec<Field> = Vec::new();
    let reports = catalog.of_kind(QueryKind::Report);
    for query in reports.into_iter().filter(|q| q.sheet() == sheet) {
        let frame = engine
            .context()
            .sql(&query.sql)
            .await
            .map_err(Error::query)?;
        for field in frame.schema().fields() {
            if !fields.iter().any(|f| f.name() == field.name()) {
                fields.push(Field::new(
                    field.name(),
                    plain_type(field.data_type()),
                    true,
                ));
            }
        }
    }
    Ok(fields)
}

/// Dictionaries and string views as plain values, so that runs agree on types.
fn plain_type(kind: &DataType) -> DataType {
    match kind {
        DataType::Dictionary(_, value) => plain_type(value),
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        other => other.clone(),
    }
}

/// One sheet of every run as one batch: `side`, `run`, then the union of the
/// runs' columns (first-seen order) and of `template`'s; a column the runs type
/// differently is Float64 when all are numbers, else text; a column a run lacks
/// is NULL there.
fn side_by_side(
    parts: &[(&Side, &Run, &Sheet)],
    template: &[Field],
) -> Result<RecordBatch, datafusion::arrow::error::ArrowError> {
    let mut columns: Vec<(String, Vec<DataType>)> = Vec::new();
    for (_, _, sheet) in parts {
        let schema = sheet.schema();
        for field in schema.fields() {
            let kind = plain_type(field.data_type());
            match columns.iter_mut().find(|(n, _)| n == field.name()) {
                Some((_, kinds)) => kinds.push(kind),
                None => columns.push((field.name().clone(), vec![kind])),
            }
        }
    }
    for field in template {
        if !columns.iter().any(|(n, _)| n == field.name()) {
            columns.push((field.name().clone(), vec![field.data_type().clone()]));
        }
    }
    let numeric = |k: &DataType| k.is_numeric();
    let settled: Vec<(String, DataType)> = columns
        .into_iter()
        .map(|(name, kinds)| {
            let first = kinds[0].clone();
            let kind = if kinds.iter().all(|k| *k == first) {
                first
            } else if kinds.iter().all(numeric) {
                DataType::Float64
            } else {
                DataType::Utf8
            };
            (name, kind)
        })
        .collect();
    let mut fields = vec![
        Field::new("side", DataType::Utf8, false),
        Field::new("run", DataType::Utf8, false),
    ];
    fields.extend(settled.iter().map(|(n, k)| Field::new(n, k.clone(), true)));
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let mut batches = Vec::new();
    for (side, run, sheet) in parts {
        for batch in &sheet.batches {
            let rows = batch.num_rows();
            let mut arrays: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from(vec![side.role.as_str(); rows])),
                Arc::new(StringArray::from(vec![run.name.as_str(); rows])),
            ];
            for (name, kind) in &settled {
                let array = match batch.schema().index_of(name) {
                    Ok(at) => cast(batch.column(at), kind)?,
                    Err(_) => new_null_array(kind, rows),
                };
                arrays.push(array);
            }
            batches.push(RecordBatch::try_new(Arc::clone(&schema), arrays)?);
        }
    }
    concat_batches(&schema, &batches)
}

/// Every comparison view with a `-- sheet:` header whose `-- group:` is one
/// of `groups` (TraceLens's `--sheets` names; `all` for every one, a group
/// `always` in any case), run in `-- order:`: what `compare --out` writes.
pub async fn comparison_sheets(engine: &Engine, groups: &[String]) -> Result<Vec<Sheet>, Error> {
    let mut sheets = Vec::new();
    for query in engine.catalog().of_kind(QueryKind::Comparison) {
        let Some(sheet) = query.extra.get("sheet") else {
            continue;
        };
        let group = query.extra.get("group").map_or("always", String::as_str);
        let wanted = group == "always" || groups.iter().any(|g| g == "all" || g == group);
        if !wanted {
            continue;
        }
        sheets.push(view_sheet(engine, query, sheet).await?);
    }
    Ok(sheets)
}

/// One comparison view's rows as the sheet named `sheet`.
pub async fn view_sheet(engine: &Engine, query: &Query, sheet: &str) -> Result<Sheet, Error> {
    let mut rows = crate::report::view_rows(engine, &query.name).await?;
    rows.sheet = sheet.to_string();
    Ok(rows)
}

/// The rows of `sql` as a sheet (named after nothing yet); `fail` words an error.
async fn sql_sheet(
    engine: &Engine,
    sql: &str,
    fail: impl Fn(datafusion::error::DataFusionError) -> Error,
) -> Result<Sheet, Error> {
    engine.sheet("", sql).await.map_err(fail)
}

/// The rows of `comparison` a gate's predicate selects.
pub struct GateResult {
    pub predicate: String,
    pub rows: Sheet,
}

impl GateResult {
    pub fn failed(&self) -> bool {
        self.rows.rows() > 0
    }

    /// The verdict as JSON: the predicate, pass/fail, and each offending row.
    pub fn verdict(&self, comparison: &Comparison) -> serde_json::Value {
        let header = &self.rows.header;
        let rows: Vec<serde_json::Value> = self
            .rows
            .cells()
            .into_iter()
            .map(|cells| {
                let object = header.iter().zip(cells).map(|(name, cell)| {
                    let value = match cell.parse::<f64>() {
                        Ok(n) if n.is_finite() => serde_json::json!(n),
                        _ if cell.is_empty() => serde_json::Value::Null,
                        _ => serde_json::Value::String(cell),
                    };
                    (name.clone(), value)
                });
                serde_json::Value::Object(object.collect())
            })
            .collect();
        let sources =
            |side: &Side| -> Vec<String> { side.runs.iter().map(|r| r.source.clone()).collect() };
        serde_json::json!({
            "verdict": if self.failed() { "fail" } else { "pass" },
            "predicate": self.predicate,
            "matching_rows": rows.len(),
            "base": { "label": comparison.base.label, "sources": sources(&comparison.base) },
            "target": { "label": comparison.target.label, "sources": sources(&comparison.target) },
            "tool": format!("tracesql {}", env!("CARGO_PKG_VERSION")),
            "rows": rows,
        })
    }
}

/// Runs `SELECT * FROM comparison WHERE (predicate)`.
pub async fn gate(engine: &Engine, predicate: &str) -> Result<GateResult, Error> {
    let sql = format!("SELECT * FROM comparison WHERE ({predicate})");
    let fail = |e: datafusion::error::DataFusionError| {
        Error::Usage(crate::one_line(&format!("--fail-if '{predicate}': {e}")))
    };
    let mut rows = sql_sheet(engine, &sql, fail).await?;
    rows.sheet = "gate".into();
    rows.query_name = "comparison".into();
    Ok(GateResult {
        predicate: predicate.to_string(),
        rows,
    })
}
