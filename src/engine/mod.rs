//! The SQL session: loaded traces registered as tables in DataFusion.

mod derived_tables;
pub mod drilldown;
pub mod platform;
pub mod replay_sql;
pub mod session_catalog;
mod streamed_scan;
mod views;

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::sql::parser::DFParser;

use crate::catalog::{Catalog, Query, QueryKind};
use crate::load::{rename_trace, LoadedTrace};
use crate::model::TABLES;

/// What a command does to each new session before its traces are added
/// (platform, `--tracelens-compat`, report settings). `Sync`, so that the
/// futures holding it can run on any thread of a runtime.
pub type Prepare<'a> = dyn Fn(&Engine) -> Result<(), crate::Error> + Sync + 'a;

/// What the CLI's `--tracelens-compat`, `--set`, `--platforms` and `--platform`
/// do to every new session (and the Python package's options of the same
/// names): applied by [`SessionOptions::apply`], in that order.
#[derive(Clone, Default)]
pub struct SessionOptions {
    pub tracelens_compat: bool,
    pub settings: BTreeMap<String, String>,
    pub extra_platforms: Vec<tracesql_udfs::roofline::Platform>,
    pub platform: Option<String>,
}

impl SessionOptions {
    /// Sets up a new session: compat, settings, the extra platforms, then the
    /// chosen platform (a name no platform has is a usage error).
    pub fn apply(&self, engine: &Engine) -> Result<(), crate::Error> {
        engine.set_tracelens_compat(self.tracelens_compat);
        engine
            .set_settings(self.settings.clone())
            .map_err(crate::Error::Usage)?;
        if !self.extra_platforms.is_empty() {
            engine
                .extend_platforms(self.extra_platforms.clone())
                .map_err(crate::Error::query)?;
        }
        if let Some(name) = &self.platform {
            engine.choose_platform(name)?;
        }
        Ok(())
    }
}

/// A DataFusion session holding every loaded trace side by side, with tracesql's
/// functions and the catalog's views registered.
pub struct Engine {
    ctx: SessionContext,
    catalog: Arc<Catalog>,
    batches: BTreeMap<&'static str, Vec<RecordBatch>>,
    /// What each `events` batch holds apart, filled in by the scans (None: all
    /// in the batch).
    events_apart: Vec<Option<Arc<crate::model::EventsHeldApart>>>,
    trace_names: Vec<String>,
    platforms: Arc<platform::PlatformState>,
    /// The call trees the drill-down table functions walk.
    forest: drilldown::Forest,
    /// The default schema: tables, and the catalog's views computed on demand.
    schema: Arc<views::CatalogSchema>,
    /// Whether queries reproduce TraceLens's bugs (`--tracelens-compat`).
    tracelens_compat: std::sync::atomic::AtomicBool,
    /// Whether the session holds a comparison's tables, so that its views are
    /// registered with the others (`enable_comparison_views`).
    comparison_views: std::sync::atomic::AtomicBool,
    /// Report options given with `--set name=value` (`setting()` in SQL).
    settings: std::sync::RwLock<BTreeMap<String, String>>,
    /// The dataset whose files the tables scan, when read in place
    /// ([`Engine::over_dataset`]) instead of held in memory.
    dataset: Option<Arc<crate::dataset::Dataset>>,
    /// The run of each trace that came from a dataset with one (`trace_run()`).
    runs: BTreeMap<String, String>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// An engine with the shipped catalog and every table registered, empty.
    pub fn new() -> Self {
        // The shipped catalog is checked by tests; an invalid file is a build bug.
        let catalog = Catalog::builtin().unwrap_or_else(|e| panic!("shipped query {e}"));
        Self::with_catalog(catalog)
    }

    /// An engine using `catalog` for its views, categories, reports and rules.
    pub fn with_catalog(catalog: Catalog) -> Self {
        Self::with_memory_limit(catalog, None)
    }

