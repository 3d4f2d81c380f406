//! Running what the user typed: SQL statements and meta-commands, against one
//! [`Engine`] that lives as long as the session.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{ParamValues, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::parser::DFParser;

use super::command::{help_batch, Command};
use super::helper::{statement_complete, Names};
use crate::catalog::QueryKind;
use crate::engine::{platform_set_by, setting_set_by, Engine};
use crate::load::load_input;
use crate::output::terminal::{print_batches, print_listing, PrintOptions};
use crate::output::{atomic, parquet, report_csv, write_batches, Format};

/// What the loop does after an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// An error shown to the user as one line; the session goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplError(pub String);

impl std::fmt::Display for ReplError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<DataFusionError> for ReplError {
    fn from(e: DataFusionError) -> Self {
        ReplError(crate::one_line(&e.to_string()))
    }
}

impl From<datafusion::arrow::error::ArrowError> for ReplError {
    fn from(e: datafusion::arrow::error::ArrowError) -> Self {
        ReplError(crate::one_line(&e.to_string()))
    }
}

impl From<String> for ReplError {
    fn from(e: String) -> Self {
        ReplError(e)
    }
}

impl From<std::io::Error> for ReplError {
    fn from(e: std::io::Error) -> Self {
        ReplError(format!("cannot write output: {e}"))
    }
}

type Result<T> = std::result::Result<T, ReplError>;

/// The last result, kept for `.export`.
struct LastResult {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// `(name, version)` when it came from `.run`.
    query: Option<(String, u32)>,
}

/// `.read` files may read others, up to this depth.
const MAX_READ_DEPTH: usize = 16;

/// One REPL session: the engine, the settings and the last result.
pub struct Session {
    engine: Engine,
    runtime: tokio::runtime::Runtime,
    pub print: PrintOptions,
    last: Option<LastResult>,
    /// Ctrl-C cancels a running query (only at a terminal).
    interrupts: Option<Interrupts>,
    read_depth: usize,
}

