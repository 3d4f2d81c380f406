//! [`Session`]: traces opened once, queried many times; and the options every
//! engine session of a Python call is prepared with.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use tracesql::catalog::{Catalog, QueryKind};
use tracesql::engine::{Engine, SessionOptions};
use tracesql::load::{LoadedTrace, TraceInfo};

use crate::analysis::Analysis;
use crate::blocking::{self, blocking};
use crate::errors::{self, Failure};
use crate::result::QueryResult;

/// The shipped query catalog, read once per process (at import, see
/// [`warm_up`]) and cloned for each session: its SQL files are parsed once,
/// not at every `open()`.
pub fn builtin_catalog() -> Result<Catalog, Failure> {
    static BUILTIN: std::sync::OnceLock<Result<Catalog, String>> = std::sync::OnceLock::new();
    BUILTIN
        .get_or_init(|| Catalog::builtin().map_err(|e| e.to_string()))
        .clone()
        .map_err(errors::usage)
}

/// What `import tracesql` does once, so that no call pays it: the catalog is
/// read. (The runtime's threads start at the first call, not at import: a
/// process that imports and forks has no threads to lose.)
pub fn warm_up() -> PyResult<()> {
    builtin_catalog()?;
    Ok(())
}

/// What the CLI's `--platform`, `--platforms`, `--tracelens-compat` and
/// `--queries` set: applied to each engine session a call makes.
#[derive(Clone)]
pub struct Options {
    pub catalog: Catalog,
    /// Applied by the library, as the CLI applies its own.
    pub session: SessionOptions,
}

impl Options {
    /// Reads the files the options name (a platforms file, a queries folder).
    pub fn read(
        platform: Option<String>,
        tracelens_compat: bool,
        platforms_file: Option<PathBuf>,
        queries: Option<PathBuf>,
    ) -> Result<Self, Failure> {
        let catalog = match &queries {
            Some(dir) => Catalog::with_user_dir(dir).map_err(|e| errors::usage(e.to_string()))?,
            None => builtin_catalog()?,
        };
        let extra_platforms = match &platforms_file {
            Some(file) => {
                tracesql::engine::platform::read_platforms_file(file).map_err(errors::usage)?
            }
            None => Vec::new(),
        };
        let session = SessionOptions {
            tracelens_compat,
            extra_platforms,
            platform,
            ..SessionOptions::default()
        };
        let options = Options { catalog, session };
        // An unknown platform is an error now, not at the first query (the
        // sessions made later are prepared with the same options).
        if options.session.platform.is_some() || !options.session.extra_platforms.is_empty() {
            options.prepare(&Engine::with_catalog(options.catalog.clone()))?;
        }
        Ok(options)
    }

    /// Sets up a new engine session as the CLI's options would.
    pub fn prepare(&self, engine: &Engine) -> Result<(), tracesql::Error> {
        self.session.apply(engine)
    }

    /// These options with another platform (None: keep this one).
    pub fn with_platform(&self, platform: Option<String>) -> Options {
        let mut options = self.clone();
        if platform.is_some() {
            options.session.platform = platform;
        }
        options
    }
}

/// One trace of a session, and where it came from.
pub struct Opened {
    pub trace: LoadedTrace,
    /// The file or export directory it was read from.
    pub source: String,
    /// Its provenance as an export's manifest records it; None for a trace
    /// file, described (hashed) only when exported.
    pub info: Option<TraceInfo>,
}

struct Inner {
    options: Options,
    opened: Vec<Opened>,
    /// Every trace: where `sql` runs (and, with one trace, everything else).
    all: Arc<Engine>,
    /// A session per trace for reports and analysis when there are several,
    /// made at first use.
    per_trace: Mutex<HashMap<String, Arc<Engine>>>,
}

impl Inner {
    /// The opened trace `name` names, or the only one.
    fn opened(&self, name: Option<&str>) -> Result<&Opened, Failure> {
        let names = || self.names().join(", ");
        match (name, self.opened.as_slice()) {
            (None, [only]) => Ok(only),
            (None, _) => Err(errors::usage(format!(
                "the session has several traces: name one with trace= ({})",
                names()
            ))),
            (Some(name), _) => self
                .opened
                .iter()
                .find(|o| o.trace.name == name)
                .ok_or_else(|| {
                    errors::usage(format!("no trace named '{name}' (open: {})", names()))
                }),
        }
    }