    /// A session over `traces`: `prepare` sets it up first (platform,
    /// `--tracelens-compat`, report settings), then the traces are added and the
    /// catalog's views registered. What a command that reads traces works in.
    pub async fn over(
        catalog: &Catalog,
        prepare: &Prepare<'_>,
        traces: impl IntoIterator<Item = LoadedTrace>,
    ) -> Result<Engine, crate::Error> {
        let mut engine = Engine::with_catalog(catalog.clone());
        prepare(&engine)?;
        for trace in traces {
            engine.add(trace).map_err(crate::Error::query)?;
        }
        engine.register_views().await.map_err(crate::Error::query)?;
        Ok(engine)
    }

    /// A session over the dataset at `dir` read in place: every table scans the
    /// dataset's Parquet files, pruned by the query's filters on `trace` and
    /// `rank` (see [`crate::dataset`]); nothing is loaded but each trace's
    /// `trace_meta`, for its platform. The call-tree functions (`call_stack`,
    /// ...) need the trees in memory and say so.
    pub async fn over_dataset(
        catalog: &Catalog,
        prepare: &Prepare<'_>,
        dir: &str,
    ) -> Result<Engine, crate::Error> {
        let dataset = crate::dataset::Dataset::open(dir)?;
        let mut engine = Engine::with_catalog(catalog.clone());
        prepare(&engine)?;
        engine.use_dataset(dataset)?;
        engine.register_views().await.map_err(crate::Error::query)?;
        Ok(engine)
    }

    /// Makes the session's tables the scans of `dataset` (see [`over_dataset`](Self::over_dataset)).
    pub fn use_dataset(&mut self, dataset: crate::dataset::Dataset) -> Result<(), crate::Error> {
        let doc = crate::model::table_doc("trace_meta")
            .ok_or_else(|| crate::Error::Query("no trace_meta table".into()))?;
        for (i, info) in dataset.traces().enumerate() {
            let meta = dataset.read_table(i, doc)?;
            let meta =
                crate::model::cast_batch(&meta, doc.schema()).map_err(crate::Error::query)?;
            self.detect_platform(&meta).map_err(crate::Error::query)?;
            self.trace_names.push(info.name.clone());
        }
        let runs = dataset.manifest.traces.iter();
        self.set_runs(runs.filter_map(|t| Some((t.info.name.clone(), t.run.clone()?))));
        self.forest.set_unavailable(format!(
            "the call trees are not in memory when {} is read in place; load the traces \
             themselves (or the dataset with --load)",
            dataset.dir.display()
        ));
        self.dataset = Some(Arc::new(dataset));
        self.register_tables().map_err(crate::Error::query)
    }

    /// Makes the catalog's views plain DataFusion views, planned into each query
    /// instead of computed once and kept in memory: a plan that runs on a
    /// cluster must hold everything it reads (see `cluster`).
    pub fn inline_views(&self) {
        self.schema.set_inline(true);
        self.set_views();
    }

    /// The dataset the tables scan, when read in place.
    pub fn dataset(&self) -> Option<&crate::dataset::Dataset> {
        self.dataset.as_deref()
    }

    /// [`with_catalog`](Self::with_catalog), with the memory its queries' sorts,
    /// joins and aggregations may hold bounded to `bytes` (a query past it fails
    /// with a resources-exhausted error instead of growing or spilling to disk): for sessions that
    /// run SQL from an untrusted source (`tracesql mcp`).
    pub fn with_memory_limit(catalog: Catalog, bytes: Option<usize>) -> Self {
        // DATAFUSION_* environment variables tune the session (e.g.
        // DATAFUSION_EXECUTION_TARGET_PARTITIONS); ones that do not parse are ignored.
        let config = SessionConfig::from_env().unwrap_or_default();
        // No spilling either: a query past the bound fails instead of writing
        // temporary files.
        let runtime = bytes.map(|bytes| {
            datafusion::execution::runtime_env::RuntimeEnvBuilder::new()
                .with_memory_limit(bytes, 1.0)
                .with_disk_manager_builder(
                    datafusion::execution::disk_manager::DiskManagerBuilder::default()
                        .with_mode(datafusion::execution::disk_manager::DiskManagerMode::Disabled),
                )
                .build_arc()
                // Only a disk manager's setup can fail, and there is none.
                .expect("a runtime without a disk manager builds")
        });
        let ctx = match runtime {
            Some(runtime) => SessionContext::new_with_config_rt(config, runtime),
            None => SessionContext::new_with_config(config),
        };
        Self::with_context(catalog, ctx)
    }

