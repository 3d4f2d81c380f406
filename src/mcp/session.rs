//! One agent's session: the traces it opened, loaded once, and every call it
//! can make as one [`Call`] answered by [`Session::handle`] in Markdown.
//!
//! Each opened trace has a session of its own (reports, analysis and
//! drill-down see that trace alone, as `tracesql report TRACE` does) and is also
//! added to one shared session where `sql` runs over every trace at once, with
//! the `trace` column telling them apart. The tables are shared between the
//! two (Arrow arrays are reference-counted), so a trace costs its load once.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use futures::StreamExt;

use super::answer::{self, Limits};
use super::guard;
use crate::catalog::{Catalog, QueryKind};
use crate::engine::Engine;
use crate::load::LoadedTrace;
use crate::Error;

/// What every new DataFusion session gets before use: the CLI's `--platform`,
/// `--platforms`, `--tracelens-compat` and `--set`.
pub type Prepare = Arc<dyn Fn(&Engine) -> Result<(), Error> + Send + Sync>;

/// The table functions that read files named in SQL: not for a model.
const FILE_READING_FUNCTIONS: &[&str] = &["replay_runs"];

/// The server's bounds, set on its command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// Files are opened only under this directory (canonical).
    pub root: PathBuf,
    /// Memory a query's sorts, joins and aggregations may hold.
    pub memory_bytes: usize,
    pub limits: Limits,
}

/// One tool call, with its arguments.
#[derive(Debug, Clone)]
pub enum Call {
    OpenTrace {
        path: String,
        name: Option<String>,
    },
    ListTraces,
    ListTables,
    DescribeTable {
        table: String,
    },
    Sql {
        query: String,
        limit: Option<usize>,
    },
    Report {
        name: String,
        trace: Option<String>,
        limit: Option<usize>,
    },
    Analyze {
        trace: Option<String>,
        platform: Option<String>,
    },
    Compare {
        base: String,
        target: String,
    },
    CallStack {
        uid: i64,
        trace: Option<String>,
    },
    KernelsOf {
        uid: i64,
        trace: Option<String>,
    },
    Collectives {
        paths: Vec<String>,
        world_size: Option<i64>,
        only: Option<Vec<String>>,
    },
}

/// A trace the agent opened.
struct Opened {
    name: String,
    /// The file it was read from (canonical).
    path: String,
    trace: LoadedTrace,
    /// A session over this trace alone.
    engine: Engine,
}

pub struct Session {
    catalog: Catalog,
    prepare: Prepare,
    options: Options,
    opened: Vec<Opened>,
    /// Every opened trace: where `sql` runs.
    all: Engine,
    /// Each analysis, by trace and platform: analyzing again gives the same.
    analyses: BTreeMap<(String, Option<String>), String>,
}

impl Session {
    pub fn new(catalog: Catalog, prepare: Prepare, options: Options) -> Result<Self, Error> {
        let all = Engine::with_memory_limit(catalog.clone(), Some(options.memory_bytes));
        prepare(&all)?;
        for name in FILE_READING_FUNCTIONS {
            all.context().deregister_udtf(name);
        }
        Ok(Session {
            catalog,
            prepare,
            options,
            opened: Vec::new(),
            all,
            analyses: BTreeMap::new(),
        })
    }