    /// The input formats of the session's traces (`kineto`, `rocprofv3`, ...).
    fn formats(&self) -> Vec<String> {
        let mut formats = Vec::new();
        for o in &self.opened {
            let meta = o.trace.table("trace_meta");
            let format =
                meta.and_then(|m| tracesql::engine::platform::meta_value(m, "source_format"));
            // trace_meta values are JSON: the format is a JSON string.
            if let Some(format) = format.map(|f| f.trim_matches('"').to_string()) {
                if !formats.contains(&format) {
                    formats.push(format);
                }
            }
        }
        formats
    }

    fn names(&self) -> Vec<String> {
        self.opened.iter().map(|o| o.trace.name.clone()).collect()
    }

    /// The engine session of one trace: the shared one when it is the only trace.
    async fn engine_of(&self, name: Option<&str>) -> Result<Arc<Engine>, Failure> {
        let opened = self.opened(name)?;
        if self.opened.len() == 1 {
            return Ok(self.all.clone());
        }
        let key = opened.trace.name.clone();
        if let Some(engine) = self.cached(&key) {
            return Ok(engine);
        }
        let prepare = |engine: &Engine| self.options.prepare(engine);
        let engine = Engine::over(&self.options.catalog, &prepare, [opened.trace.clone()]).await?;
        let engine = Arc::new(engine);
        if let Ok(mut cache) = self.per_trace.lock() {
            cache.insert(key, engine.clone());
        }
        Ok(engine)
    }

    fn cached(&self, key: &str) -> Option<Arc<Engine>> {
        self.per_trace.lock().ok()?.get(key).cloned()
    }
}

/// A session over one or many traces: open it with `tracesql.open(...)`.
///
/// `sql()` sees every trace at once (the `trace` column tells them apart), with
/// the same tables, views and functions as the CLI (`tables()`, `describe()`).
/// `report()` and `analyze()` work on one trace: name it with `trace=` when the
/// session has several.
#[pyclass(name = "Session", module = "tracesql", frozen)]
pub struct Session {
    inner: Arc<Inner>,
}

/// Loads `paths` (directories and patterns expanded, export directories
/// read from Parquet) and opens a session over them.
pub async fn open_session(
    paths: Vec<String>,
    names: Option<Vec<String>>,
    options: Options,
) -> Result<Session, Failure> {
    if paths.is_empty() {
        return Err(errors::usage("open() needs at least one trace"));
    }
    let files = tracesql::collectives::resolve_inputs(&paths)?;
    let reading = files.clone();
    let loaded = blocking(move || {
        let mut opened = Vec::new();
        // Side by side, as the CLI loads several traces; then matched to their files.
        for (path, traces) in reading.iter().zip(load_each(&reading)?) {
            opened.extend(traces.into_iter().map(|(trace, info)| Opened {
                trace,
                source: path.clone(),
                info,
            }));
        }
        Ok(opened)
    })
    .await?;
    let mut opened = rename(loaded, names)?;
    let mut all = Engine::with_catalog(options.catalog.clone());
    options.prepare(&all)?;
    for o in &mut opened {
        let name = all.add(o.trace.clone()).map_err(errors::query)?;
        // A repeated name got `#2`, `#3`, ... in the session: so does the trace.
        if name != o.trace.name {
            o.trace = o.trace.clone().renamed(&name).map_err(errors::query)?;
        }
    }
    all.register_views().await.map_err(errors::query)?;
    Ok(Session {
        inner: Arc::new(Inner {
            options,
            opened,
            all: Arc::new(all),
            per_trace: Mutex::new(HashMap::new()),
        }),
    })
}

/// A trace and the provenance its export recorded (None: a trace file).
type Described = (LoadedTrace, Option<TraceInfo>);