    /// An engine working in `ctx` (a cluster client's context, whose plans run
    /// remotely): tracesql's functions, tables and the catalog's views are
    /// registered in it.
    pub fn with_context(catalog: Catalog, ctx: SessionContext) -> Self {
        let schema = Arc::new(views::CatalogSchema::default());
        schema.attach(ctx.state_weak_ref());
        schema.set_views(catalog.iter().filter(|q| q.kind.is_view()));
        install_schema(&ctx, Arc::clone(&schema) as _);
        tracesql_udfs::register_all(&ctx);
        let forest = drilldown::Forest::default();
        drilldown::register(&ctx, &forest);
        replay_sql::register(&ctx);
        let mut engine = Engine {
            ctx,
            catalog: Arc::new(catalog),
            batches: BTreeMap::new(),
            events_apart: Vec::new(),
            trace_names: Vec::new(),
            platforms: Arc::default(),
            forest,
            schema,
            tracelens_compat: Default::default(),
            comparison_views: Default::default(),
            settings: Default::default(),
            dataset: None,
            runs: BTreeMap::new(),
        };
        // Built from constant data: a failure here is a bug, not bad input.
        engine
            .platforms
            .register(&engine.ctx)
            .expect("platform tables are well-formed");
        for doc in TABLES {
            engine.batches.insert(doc.name, Vec::new());
        }
        // Every table registered, empty until a trace is added, so that views
        // plan (and `schema VIEW` describes them) in a session without traces.
        engine
            .register_tables()
            .expect("empty tables and listings register in a new session");
        // Empty until `analyze` fills it, so that `findings` plans in any session.
        engine
            .set_findings_raw(Vec::new())
            .expect("findings_raw is well-formed");
        engine
    }

    /// (Re)registers `findings_raw` holding `batches` (each of
    /// [`findings_raw_schema`](crate::catalog::rule_contract::findings_raw_schema)):
    /// the analyzer's rule rows, empty until an analysis.
    pub fn set_findings_raw(&self, batches: Vec<RecordBatch>) -> Result<(), DataFusionError> {
        use crate::catalog::rule_contract::{findings_raw_schema, FINDINGS_RAW};
        let table = MemTable::try_new(findings_raw_schema(), vec![batches])?;
        self.ctx.deregister_table(FINDINGS_RAW)?;
        self.ctx.register_table(FINDINGS_RAW, Arc::new(table))?;
        Ok(())
    }

    /// Turns TraceLens's behaviour on or off wherever DIFFERENCES.md lists a
    /// deliberate difference (`--tracelens-compat`). The queries that differ ask
    /// `tracelens_compat()`; set this before the first query of the session.
    pub fn set_tracelens_compat(&self, on: bool) {
        use std::sync::atomic::Ordering;
        self.tracelens_compat.store(on, Ordering::Relaxed);
        tracesql_udfs::compat::register(&self.ctx, on);
    }

    /// Sets the report options (`--set name=value`) that queries read with
    /// `setting(name, default)`, replacing those set before. A name may be
    /// given without its prefix where that is unambiguous (`instance` for
    /// `hta.instance`). A name no query of the catalog asks for is an error
    /// naming the ones that are asked for: a typo would else change nothing,
    /// silently. Views computed under the old values are computed again.
    pub fn set_settings(&self, values: BTreeMap<String, String>) -> Result<(), String> {
        let values = self.catalog.resolve_settings(values)?;
        tracesql_udfs::setting::register(&self.ctx, values.clone());
        *self
            .settings
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = values;
        // The planner folds setting() to a constant: plans and rows made
        // under the old values are stale.
        self.set_views();
        Ok(())
    }

    /// Sets one report option, keeping the others (`SET hta.instance = 1` in
    /// the REPL); returns its full name.
    pub fn set_setting(&self, name: &str, value: &str) -> Result<String, String> {
        let name = self.catalog.resolve_setting_name(name)?;
        let mut values = self.settings();
        values.insert(name.clone(), value.to_string());
        self.set_settings(values)?;
        Ok(name)
    }