    pub fn limits(&self) -> Limits {
        self.options.limits
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The answer to `call`, within the answer's byte cap.
    pub async fn handle(&mut self, call: Call) -> Result<String, Error> {
        let text = match call {
            Call::OpenTrace { path, name } => self.open(&path, name.as_deref()).await?,
            Call::ListTraces => self.list_traces(),
            Call::ListTables => self.list_tables()?,
            Call::DescribeTable { table } => self.describe(&table).await?,
            Call::Sql { query, limit } => self.sql(&query, limit).await?,
            Call::Report { name, trace, limit } => {
                self.report(&name, trace.as_deref(), limit).await?
            }
            Call::Analyze { trace, platform } => self.analyze(trace.as_deref(), platform).await?,
            Call::Compare { base, target } => self.compare(&base, &target).await?,
            Call::CallStack { uid, trace } => {
                let title = "Call stack of uid {uid} in {trace}, root first";
                let sql = "SELECT depth, uid, kind, cat, name, ts, dur FROM call_stack({uid}, {trace}) ORDER BY depth";
                self.drill_down(uid, trace.as_deref(), title, sql).await?
            }
            Call::KernelsOf { uid, trace } => {
                let title = "GPU work launched under uid {uid} in {trace}";
                let sql = "SELECT * FROM kernels_of({uid}, {trace}) ORDER BY ts";
                self.drill_down(uid, trace.as_deref(), title, sql).await?
            }
            Call::Collectives {
                paths,
                world_size,
                only,
            } => self.collectives(&paths, world_size, only).await?,
        };
        Ok(answer::capped(text, self.options.limits.bytes))
    }

    /// A drill-down table function on `uid` of an open trace: `title` and `sql`
    /// with `{uid}` and `{trace}` filled in (the trace quoted in the SQL).
    async fn drill_down(
        &self,
        uid: i64,
        trace: Option<&str>,
        title: &str,
        sql: &str,
    ) -> Result<String, Error> {
        let trace = self.opened_trace(trace)?.name.clone();
        let uid = uid.to_string();
        let sql = sql
            .replace("{uid}", &uid)
            .replace("{trace}", &quoted(&trace));
        let title = title.replace("{uid}", &uid).replace("{trace}", &trace);
        Ok(format!("{title}:\n\n{}", self.run(&sql, None).await?))
    }

    /// Opens each trace given on the server's command line.
    pub async fn open_all(&mut self, paths: &[String]) -> Result<(), Error> {
        for path in paths {
            self.open(path, None).await?;
        }
        Ok(())
    }

    /// The traces of `given`, a file (or export directory) under the root, and
    /// its canonical path. The load runs on a thread of its own so that the
    /// call's time limit can answer while it goes on (it is bounded by the
    /// file's size).
    async fn load_under_root(&self, given: &str) -> Result<(Vec<LoadedTrace>, String), Error> {
        let file = guard::path_under(&self.options.root, given).map_err(Error::Usage)?;
        let source = file.to_string_lossy().into_owned();
        let reading = source.clone();
        let traces = tokio::task::spawn_blocking(move || crate::load::load_input(&reading))
            .await
            .map_err(|e| Error::Usage(format!("{given}: the load stopped: {e}")))??;
        Ok((traces, source))
    }

    async fn open(&mut self, path: &str, name: Option<&str>) -> Result<String, Error> {
        let (mut traces, source) = self.load_under_root(path).await?;
        if let Some(name) = name {
            if traces.len() != 1 {
                return Err(Error::Usage(format!(
                    "{path} holds {} traces; `name` names one",
                    traces.len()
                )));
            }
            traces = traces
                .into_iter()
                .map(|t| t.renamed(name))
                .collect::<Result<_, _>>()
                .map_err(Error::query)?;
        }
        // Every name checked before any trace is added: all or nothing.
        if let Some(taken) = traces
            .iter()
            .find(|t| self.opened.iter().any(|o| o.name == t.name))
        {
            return Err(Error::Usage(format!(
                "a trace named '{}' is open already: give open_trace another `name`",
                taken.name
            )));
        }
        let mut lines = Vec::new();
        for trace in traces {
            let name = trace.name.clone();
            let engine = Engine::over(&self.catalog, &*self.prepare, [trace.clone()]).await?;
            self.all.add(trace.clone()).map_err(Error::query)?;
            lines.push(format!(
                "Opened **{name}** from {source}: {} events, {} kernels. {}",
                trace.row_count("events"),
                trace.row_count("kernels"),
                engine.platform_line()
            ));
            self.opened.push(Opened {
                name,
                path: source.clone(),
                trace,
                engine,
            });
        }
        self.all.register_views().await.map_err(Error::query)?;
        lines.push(
            "Next: `report` gpu_timeline or ops_summary, `analyze` for prioritized findings, `sql` for anything else (`list_tables`, `describe_table`)."
                .into(),
        );
        Ok(lines.join("\n") + "\n")
    }

    fn list_traces(&self) -> String {
        if self.opened.is_empty() {
            return "No trace is open: call `open_trace` with a file under the server's root.\n"
                .into();
        }
        let mut text =
            String::from("| trace | events | kernels | platform | file |\n|---|---|---|---|---|\n");
        for o in &self.opened {
            text.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                o.name,
                o.trace.row_count("events"),
                o.trace.row_count("kernels"),
                o.engine.platform().unwrap_or_default(),
                o.path
            ));
        }
        text
    }

    fn list_tables(&self) -> Result<String, Error> {
        let listing = self.all.tables_listing().map_err(Error::query)?;
        let limits = Limits {
            rows: usize::MAX,
            ..self.options.limits
        };
        Ok(format!(
            "Tables, views and table functions (`describe_table NAME` for columns):\n\n{}",
            answer::batch_table(&listing, &limits)
        ))
    }

    async fn describe(&self, table: &str) -> Result<String, Error> {
        let name = table.trim().to_ascii_lowercase();
        let listing = self
            .all
            .columns_listing(Some(&name))
            .await
            .map_err(|_| Error::Usage(format!("unknown table '{name}' (see list_tables)")))?;
        let limits = Limits {
            rows: usize::MAX,
            cell_chars: 400,
            ..self.options.limits
        };
        let mut text = format!("Columns of `{name}`:\n\n");
        text.push_str(&answer::batch_table(&listing, &limits));
        if let Some(query) = self.catalog.get(&name) {
            text.push_str(&format!(
                "\n{} query `{name}` (v{}, {}): {}\n",
                kind_name(query.kind),
                query.version,
                query.origin,
                query.description
            ));
        }
        Ok(text)
    }

    async fn sql(&self, query: &str, limit: Option<usize>) -> Result<String, Error> {
        self.run(query, limit).await
    }

    /// Runs one read-only statement in the shared session: the first rows kept,
    /// the others counted, never all held.
    async fn run(&self, query: &str, limit: Option<usize>) -> Result<String, Error> {
        let statement = guard::read_only_statement(query).map_err(Error::Query)?;
        let ctx = self.all.context();
        let plan = ctx
            .state()
            .statement_to_plan(statement)
            .await
            .map_err(Error::query)?;
        guard::plan_options()
            .verify_plan(&plan)
            .map_err(Error::query)?;
        let frame = ctx.execute_logical_plan(plan).await.map_err(Error::query)?;
        let limits = self.row_limits(limit);
        // On a task of its own: an operator may compute for long between two
        // yields, and the call's time limit must not wait for it. Dropping the
        // call (time limit) aborts the task at its next yield.
        let task = tokio::spawn(first_rows(frame, limits.rows));
        let _abort = AbortOnDrop(task.abort_handle());
        let (schema, kept, total) = task
            .await
            .map_err(|e| Error::Query(format!("the query stopped: {e}")))??;
        Ok(answer::table(&schema, &kept, total, &limits))
    }

    fn row_limits(&self, limit: Option<usize>) -> Limits {
        let base = self.options.limits;
        Limits {
            rows: limit.unwrap_or(base.rows).min(base.max_rows),
            ..base
        }
    }

    /// The opened trace `name` names, or the only one.
    fn opened_trace(&self, name: Option<&str>) -> Result<&Opened, Error> {
        let names = || {
            self.opened
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (name, self.opened.as_slice()) {
            (_, []) => Err(Error::Usage(
                "no trace is open: call open_trace first".into(),
            )),
            (None, [only]) => Ok(only),
            (None, _) => Err(Error::Usage(format!(
                "several traces are open: name one with `trace` ({})",
                names()
            ))),
            (Some(name), _) => self.opened.iter().find(|o| o.name == name).ok_or_else(|| {
                Error::Usage(format!("no open trace named '{name}' (open: {})", names()))
            }),
        }
    }

    async fn report(
        &self,
        name: &str,
        trace: Option<&str>,
        limit: Option<usize>,
    ) -> Result<String, Error> {
        let opened = self.opened_trace(trace)?;
        let known = crate::report::selected_reports(&self.catalog, Some(&[name.to_string()]));
        if known.is_err() {
            let names: Vec<String> = self
                .catalog
                .of_kind(QueryKind::Report)
                .iter()
                .map(|q| q.sheet().to_string())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            return Err(Error::Usage(format!(
                "unknown report '{name}'; the reports: {}",
                names.join(", ")
            )));
        }
        let sheets = crate::report::run_reports(&opened.engine, Some(&[name.to_string()])).await?;
        let limits = self.row_limits(limit);
        let mut text = String::new();
        for sheet in &sheets {
            let title = format!("{} ({})", sheet.sheet, opened.name);
            text.push_str(&answer::sheet(&title, sheet, &limits));
            text.push('\n');
        }
        if sheets.is_empty() {
            text.push_str(&format!(
                "The report '{name}' is not for this trace's format.\n"
            ));
        }
        Ok(text)
    }

    async fn analyze(
        &mut self,
        trace: Option<&str>,
        platform: Option<String>,
    ) -> Result<String, Error> {
        let opened = self.opened_trace(trace)?;
        let key = (opened.name.clone(), platform.clone());
        if let Some(text) = self.analyses.get(&key) {
            return Ok(text.clone());
        }
        let prepare = |engine: &Engine| -> Result<(), Error> {
            (self.prepare)(engine)?;
            match &platform {
                Some(name) => engine.choose_platform(name),
                None => Ok(()),
            }
        };
        let engine = Engine::over(&self.catalog, &prepare, [opened.trace.clone()]).await?;
        let analysis = crate::analyze::analyze(&engine).await?;
        let mut markdown = Vec::new();
        crate::analyze::render::markdown(&mut markdown, &analysis)
            .map_err(|e| Error::Output(e.to_string()))?;
        let text = String::from_utf8_lossy(&markdown).into_owned();
        self.analyses.insert(key, text.clone());
        Ok(text)
    }

    /// A side of a comparison: an open trace's name, or a file under the root.
    async fn side(&self, given: &str) -> Result<(LoadedTrace, String), Error> {
        if let Some(o) = self.opened.iter().find(|o| o.name == given) {
            return Ok((o.trace.clone(), o.path.clone()));
        }
        let (mut traces, source) = self.load_under_root(given).await?;
        match traces.len() {
            1 => Ok((traces.remove(0), source)),
            n => Err(Error::Usage(format!(
                "{given} holds {n} traces; compare takes one per side"
            ))),
        }
    }

    async fn compare(&self, base: &str, target: &str) -> Result<String, Error> {
        use crate::compare::{read_run, Comparison, Reading, Role, Side};
        let prepare = |engine: &Engine| (self.prepare)(engine);
        let mut sides = Vec::new();
        for (given, role) in [(base, Role::Base), (target, Role::Target)] {
            let (trace, source) = self.side(given).await?;
            let run = read_run(trace, &source, &self.catalog, &prepare, Reading::default()).await?;
            sides.push(Side {
                label: given.to_string(),
                role,
                runs: vec![run],
            });
        }
        let target_side = sides.pop();
        let base_side = sides.pop();
        let (Some(base_side), Some(target_side)) = (base_side, target_side) else {
            return Err(Error::Usage("compare needs a base and a target".into()));
        };
        let comparison = Comparison {
            base: base_side,
            target: target_side,
        };
        let engine = comparison.session(&self.catalog, &prepare).await?;
        let shown = ["gpu_timeline".to_string(), "ops_summary".to_string()];
        let sheets = crate::compare::comparison_sheets(&engine, &shown).await?;
        let mut text =
            format!("**{base}** (base) vs **{target}** (target); deltas are target − base.\n\n");
        for (name, rows) in [
            ("comparability", usize::MAX),
            ("compare_gpu_timeline", usize::MAX),
            ("compare_ops_summary", 15),
        ] {
            if let Some(sheet) = sheets.iter().find(|s| s.sheet == name) {
                let limits = Limits {
                    rows: rows.min(self.options.limits.max_rows),
                    ..self.options.limits
                };
                text.push_str(&answer::sheet(name, sheet, &limits));
                text.push('\n');
            }
        }
        Ok(text)
    }

    /// The files `inputs` name (directories and `*` patterns expanded), each
    /// under the root.
    fn files_under_root(&self, inputs: &[String]) -> Result<Vec<String>, Error> {
        let root = &self.options.root;
        let mut checked = Vec::new();
        for input in inputs {
            let pattern = input.contains(['*', '?']);
            let path = std::path::Path::new(input);
            let checked_path = match (pattern, path.parent(), path.file_name()) {
                (true, Some(parent), Some(last)) => {
                    let parent = parent.to_string_lossy();
                    let parent = if parent.is_empty() { "." } else { &parent };
                    guard::path_under(root, parent)
                        .map_err(Error::Usage)?
                        .join(last)
                }
                _ => guard::path_under(root, input).map_err(Error::Usage)?,
            };
            checked.push(checked_path.to_string_lossy().into_owned());
        }
        let files = crate::collectives::resolve_inputs(&checked)?;
        // A directory's entries may be links out of the root: each is checked.
        files
            .iter()
            .map(|f| {
                guard::path_under(root, f)
                    .map(|p| p.to_string_lossy().into_owned())
                    .map_err(Error::Usage)
            })
            .collect()
    }

    async fn collectives(
        &self,
        paths: &[String],
        world_size: Option<i64>,
        only: Option<Vec<String>>,
    ) -> Result<String, Error> {
        use crate::collectives as c;
        let files = self.files_under_root(paths)?;
        let reading = files.clone();
        let traces = tokio::task::spawn_blocking(move || {
            crate::load::load_inputs_keeping(&reading, &c::keep_collective_tables)
        })
        .await
        .map_err(|e| Error::Usage(format!("the loads stopped: {e}")))??;
        let options = c::RankOptions {
            world_size,
            ..c::RankOptions::default()
        };
        let traces = c::assign_ranks(traces, &files, &options)?;
        let ranks = traces.len();
        let engine = Engine::over(&self.catalog, &*self.prepare, traces).await?;
        let mut text = format!("{ranks} ranks.\n\n");
        if !c::has_collectives(&engine) {
            text.push_str("No collective kernel in these traces: the sheets are empty.\n\n");
        }
        let sheets = c::collective_sheets(&engine, only.as_deref()).await?;
        let limits = Limits {
            rows: 20.min(self.options.limits.rows),
            ..self.options.limits
        };
        for sheet in &sheets {
            text.push_str(&answer::sheet(&sheet.sheet, sheet, &limits));
            text.push('\n');
        }
        Ok(text)
    }
}

/// The first `rows` rows of a query's result, and how many it has in all: the
/// rest are counted and dropped, never all held.
async fn first_rows(
    frame: datafusion::dataframe::DataFrame,
    rows: usize,
) -> Result<
    (
        datafusion::arrow::datatypes::SchemaRef,
        Vec<RecordBatch>,
        usize,
    ),
    Error,
> {
    let schema = frame.schema().inner().clone();
    let mut stream = frame.execute_stream().await.map_err(Error::query)?;
    let (mut kept, mut total) = (Vec::<RecordBatch>::new(), 0usize);
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(Error::query)?;
        let room = rows.saturating_sub(total);
        if room > 0 {
            kept.push(batch.slice(0, room.min(batch.num_rows())));
        }
        total += batch.num_rows();
    }
    Ok((schema, kept, total))
}

/// Aborts a task when the call that started it is dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn kind_name(kind: QueryKind) -> &'static str {
    match kind {
        QueryKind::View => "View",
        QueryKind::Category => "Op-category",
        QueryKind::Report => "Report",
        QueryKind::Rule => "Analyzer rule",
        QueryKind::Comparison => "Comparison",
        QueryKind::Collective => "Collective",
    }
}

/// `text` as a SQL string literal.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