/// Each path's traces, with the provenance an export records. Trace files
/// load side by side (one per core at most), as the CLI loads several; an
/// export directory may hold several traces.
fn load_each(paths: &[String]) -> Result<Vec<Vec<Described>>, Failure> {
    let exports = paths
        .iter()
        .any(|p| tracesql::load::reopen::is_directory(p));
    if exports {
        let mut each = Vec::new();
        for path in paths {
            let traces = match tracesql::load::reopen::is_directory(path) {
                true => tracesql::load::reopen::read_export(path)?
                    .into_iter()
                    .map(|(trace, info)| (trace, Some(info)))
                    .collect(),
                false => vec![(tracesql::load::load_trace(path)?, None)],
            };
            each.push(traces);
        }
        return Ok(each);
    }
    let traces = tracesql::load::load_inputs(paths)?;
    Ok(traces.into_iter().map(|t| vec![(t, None)]).collect())
}

/// The traces renamed to `names` (one name per trace, in order).
fn rename(opened: Vec<Opened>, names: Option<Vec<String>>) -> Result<Vec<Opened>, Failure> {
    let Some(names) = names else {
        return Ok(opened);
    };
    if names.len() != opened.len() {
        return Err(errors::usage(format!(
            "names= gives {} names for {} traces",
            names.len(),
            opened.len()
        )));
    }
    opened
        .into_iter()
        .zip(names)
        .map(|(o, name)| {
            let trace = o.trace.renamed(&name).map_err(errors::query)?;
            Ok(Opened { trace, ..o })
        })
        .collect()
}

/// Runs every statement of `sql` in `engine`; the last statement's result.
pub async fn run_sql(engine: &Engine, sql: &str) -> Result<QueryResult, Failure> {
    let mut results = engine
        .run_sql_with_schemas(sql)
        .await
        .map_err(errors::query)?;
    let (schema, batches) = results
        .pop()
        .ok_or_else(|| errors::usage("no SQL statement given"))?;
    Ok(QueryResult::new(schema, batches, None))
}

impl Session {
    pub fn opened(&self, name: Option<&str>) -> Result<&Opened, Failure> {
        self.inner.opened(name)
    }
}

#[pymethods]
impl Session {
    /// Runs SQL over every trace of the session and returns the last
    /// statement's result. The tables, views, UDFs (perf models, roofline) and
    /// table functions (`call_stack(uid)`, `kernels_of(uid)`, `subtree(uid)`)
    /// are the CLI's; `SET platform = 'H100'` works as in the REPL.
    fn sql(&self, py: Python<'_>, query: String) -> PyResult<QueryResult> {
        let inner = self.inner.clone();
        blocking::run(py, async move { run_sql(&inner.all, &query).await })
    }

    /// The tables, views and table functions, with their row counts and docs.
    fn tables(&self) -> PyResult<QueryResult> {
        let listing = self
            .inner
            .all
            .tables_listing()
            .map_err(|e| PyErr::from(errors::query(e)))?;
        Ok(QueryResult::new(listing.schema(), vec![listing], None))
    }

    /// The columns of one table, view or table function, with their docs.
    fn describe(&self, py: Python<'_>, name: String) -> PyResult<QueryResult> {
        let inner = self.inner.clone();
        blocking::run(py, async move {
            let name = name.trim().to_ascii_lowercase();
            let listing = inner
                .all
                .columns_listing(Some(&name))
                .await
                .map_err(|_| errors::usage(format!("unknown table '{name}' (see tables())")))?;
            Ok(QueryResult::new(
                listing.schema(),
                vec![listing],
                Some(name),
            ))
        })
    }

    /// The names of the reports for the session's trace formats (TraceLens's
    /// sheet names), in the order `tracesql report --out` writes them. A
    /// report may still be empty or absent for a trace without the ops it
    /// reads (no convolution, no attention).
    fn reports(&self) -> Vec<String> {
        let formats = self.inner.formats();
        let mut names: Vec<String> = Vec::new();
        for query in self.inner.options.catalog.of_kind(QueryKind::Report) {
            if !query
                .formats()
                .iter()
                .any(|f| formats.iter().any(|g| g == f))
            {
                continue;
            }
            let sheet = query.sheet().to_string();
            if !names.contains(&sheet) {
                names.push(sheet);
            }
        }
        names
    }