    /// Whether `SET name = ...` is meant for a report option rather than
    /// DataFusion's configuration: a known option (full or short name), a
    /// name without a namespace (DataFusion's all have one), or one in a
    /// namespace of the options (`hta.`, `pftrace.`): so that a typo gets our
    /// error, which lists the options, rather than DataFusion's.
    pub fn is_setting(&self, name: &str) -> bool {
        let Some((namespace, _)) = name.split_once('.') else {
            return true;
        };
        self.catalog.setting_names().iter().any(|known| {
            known == name || known.split_once('.').is_some_and(|(ns, _)| ns == namespace)
        })
    }

    /// The report options given with `--set`.
    pub fn settings(&self) -> BTreeMap<String, String> {
        self.settings
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Whether the session reproduces TraceLens exactly (`--tracelens-compat`).
    pub fn tracelens_compat(&self) -> bool {
        self.tracelens_compat
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Adds or replaces platforms (`--platforms FILE`).
    pub fn extend_platforms(
        &self,
        extra: Vec<tracesql_udfs::roofline::Platform>,
    ) -> Result<(), DataFusionError> {
        self.platforms.extend(&self.ctx, extra)
    }

    /// Sets the platform roofline columns use (`--platform`, `SET platform = ...`).
    pub fn set_platform(&self, name: Option<&str>) -> Result<(), DataFusionError> {
        self.platforms.set(&self.ctx, name)
    }

    /// Chooses the platform by name, as a person gives it (`--platform`, a
    /// tool's argument): a name no platform has is a usage error.
    pub fn choose_platform(&self, name: &str) -> Result<(), crate::Error> {
        self.set_platform(Some(name)).map_err(|e| match e {
            DataFusionError::Configuration(message) => crate::Error::Usage(message),
            other => crate::Error::query(other),
        })
    }

    /// Takes the platform from a trace's `trace_meta` (its `deviceProperties`),
    /// unless one was chosen: what adding the trace does, without its tables.
    pub fn detect_platform(&self, trace_meta: &RecordBatch) -> Result<(), DataFusionError> {
        match platform::meta_value(trace_meta, "deviceProperties") {
            Some(devices) => self.platforms.detect(&self.ctx, &devices),
            None => Ok(()),
        }
    }

    /// Every platform the session knows (built-in plus `--platforms`).
    pub fn platform_list(&self) -> Arc<Vec<tracesql_udfs::roofline::Platform>> {
        self.platforms.list()
    }

    /// The session's platform, if one is set or was detected from a trace.
    pub fn platform(&self) -> Option<String> {
        self.platforms.current()
    }

    /// Why the session has its platform, or none (one line).
    pub fn platform_reason(&self) -> String {
        self.platforms.reason()
    }

    /// "H100 (deviceProperties name 'NVIDIA H100 80GB HBM3')", or "none (why)":
    /// the line reports and analyses print.
    pub fn platform_line(&self) -> String {
        let reason = self.platform_reason();
        match self.platform() {
            Some(platform) => format!("{platform} ({reason})"),
            None => format!("none ({reason})"),
        }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The rows of `sql` as a sheet named `name` (query name too): its header
    /// from the plan, so an empty result keeps its columns.
    pub async fn sheet(
        &self,
        name: &str,
        sql: &str,
    ) -> Result<crate::output::Sheet, DataFusionError> {
        let frame = self.ctx.sql(sql).await?;
        let header = frame
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let batches = frame.collect().await?;
        Ok(crate::output::Sheet {
            sheet: name.to_string(),
            query_name: name.to_string(),
            header,
            batches,
            ..Default::default()
        })
    }

    pub fn trace_names(&self) -> &[String] {
        &self.trace_names
    }

    /// Adds a trace; a name already in use gets a `#2`, `#3`, ... suffix.
    pub fn add(&mut self, mut trace: LoadedTrace) -> Result<String, DataFusionError> {
        let base = trace.name.clone();
        let mut k = 1;
        while self.trace_names.contains(&trace.name) {
            k += 1;
            trace.name = format!("{base}#{k}");
        }
        let mut tree_tables: BTreeMap<&str, RecordBatch> = BTreeMap::new();
        for (table, batch) in trace.tables {
            let batch = if trace.name != base {
                rename_trace(&batch, &trace.name)?
            } else {
                batch
            };
            if matches!(table, "events" | "kernels") {
                tree_tables.insert(table, batch.clone());
            }
            if crate::model::DERIVED.contains(&table) {
                // Derived from events and kernels when read (see derived_tables).
                continue;
            }
            if table == "trace_meta" {
                self.detect_platform(&batch)?;
            }
            if table == "events" {
                self.events_apart.push(trace.events_apart.clone());
            }
            self.batches.entry(table).or_default().push(batch);
        }
        let mut tree_table = |name: &str| {
            tree_tables.remove(name).ok_or_else(|| {
                DataFusionError::Plan(format!("trace {}: no {name} table", trace.name))
            })
        };
        let (events, kernels) = (tree_table("events")?, tree_table("kernels")?);
        self.forest.add(&trace.name, events, kernels);
        self.trace_names.push(trace.name.clone());
        if let Some(run) = &trace.run {
            self.set_runs([(trace.name.clone(), run.clone())]);
        }
        self.register_tables()?;
        Ok(trace.name)
    }

    /// Records each (trace, run) pair for `trace_run()`, registered once for
    /// all of them (a dataset may hold thousands of traces).
    fn set_runs(&mut self, runs: impl IntoIterator<Item = (String, String)>) {
        let before = self.runs.len();
        self.runs.extend(runs);
        if self.runs.len() != before {
            tracesql_udfs::trace_run::register(&self.ctx, self.runs.clone());
        }
    }

    fn register_tables(&self) -> Result<(), DataFusionError> {
        if let Some(dataset) = &self.dataset {
            for doc in TABLES {
                self.ctx.deregister_table(doc.name)?;
                self.ctx
                    .register_table(doc.name, Arc::new(dataset.table(doc)))?;
            }
            return self.register_listings();
        }
        for doc in TABLES {
            let batches = self.batches.get(doc.name).cloned().unwrap_or_default();
            let table: Arc<dyn datafusion::catalog::TableProvider> = match doc.name {
                "events" => {
                    let traces = batches.into_iter().zip(self.events_apart.iter().cloned());
                    Arc::new(derived_tables::events(doc.schema(), traces.collect())?)
                }
                "ops" => Arc::new(derived_tables::ops(doc.schema(), batches)),
                "tree_edges" => Arc::new(derived_tables::tree_edges(
                    doc.schema(),
                    self.batches.get("events").cloned().unwrap_or_default(),
                )),
                "kernel_ancestors" => Arc::new(derived_tables::kernel_ancestors(
                    doc.schema(),
                    self.trace_trees(),
                )),
                _ => Arc::new(MemTable::try_new(doc.schema(), vec![batches])?),
            };
            self.ctx.deregister_table(doc.name)?;
            self.ctx.register_table(doc.name, table)?;
        }
        self.register_listings()
    }

    /// (Re)registers the `tracesql_*` listing tables over the current tables.
    fn register_listings(&self) -> Result<(), DataFusionError> {
        let facts = Arc::new(self.facts());
        for (name, table) in session_catalog::listing_tables(facts) {
            self.ctx.deregister_table(name)?;
            self.ctx.register_table(name, Arc::new(table))?;
        }
        Ok(())
    }

    /// What the listings describe: the catalog, the tables as now registered
    /// (counted only when a listing is read) and the session's schema.
    fn facts(&self) -> session_catalog::SessionFacts {
        session_catalog::SessionFacts {
            catalog: Arc::clone(&self.catalog),
            rows: self.row_counts(),
            schema: Arc::downgrade(&self.schema),
        }
    }

    /// `tracesql_tables` as a batch: what `.tables` prints.
    pub fn tables_listing(&self) -> Result<RecordBatch, DataFusionError> {
        session_catalog::tables_batch(&self.facts().tables())
    }

    /// `tracesql_columns` of one table, view or function (or of all): what
    /// `schema` and `.schema` print. An unknown name is an error.
    pub async fn columns_listing(
        &self,
        table: Option<&str>,
    ) -> Result<RecordBatch, DataFusionError> {
        session_catalog::columns_batch(&self.facts().columns(table).await?)
    }

    /// `tracesql_queries` as a batch: what `.queries` prints.
    pub fn queries_listing(&self) -> Result<RecordBatch, DataFusionError> {
        session_catalog::queries_batch(&self.catalog)
    }

    /// `tracesql_functions` as a batch: what `.help` prints.
    pub fn functions_listing(&self) -> Result<RecordBatch, DataFusionError> {
        let functions = session_catalog::added_functions(&self.ctx.state());
        session_catalog::functions_batch(&functions)
    }

    /// Makes the catalog's views and categories available over the current
    /// tables, forgetting rows computed before.
    ///
    /// Nothing is planned here: a view is planned when a query first names it and
    /// computed once, when first read (see [`views`]); a table registered later
    /// makes the views reading it compute again. So this is cheap, and a view with
    /// an error fails the queries that use it, naming its file.
    pub async fn register_views(&self) -> Result<(), DataFusionError> {
        self.set_views();
        Ok(())
    }

    /// Adds the catalog's comparison views (`-- kind: comparison`) to the
    /// session's views: for a session holding two sides' reports (`compare`).
    pub fn enable_comparison_views(&self) {
        use std::sync::atomic::Ordering;
        self.comparison_views.store(true, Ordering::Relaxed);
        self.set_views();
    }

    /// The catalog's views (and its comparison views, once enabled) as the
    /// session's lazy views.
    fn set_views(&self) {
        use std::sync::atomic::Ordering;
        let comparison = self.comparison_views.load(Ordering::Relaxed);
        self.schema.set_views(
            self.catalog
                .iter()
                .filter(|q| q.kind.is_view() || (comparison && q.kind == QueryKind::Comparison)),
        );
    }

    /// Plans every view of the catalog (what `register_views` used to do up
    /// front): the first error, naming the view's file, if one does not plan.
    pub async fn check_views(&self) -> Result<(), DataFusionError> {
        for query in self.catalog.iter().filter(|q| q.kind.is_view()) {
            self.ctx.table_provider(query.name.as_str()).await?;
        }
        Ok(())
    }

    /// Evaluates a query's `-- when:` condition (true when it has none).
    pub async fn condition_holds(&self, query: &Query) -> Result<bool, DataFusionError> {
        self.runner().condition_holds(query).await
    }

    /// A handle that runs SQL in this session from another task (reports run
    /// side by side on the runtime's threads).
    pub fn runner(&self) -> SqlRunner {
        SqlRunner {
            ctx: self.ctx.clone(),
            platforms: Arc::clone(&self.platforms),
        }
    }

    /// Runs the session's queries on one partition each until the guard drops,
    /// unless DATAFUSION_EXECUTION_TARGET_PARTITIONS chose a number: for queries
    /// that run side by side (the reports), where splitting each one across the
    /// cores only adds repartitioning work (`report --out` 0.66 s → 0.51 s on the
    /// largest conformance trace, 2 cores).
    pub fn one_partition_per_query(&self) -> PartitionsGuard<'_> {
        let chosen = std::env::var_os("DATAFUSION_EXECUTION_TARGET_PARTITIONS").is_some();
        let before = (!chosen).then(|| self.set_target_partitions(1));
        PartitionsGuard {
            engine: self,
            before,
        }
    }

    /// Sets the session's target partitions; returns the previous number.
    fn set_target_partitions(&self, partitions: usize) -> usize {
        let state = self.ctx.state_ref();
        let mut state = state.write();
        let options = state.config_mut().options_mut();
        std::mem::replace(&mut options.execution.target_partitions, partitions)
    }

    /// The views `text` names. See [`views::CatalogSchema::views_named_in`].
    pub fn views_named_in(&self, text: &str) -> Vec<String> {
        self.schema.views_named_in(text)
    }

    /// Forgets the rows of every computed view that SQL naming the views
    /// `named` does not need; returns their names. See
    /// [`views::CatalogSchema::release_views_except`].
    pub fn release_views_except(&self, named: &[&str]) -> Vec<String> {
        self.schema.release_views_except(named)
    }

    /// Row count of a registered table.
    pub fn row_count(&self, table: &str) -> usize {
        self.row_counts().count(table)
    }

    /// What row counts are computed from (cheap: the batches are shared).
    fn row_counts(&self) -> derived_tables::RowCounts {
        derived_tables::RowCounts {
            batches: self.batches.clone(),
            trees: self.trace_trees(),
            counted: self.dataset.as_ref().map(|d| Arc::new(d.row_counts())),
        }
    }

    /// Each trace's events and kernels, which `kernel_ancestors` is derived from.
    fn trace_trees(&self) -> Vec<derived_tables::TraceTree> {
        let batches = |table: &str| self.batches.get(table).cloned().unwrap_or_default();
        let (events, kernels) = (batches("events"), batches("kernels"));
        let names = self.trace_names.iter().cloned();
        let trees = names.zip(events).zip(kernels);
        trees
            .map(|((name, events), kernels)| derived_tables::TraceTree {
                name,
                events,
                kernels,
            })
            .collect()
    }

    /// Runs every statement in `sql` and returns the result of each.
    pub async fn run_sql(&self, sql: &str) -> Result<Vec<Vec<RecordBatch>>, DataFusionError> {
        self.runner().run_sql(sql).await
    }

    /// [`run_sql`](Self::run_sql), each result with its schema.
    pub async fn run_sql_with_schemas(
        &self,
        sql: &str,
    ) -> Result<Vec<(SchemaRef, Vec<RecordBatch>)>, DataFusionError> {
        self.runner().run_sql_with_schemas(sql).await
    }
}

/// Restores the session's target partitions when dropped (see
/// [`Engine::one_partition_per_query`]).
pub struct PartitionsGuard<'a> {
    engine: &'a Engine,
    before: Option<usize>,
}

impl Drop for PartitionsGuard<'_> {
    fn drop(&mut self) {
        if let Some(partitions) = self.before {
            self.engine.set_target_partitions(partitions);
        }
    }
}