impl Session {
    pub fn new(engine: Engine, interactive: bool) -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| ReplError(format!("cannot start the query runtime: {e}")))?;
        // Views are made once the traces are in.
        runtime.block_on(engine.register_views())?;
        let interrupts = if interactive {
            match Interrupts::new(&runtime) {
                Ok(i) => Some(i),
                Err(e) => {
                    eprintln!("warning: Ctrl-C will end the session, not cancel a query: {e}");
                    None
                }
            }
        } else {
            None
        };
        Ok(Session {
            engine,
            runtime,
            print: PrintOptions::new(interactive),
            last: None,
            interrupts,
            read_depth: 0,
        })
    }

    /// Forgets Ctrl-Cs pressed since the last query (call before each prompt).
    pub fn forget_interrupts(&mut self) {
        if let Some(i) = self.interrupts.as_mut() {
            i.forget();
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Runs one complete input: a meta-command line, or SQL (one or more
    /// statements). Results go to `out`.
    pub fn execute(&mut self, input: &str, out: &mut dyn Write) -> Result<Flow> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Ok(Flow::Continue);
        }
        if trimmed.starts_with('.') {
            let command: Command = trimmed.parse()?;
            return self.command(command, out);
        }
        self.sql(input, out)?;
        Ok(Flow::Continue)
    }

    /// Runs a script (a `.read` file, or piped standard input): statements end
    /// with `;`, a line starting with `.` is a meta-command. Each error goes to
    /// `on_error`, which says whether to go on. Returns whether all passed.
    pub fn run_script(
        &mut self,
        lines: impl Iterator<Item = std::io::Result<String>>,
        out: &mut dyn Write,
        on_error: &mut dyn FnMut(&ReplError) -> bool,
    ) -> Result<(bool, Flow)> {
        let mut ok = true;
        let mut buffer = String::new();
        // `None`: stop the script.
        let mut run =
            |session: &mut Session, input: &str, ok: &mut bool| match session.execute(input, out) {
                Ok(flow) => Some(flow),
                Err(e) => {
                    *ok = false;
                    on_error(&e).then_some(Flow::Continue)
                }
            };
        for line in lines {
            let line = line.map_err(|e| ReplError(format!("cannot read input: {e}")))?;
            let input = if buffer.trim().is_empty() && line.trim_start().starts_with('.') {
                buffer.clear();
                line
            } else {
                buffer.push_str(&line);
                buffer.push('\n');
                if !statement_complete(&buffer) {
                    continue;
                }
                std::mem::take(&mut buffer)
            };
            match run(self, &input, &mut ok) {
                Some(Flow::Continue) => {}
                Some(Flow::Quit) => return Ok((ok, Flow::Quit)),
                None => return Ok((ok, Flow::Continue)),
            }
        }
        if !buffer.trim().is_empty() && !only_comments(&buffer) {
            run(self, &buffer, &mut ok);
        }
        Ok((ok, Flow::Continue))
    }

    /// Plans and runs each statement, printing each result.
    fn sql(&mut self, sql: &str, out: &mut dyn Write) -> Result<()> {
        let statements = DFParser::parse_sql(sql)?;
        for statement in statements {
            if let Some(name) = platform_set_by(&statement) {
                self.set_platform(name, out)?;
                continue;
            }
            if let Some((name, value)) = setting_set_by(&self.engine, &statement) {
                let name = self.engine.set_setting(&name, &value).map_err(ReplError)?;
                writeln!(out, "{name} = {value}")?;
                continue;
            }
            let started = Instant::now();
            let state = self.engine.context().state();
            let plan = self.runtime.block_on(state.statement_to_plan(statement))?;
            self.run_plan(plan, started, None, out)?;
        }
        Ok(())
    }

    /// `SET platform = 'NAME'` (None: no platform). The views reading the
    /// session platform compute again when next read.
    fn set_platform(&mut self, name: Option<String>, out: &mut dyn Write) -> Result<()> {
        self.engine.set_platform(name.as_deref())?;
        let now = self.engine.platform();
        writeln!(out, "platform: {}", now.as_deref().unwrap_or("not set"))?;
        Ok(())
    }

    /// Runs a planned statement (cancellable with Ctrl-C at a terminal), prints
    /// it and keeps it as the last result.
    fn run_plan(
        &mut self,
        plan: LogicalPlan,
        started: Instant,
        query: Option<(String, u32)>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let ctx = self.engine.context().clone();
        let work = async move {
            let frame = ctx.execute_logical_plan(plan).await?;
            let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
            let batches = frame.collect().await?;
            Ok::<_, DataFusionError>((schema, batches))
        };
        let (schema, batches) = if let Some(interrupts) = self.interrupts.as_mut() {
            let task = self.runtime.spawn(work);
            let abort = task.abort_handle();
            let outcome = self.runtime.block_on(async {
                tokio::select! {
                    joined = task => Some(joined),
                    _ = interrupts.recv() => None,
                }
            });
            match outcome {
                Some(Ok(result)) => result?,
                Some(Err(e)) => return Err(ReplError(format!("the query stopped: {e}"))),
                None => {
                    abort.abort();
                    return Err(ReplError("query cancelled".into()));
                }
            }
        } else {
            self.runtime.block_on(work)?
        };
        let elapsed = started.elapsed();
        print_batches(out, &schema, &batches, Some(elapsed), &self.print)?;
        out.flush()?;
        self.last = Some(LastResult {
            schema,
            batches,
            query,
        });
        Ok(())
    }

    fn command(&mut self, command: Command, out: &mut dyn Write) -> Result<Flow> {
        match command {
            Command::Quit => return Ok(Flow::Quit),
            Command::Help => {
                let help = help_batch();
                self.show(out, &help)?;
                let functions = self.engine.functions_listing()?;
                writeln!(out, "Functions tracesql adds (usable in any SQL):")?;
                self.show(out, &functions)?;
                writeln!(
                    out,
                    "End SQL statements with ';' (they may span lines). Tab completes; Ctrl-C cancels, Ctrl-D exits."
                )?;
            }
            Command::Tables => {
                let batch = self.engine.tables_listing()?;
                self.show(out, &batch)?;
            }
            Command::Schema(table) => {
                let table = table.map(|t| t.to_ascii_lowercase());
                let listing = self.engine.columns_listing(table.as_deref());
                let batch = self.runtime.block_on(listing).map_err(|e| match table {
                    Some(name) => ReplError(format!(
                        "no table, view or function named '{name}'; .tables lists them"
                    )),
                    None => ReplError::from(e),
                })?;
                self.show(out, &batch)?;
            }
            Command::Queries => {
                let batch = self.engine.queries_listing()?;
                self.show(out, &batch)?;
            }
            Command::Load { path, name } => self.load(&path, name.as_deref(), out)?,
            Command::Run { name, args } => self.run_query(&name, &args, out)?,
            Command::Platform(None) => match self.engine.platform() {
                Some(p) => writeln!(out, "platform: {p}")?,
                None => writeln!(
                    out,
                    "platform: not set (.platform NAME sets it; see the platforms table)"
                )?,
            },
            Command::Platform(Some(name)) => {
                let name = (!name.eq_ignore_ascii_case("none")).then_some(name);
                self.set_platform(name, out)?;
            }
            Command::Format(None) => writeln!(out, "format: {}", self.print.format)?,
            Command::Format(Some(format)) => {
                self.print.format = format;
                writeln!(out, "format: {format}")?;
            }
            Command::MaxRows(n) => {
                if let Some(n) = n {
                    self.print.maxrows = n;
                }
                match self.print.maxrows {
                    0 => writeln!(out, "maxrows: all")?,
                    n => writeln!(out, "maxrows: {n}")?,
                }
            }
            Command::Timer(on) => {
                if let Some(on) = on {
                    self.print.timer = on;
                }
                writeln!(
                    out,
                    "timer: {}",
                    if self.print.timer { "on" } else { "off" }
                )?;
            }
            Command::Export(path) => self.export(Path::new(&path), out)?,
            Command::Read(path) => return self.read(&path, out),
        }
        out.flush()?;
        Ok(Flow::Continue)
    }

    /// Prints a listing through the same printer as results, every row.
    fn show(&self, out: &mut dyn Write, batch: &RecordBatch) -> Result<()> {
        print_listing(out, batch, &self.print)?;
        Ok(())
    }

    fn load(&mut self, path: &str, name: Option<&str>, out: &mut dyn Write) -> Result<()> {
        if path == "-" {
            return Err(ReplError(
                "the REPL reads its commands from standard input; .load takes a file".into(),
            ));
        }
        if Path::new(path).extension().is_some_and(|e| e == "parquet") {
            return Err(ReplError(format!(
                "{path}: .load reads a trace (.json, .json.gz, .zip) or a directory written by `tracesql export --parquet`, not one Parquet file"
            )));
        }
        let mut traces: Vec<_> = load_input(path).map_err(|e| ReplError(e.to_string()))?;
        if let Some(name) = name {
            if traces.len() != 1 {
                return Err(ReplError(format!(
                    "{path} holds {} traces; AS NAME names one",
                    traces.len()
                )));
            }
            traces = traces
                .into_iter()
                .map(|t| t.renamed(name))
                .collect::<std::result::Result<_, _>>()?;
        }
        for trace in traces {
            let events = trace
                .tables
                .iter()
                .find(|(t, _)| *t == "events")
                .map_or(0, |(_, b)| b.num_rows());
            let loaded = self.engine.add(trace)?;
            writeln!(out, "loaded {loaded} ({events} events) from {path}")?;
        }
        self.runtime.block_on(self.engine.register_views())?;
        Ok(())
    }

    fn run_query(&mut self, name: &str, args: &[String], out: &mut dyn Write) -> Result<()> {
        let Some(query) = self.engine.catalog().get(name).cloned() else {
            return Err(ReplError(format!(
                "no query named '{name}'; .queries lists them"
            )));
        };
        let mut params: HashMap<String, ScalarValue> = HashMap::new();
        let mut settings = std::collections::BTreeMap::new();
        if let Some(platform) = self.engine.platform() {
            params.insert("platform".into(), ScalarValue::Utf8(Some(platform)));
        }
        for arg in args {
            let Some((key, value)) = arg.split_once('=') else {
                return Err(ReplError(format!(
                    "'{arg}': give parameters as KEY=VALUE ({name} takes: {})",
                    if query.params.is_empty() {
                        "none".to_string()
                    } else {
                        query.params.join(", ")
                    }
                )));
            };
            let declared = query
                .params
                .iter()
                .any(|p| p.split_whitespace().next() == Some(key));
            if declared {
                params.insert(key.to_string(), parameter_value(value));
            } else if let Ok(setting) = self.engine.catalog().resolve_setting_name(key) {
                settings.insert(setting, value.to_string());
            } else {
                return Err(ReplError(format!(
                    "{name} has no parameter '{key}' (it takes: {}; or a report option, e.g. hta.instance)",
                    if query.params.is_empty() {
                        "none".to_string()
                    } else {
                        query.params.join(", ")
                    }
                )));
            }
        }
        if settings.is_empty() {
            return self.run_query_with(&query, &params, out);
        }
        // Report options given to .run hold for this run only.
        let before = self.engine.settings();
        let mut during = before.clone();
        during.extend(settings);
        self.engine.set_settings(during)?;
        let ran = self.run_query_with(&query, &params, out);
        self.engine.set_settings(before)?;
        ran
    }

    /// Runs a catalog query with its `$` parameters bound.
    fn run_query_with(
        &mut self,
        query: &crate::catalog::Query,
        params: &HashMap<String, ScalarValue>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let name = query.name.as_str();
        if query.kind == QueryKind::Report || query.kind == QueryKind::Rule {
            let holds = self.runtime.block_on(self.engine.condition_holds(query))?;
            if !holds {
                let when = query.condition().unwrap_or_default();
                writeln!(
                    out,
                    "{name} does not apply to the loaded traces (its condition `{when}` is false)"
                )?;
                return Ok(());
            }
        }
        let statements = DFParser::parse_sql(&query.sql)
            .map_err(|e| ReplError(format!("{name} ({}): {}", query.origin, e)))?;
        let count = statements.len();
        for (i, statement) in statements.into_iter().enumerate() {
            let started = Instant::now();
            let state = self.engine.context().state();
            let mut plan = self
                .runtime
                .block_on(state.statement_to_plan(statement))
                .map_err(|e| ReplError::from(e).in_query(name))?;
            if !params.is_empty() {
                plan = plan
                    .with_param_values(ParamValues::from(params.clone()))
                    .map_err(|e| ReplError::from(e).in_query(name))?;
            }
            // Only the last statement's result is the query's output.
            let tag = (i + 1 == count).then(|| (query.name.clone(), query.version));
            self.run_plan(plan, started, tag, out)?;
        }
        Ok(())
    }

    fn export(&self, path: &Path, out: &mut dyn Write) -> Result<()> {
        let Some(last) = &self.last else {
            return Err(ReplError(
                "no result to export yet; run a query first".into(),
            ));
        };
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let header: Vec<String> = last
            .schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let written = match extension.as_str() {
            "csv" => atomic::write_file(path, |w| {
                if last.batches.iter().all(|b| b.num_rows() == 0) {
                    writeln!(w, "{}", header.join(","))
                } else {
                    write_batches(w, &last.batches, Format::Csv)
                        .map_err(|e| std::io::Error::other(e.to_string()))
                }
            }),
            "json" => atomic::write_file(path, |w| {
                write_batches(w, &last.batches, Format::Json)
                    .map_err(|e| std::io::Error::other(e.to_string()))
            }),
            "md" => atomic::write_file(path, |w| {
                report_csv::write_markdown(w, &header, &last.batches)
            }),
            "parquet" => {
                let metadata = parquet_metadata(last);
                parquet::write_parquet(path, &last.schema, &last.batches, &metadata)
            }
            _ => {
                return Err(ReplError(format!(
                    "{}: unknown extension; use .csv, .parquet, .json or .md",
                    path.display()
                )))
            }
        };
        written.map_err(|e| ReplError(format!("{}: cannot write: {e}", path.display())))?;
        let rows: usize = last.batches.iter().map(|b| b.num_rows()).sum();
        writeln!(out, "wrote {rows} rows to {}", path.display())?;
        Ok(())
    }

    fn read(&mut self, path: &str, out: &mut dyn Write) -> Result<Flow> {
        if self.read_depth >= MAX_READ_DEPTH {
            return Err(ReplError(format!(
                "{path}: .read nested more than {MAX_READ_DEPTH} deep"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| ReplError(format!("{path}: cannot read: {e}")))?;
        self.read_depth += 1;
        let mut first_error: Option<ReplError> = None;
        let result = self.run_script(
            text.lines().map(|l| Ok(l.to_string())),
            out,
            // A file stops at its first error, which becomes the error of `.read`.
            &mut |e: &ReplError| {
                first_error = Some(ReplError(format!("{path}: {e}")));
                false
            },
        );
        self.read_depth -= 1;
        let (_, flow) = result?;
        match first_error {
            Some(e) => Err(e),
            None => Ok(flow),
        }
    }

    /// Names for completion: tables, views, functions, their columns, queries
    /// (from the session's listing tables; empty where a listing fails).
    pub fn names(&self) -> Names {
        let texts = |batch: Option<RecordBatch>, column: &str| -> Vec<String> {
            let Some(values) = batch.as_ref().and_then(|b| b.column_by_name(column)) else {
                return Vec::new();
            };
            let values = datafusion::arrow::array::AsArray::as_string::<i32>(values.as_ref());
            let mut names: Vec<String> = values
                .iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            names.sort();
            names.dedup();
            names
        };
        let tables = self.engine.tables_listing().ok();
        let columns = self.runtime.block_on(self.engine.columns_listing(None));
        let queries = self.engine.queries_listing().ok();
        Names {
            tables: texts(tables, "name"),
            columns: texts(columns.ok(), "column_name"),
            queries: texts(queries, "name"),
        }
    }
}

impl ReplError {
    fn in_query(self, name: &str) -> Self {
        ReplError(format!("{name}: {}", self.0))
    }
}

/// Ctrl-C while a query runs. The handler is installed when the session starts,
/// so a Ctrl-C that lands between Enter and the query's start still cancels that
/// query instead of ending the process; one pressed while nothing ran (during a
/// `.load`, say) is forgotten before the next prompt.
struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    fn new(runtime: &tokio::runtime::Runtime) -> std::io::Result<Self> {
        let _guard = runtime.enter();
        #[cfg(unix)]
        {
            let kind = tokio::signal::unix::SignalKind::interrupt();
            Ok(Interrupts {
                signal: tokio::signal::unix::signal(kind)?,
            })
        }
        #[cfg(not(unix))]
        Ok(Interrupts {})
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        self.signal.recv().await;
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }

    /// Drops Ctrl-Cs that came while no query ran.
    fn forget(&mut self) {
        #[cfg(unix)]
        {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            while let std::task::Poll::Ready(Some(())) = self.signal.poll_recv(&mut cx) {}
        }
    }
}

/// A `.run` parameter: an integer, a float, else text.
fn parameter_value(text: &str) -> ScalarValue {
    if let Ok(i) = text.parse::<i64>() {
        ScalarValue::Int64(Some(i))
    } else if let Ok(f) = text.parse::<f64>() {
        ScalarValue::Float64(Some(f))
    } else {
        ScalarValue::Utf8(Some(text.to_string()))
    }
}

/// The key-value metadata of an exported result: the tracesql version, and the
/// query's name and version when it came from `.run`.
fn parquet_metadata(last: &LastResult) -> Vec<(String, String)> {
    let mut metadata = vec![(
        "tracesql.version".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
    )];
    if let Some((name, version)) = &last.query {
        metadata.push(("tracesql.query".to_string(), name.clone()));
        metadata.push(("tracesql.query_version".to_string(), version.to_string()));
    }
    metadata
}

fn only_comments(sql: &str) -> bool {
    sql.lines()
        .map(str::trim)
        .all(|l| l.is_empty() || l.starts_with("--"))
}