    /// One report of one trace (`trace=` when the session has several): the
    /// rows `tracesql report --out` writes to `<name>.csv`.
    #[pyo3(signature = (name, trace=None))]
    fn report(&self, py: Python<'_>, name: String, trace: Option<String>) -> PyResult<QueryResult> {
        let catalog = &self.inner.options.catalog;
        if tracesql::report::selected_reports(catalog, Some(std::slice::from_ref(&name))).is_err() {
            return Err(errors::usage(format!(
                "unknown report '{name}'; the reports: {}",
                self.reports().join(", ")
            ))
            .into());
        }
        let inner = self.inner.clone();
        blocking::run(py, async move {
            let engine = inner.engine_of(trace.as_deref()).await?;
            // As `tracesql report` runs them: one partition per query (a report's
            // plan is then smaller and its rows come in the CLI's order).
            let _partitions = engine.one_partition_per_query();
            let sheets =
                tracesql::report::run_reports(&engine, Some(std::slice::from_ref(&name))).await?;
            let sheet = sheets.first().ok_or_else(|| {
                errors::usage(format!(
                    "the report '{name}' does not apply to this trace (its format or content)"
                ))
            })?;
            Ok(QueryResult::of_sheet(sheet))
        })
    }

    /// The prioritized analysis of one trace (`tracesql analyze`): findings,
    /// recommendations, the Markdown report and, in Jupyter, its charts.
    #[pyo3(signature = (trace=None, platform=None))]
    fn analyze(
        &self,
        py: Python<'_>,
        trace: Option<String>,
        platform: Option<String>,
    ) -> PyResult<Analysis> {
        let inner = self.inner.clone();
        blocking::run(py, async move {
            let engine = match &platform {
                None => inner.engine_of(trace.as_deref()).await?,
                Some(_) => {
                    let opened = inner.opened(trace.as_deref())?;
                    let options = inner.options.with_platform(platform.clone());
                    let prepare = |engine: &Engine| options.prepare(engine);
                    let engine =
                        Engine::over(&options.catalog, &prepare, [opened.trace.clone()]).await?;
                    Arc::new(engine)
                }
            };
            let analysis = tracesql::analyze::analyze(&engine).await?;
            Analysis::new(analysis)
        })
    }

    /// Writes every table and report of the session's traces as a Parquet
    /// dataset in `directory` (what `tracesql export --parquet` writes; the
    /// directory opens again with `tracesql.open(directory)`). Secret-looking
    /// trace metadata is redacted unless `redact=False`. Returns the manifest.
    #[pyo3(signature = (directory, redact=true))]
    fn export<'py>(
        &self,
        py: Python<'py>,
        directory: PathBuf,
        redact: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        let manifest = blocking::run(py, async move {
            let mut traces = Vec::new();
            for o in &inner.opened {
                traces.push((o.trace.clone(), info_of(o)?));
            }
            let prepare = |engine: &Engine| inner.options.prepare(engine);
            let options = tracesql::export::ExportOptions {
                redact,
                prepare: Some(&prepare),
                ..Default::default()
            };
            let manifest = tracesql::export::export_loaded(
                traces,
                &directory,
                &inner.options.catalog,
                &options,
            )
            .await?;
            serde_json::to_string(&manifest)
                .map_err(|e| Failure::Engine(tracesql::Error::Output(e.to_string())))
        })?;
        py.import("json")?.getattr("loads")?.call1((manifest,))
    }

    /// The names of the session's traces (the `trace` column's values).
    #[getter]
    fn traces(&self) -> Vec<String> {
        self.inner.names()
    }

    /// The platform the roofline columns use (given, or detected from the
    /// trace's GPU), or None.
    #[getter]
    fn platform(&self) -> Option<String> {
        self.inner.all.platform()
    }

    fn __repr__(&self) -> String {
        let traces: Vec<String> = self
            .inner
            .opened
            .iter()
            .map(|o| {
                format!(
                    "{} ({} events, {} kernels)",
                    o.trace.name,
                    o.trace.row_count("events"),
                    o.trace.row_count("kernels")
                )
            })
            .collect();
        format!(
            "<tracesql.Session: {}; {}>",
            traces.join(", "),
            self.inner.all.platform_line()
        )
    }
}

/// The provenance an export records for an opened trace: its export's, or
/// its file's (hashed now); named as the session names it.
fn info_of(opened: &Opened) -> Result<TraceInfo, Failure> {
    let mut info = match &opened.info {
        Some(info) => info.clone(),
        None => tracesql::load::describe(&opened.source, &opened.trace)?,
    };
    info.name = opened.trace.name.clone();
    Ok(info)
}