/// Runs SQL in an engine's session; cheap to clone and `'static`, so that a task
/// spawned on the runtime can own one.
#[derive(Clone)]
pub struct SqlRunner {
    ctx: SessionContext,
    platforms: Arc<platform::PlatformState>,
}

impl SqlRunner {
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// Evaluates a query's `-- when:` condition (true when it has none).
    pub async fn condition_holds(&self, query: &Query) -> Result<bool, DataFusionError> {
        match query.condition() {
            Some(condition) => self.sql_condition_holds(&condition, &query.origin).await,
            None => Ok(true),
        }
    }

    /// Whether `condition` (one SQL boolean, from the query at `origin`) holds.
    pub async fn sql_condition_holds(
        &self,
        condition: &str,
        origin: &impl std::fmt::Display,
    ) -> Result<bool, DataFusionError> {
        self.one_boolean(&format!("SELECT {condition}"))
            .await?
            .ok_or_else(|| {
                DataFusionError::Plan(format!("{origin}: `-- when:` must be one boolean"))
            })
    }

    /// The value of a query returning one non-NULL boolean; None when it returns
    /// anything else.
    pub async fn one_boolean(&self, sql: &str) -> Result<Option<bool>, DataFusionError> {
        let results = self.run_sql(sql).await?;
        let batch = results.into_iter().flatten().next();
        Ok(batch.and_then(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<datafusion::arrow::array::BooleanArray>()
                .filter(|a| a.len() == 1 && a.is_valid(0))
                .map(|a| a.value(0))
        }))
    }

    /// Evaluates a report's `-- empty_text:` expression: the text its file holds
    /// when the sheet has no rows (None: no such header, or it gives NULL).
    pub async fn empty_text(&self, query: &Query) -> Result<Option<String>, DataFusionError> {
        use datafusion::arrow::array::AsArray;
        use datafusion::arrow::compute::cast;
        use datafusion::arrow::datatypes::DataType;
        let Some(expression) = query.extra.get("empty_text") else {
            return Ok(None);
        };
        let results = self
            .run_sql(&format!("SELECT CAST(({expression}) AS VARCHAR)"))
            .await?;
        let batch = results.into_iter().flatten().next();
        // VARCHAR may plan as any string flavour: read it as Utf8.
        let column = batch
            .as_ref()
            .filter(|b| b.num_rows() == 1)
            .and_then(|b| cast(b.column(0), &DataType::Utf8).ok());
        match column.as_ref().and_then(|c| c.as_string_opt::<i32>()) {
            Some(text) => Ok(text.is_valid(0).then(|| text.value(0).to_string())),
            None => Err(DataFusionError::Plan(format!(
                "{}: `-- empty_text:` must be one text value",
                query.origin
            ))),
        }
    }

    /// Runs every statement in `sql` and returns the result of each.
    pub async fn run_sql(&self, sql: &str) -> Result<Vec<Vec<RecordBatch>>, DataFusionError> {
        let results = self.run_sql_with_schemas(sql).await?;
        Ok(results.into_iter().map(|(_, batches)| batches).collect())
    }

    /// [`run_sql`](Self::run_sql), each result with its schema (known even when
    /// it has no rows; empty for a statement without results such as `SET`).
    pub async fn run_sql_with_schemas(
        &self,
        sql: &str,
    ) -> Result<Vec<(SchemaRef, Vec<RecordBatch>)>, DataFusionError> {
        let statements = DFParser::parse_sql(sql)?;
        if statements.is_empty() {
            return Err(DataFusionError::Plan("no SQL statement given".into()));
        }
        let state = self.ctx.state();
        let mut results = Vec::new();
        for statement in statements {
            // `SET platform = 'NAME'` is ours, not a DataFusion setting.
            if let Some(name) = platform_set_by(&statement) {
                self.platforms.set(&self.ctx, name.as_deref())?;
                results.push((Arc::new(Schema::empty()), Vec::new()));
                continue;
            }
            let plan = state.statement_to_plan(statement).await?;
            let frame = self.ctx.execute_logical_plan(plan).await?;
            let schema = frame.schema().inner().clone();
            results.push((schema, frame.collect().await?));
        }
        Ok(results)
    }
}

/// The platform a `SET platform = 'NAME'` statement sets (`Some(None)`: none),
/// or None for any other statement: the one place that tells ours from
/// DataFusion's settings (the engine's runner and the REPL both ask it).
pub fn platform_set_by(statement: &datafusion::sql::parser::Statement) -> Option<Option<String>> {
    // Only SET statements are rendered back to text to check: rendering a
    // report's whole query costs more than planning some of them.
    is_set(statement)
        .then(|| platform::parse_set_platform(&statement.to_string()))
        .flatten()
}

/// The report option and value a `SET NAME = VALUE` statement gives, when
/// NAME is one of `engine`'s settings (`hta.instance`, or `instance` where
/// unambiguous); None for any other statement, DataFusion's SETs included.
pub fn setting_set_by(
    engine: &Engine,
    statement: &datafusion::sql::parser::Statement,
) -> Option<(String, String)> {
    is_set(statement)
        .then(|| platform::parse_set(&statement.to_string()))
        .flatten()
        .filter(|(name, _)| !name.eq_ignore_ascii_case("platform") && engine.is_setting(name))
}

/// Whether a parsed statement is a `SET ...`.
fn is_set(statement: &datafusion::sql::parser::Statement) -> bool {
    use datafusion::sql::parser::Statement as DfStatement;
    use datafusion::sql::sqlparser::ast::Statement;
    matches!(statement, DfStatement::Statement(s) if matches!(**s, Statement::Set(_)))
}

/// Makes `schema` the session's default schema (`datafusion.public`).
fn install_schema(ctx: &SessionContext, schema: Arc<dyn datafusion::catalog::SchemaProvider>) {
    let state = ctx.state();
    let names = &state.config_options().catalog;
    // The default catalog always exists in a new session.
    if let Some(catalog) = ctx.catalog(&names.default_catalog) {
        let _ = catalog.register_schema(&names.default_schema, schema);
    }
}
