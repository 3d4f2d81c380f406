//! The catalog's views: planned when a query first names them, computed once
//! when first read, and kept.
//!
//! Reports, rules and REPL queries read the same few views (`launchers`,
//! `perf_metrics`, `unified_perf_events`, ...) again and again, and views read
//! each other. DataFusion's own views are inlined into every query that names
//! them, so each report would plan and compute its whole view chain anew, and
//! creating every view up front plans all of them even for `tracesql tables`.
//!
//! [`CatalogSchema`] is the session's default schema instead: registered tables as
//! usual, plus every view and category of the catalog as a [`LazyView`]: planned
//! on first reference, its rows computed on first scan and then served from
//! memory. Registering or dropping a table forgets the plan and rows of every
//! view that reads it, directly or through other views, so a view never shows
//! rows of a table that has since changed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock, Weak};

use async_trait::async_trait;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::SchemaProvider;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::sql::parser::DFParser;
use datafusion::sql::resolve::resolve_table_references;
use tokio::sync::OnceCell;

use crate::catalog::Query;

/// The session's default schema: registered tables plus the catalog's views.
#[derive(Debug, Default)]
pub struct CatalogSchema {
    tables: RwLock<HashMap<String, Arc<dyn TableProvider>>>,
    views: RwLock<BTreeMap<String, Arc<ViewSlot>>>,
    /// Views that read themselves, directly or through other views; found from
    /// the SQL text on the first view planned (None until then).
    cyclic: Mutex<Option<Arc<HashSet<String>>>>,
    /// The session the views are planned in (set once, after the session exists).
    state: RwLock<Option<Weak<parking_lot::RwLock<SessionState>>>>,
    /// Whether a view is given to queries as its plan (inlined, computed in each
    /// query) rather than as rows computed once.
    inline: std::sync::atomic::AtomicBool,
}

/// One catalog view: its definition and, once planned, the planned view.
#[derive(Debug)]
struct ViewSlot {
    definition: ViewDefinition,
    planned: OnceCell<Arc<LazyView>>,
    /// The views its SQL names ([`views_named`]), found once when asked.
    named: std::sync::OnceLock<Vec<String>>,
}

#[derive(Debug, Clone)]
struct ViewDefinition {
    name: String,
    sql: String,
    /// Where the SQL came from, for error messages.
    origin: String,
    /// `-- cluster: in process`: on a cluster, computed once in this process
    /// and its rows shipped with the plans that read it (see [`LazyView::plan`]).
    in_process: bool,
}

impl CatalogSchema {
    /// Lets the schema plan views in the session behind `state`.
    pub fn attach(&self, state: Weak<parking_lot::RwLock<SessionState>>) {
        *write(&self.state) = Some(state);
    }

    /// Whether views are inlined into the queries that read them.
    pub fn set_inline(&self, inline: bool) {
        self.inline
            .store(inline, std::sync::atomic::Ordering::Relaxed);
    }

    /// Makes `queries` (views and categories) the schema's views, forgetting any
    /// plan or rows computed before.
    pub fn set_views<'a>(&self, queries: impl IntoIterator<Item = &'a Query>) {
        let views = queries
            .into_iter()
            .map(|q| {
                let definition = ViewDefinition {
                    name: q.name.clone(),
                    sql: q.sql.clone(),
                    origin: q.origin.to_string(),
                    in_process: q.extra.get("cluster").is_some_and(|v| v == "in process"),
                };
                (q.name.clone(), Arc::new(ViewSlot::new(definition)))
            })
            .collect();
        *write(&self.views) = views;
        *lock(&self.cyclic) = None;
    }

    /// Forgets the plan and rows of every view reading `table`, directly or
    /// through other views.
    fn invalidate(&self, table: &str) {
        let mut views = write(&self.views);
        let mut stale: HashSet<String> = HashSet::from([table.to_string()]);
        loop {
            let more: Vec<String> = views
                .iter()
                .filter(|(name, slot)| !stale.contains(*name) && slot.reads_any(&stale))
                .map(|(name, _)| name.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            stale.extend(more);
        }
        for name in stale {
            if let Some(slot) = views.get_mut(&name) {
                if slot.planned.initialized() {
                    *slot = Arc::new(ViewSlot::new(slot.definition.clone()));
                }
            }
        }
    }

    /// The views `text` (SQL, or a header field holding SQL) names, matched
    /// as words outside comments: a view named in a string literal is
    /// counted too, which errs on the side of keeping it.
    pub fn views_named_in(&self, text: &str) -> Vec<String> {
        views_named(text, &read(&self.views))
    }

    /// Forgets the plan and rows of every computed view that SQL still to run
    /// does not need, and returns their names. `named`: the views that SQL
    /// names ([`views_named_in`](Self::views_named_in)); it also needs, through
    /// each of those whose rows are not computed yet, the views that one names;
    /// a computed view no longer needs its inputs. A released view read again
    /// is planned and computed anew, and a plan already holding one keeps its
    /// rows alive until it is done, so a late reader is slower, never wrong.
    ///
    /// Why: `report` computes a dozen views, some over 100 MB on a 1 GB trace,
    /// and most have no reader left long before the last report ends.
    pub fn release_views_except(&self, named: &[&str]) -> Vec<String> {
        if self.inline.load(std::sync::atomic::Ordering::Relaxed) {
            return Vec::new(); // a cluster's views are not held here
        }
        let mut views = write(&self.views);
        let mut needed: HashSet<String> = HashSet::new();
        let mut todo: Vec<String> = named.iter().map(|n| n.to_string()).collect();
        while let Some(name) = todo.pop() {
            if needed.contains(&name) {
                continue;
            }
            if let Some(slot) = views.get(&name) {
                if !slot.has_rows() {
                    let reads = slot
                        .named
                        .get_or_init(|| views_named(&slot.definition.sql, &views));
                    todo.extend(reads.iter().cloned());
                }
            }
            needed.insert(name);
        }
        let mut released = Vec::new();
        for (name, slot) in views.iter_mut() {
            if slot.has_rows() && !needed.contains(name) {
                let fresh = ViewSlot {
                    definition: slot.definition.clone(),
                    planned: OnceCell::new(),
                    named: slot.named.clone(),
                };
                *slot = Arc::new(fresh);
                released.push(name.clone());
            }
        }
        released
    }

    /// The views on a cycle of views naming each other, computed once.
    fn cyclic_views(&self) -> Arc<HashSet<String>> {
        let mut cyclic = lock(&self.cyclic);
        if let Some(found) = cyclic.as_ref() {
            return Arc::clone(found);
        }
        let found = {
            let views = read(&self.views);
            let texts: Vec<(&str, &str)> = views
                .iter()
                .map(|(name, slot)| (name.as_str(), slot.definition.sql.as_str()))
                .collect();
            Arc::new(views_on_cycles(&texts))
        };
        *cyclic = Some(Arc::clone(&found));
        found
    }

    fn session(&self) -> Result<SessionState> {
        let state = read(&self.state).as_ref().and_then(Weak::upgrade);
        state
            .map(|s| s.read().clone())
            .ok_or_else(|| DataFusionError::Internal("views planned outside their session".into()))
    }

    async fn view(&self, slot: &ViewSlot) -> Result<Arc<LazyView>> {
        if let Some(planned) = slot.planned.get() {
            return Ok(Arc::clone(planned));
        }
        // Checked before waiting on the cell: a view naming itself would wait
        // for its own planning forever (in one task, or in two tasks that
        // started planning the cycle at different views).
        let name = &slot.definition.name;
        if self.cyclic_views().contains(name) {
            return Err(DataFusionError::Plan(format!(
                "view {name} ({}) refers to itself",
                slot.definition.origin
            )));
        }
        let planned = slot
            .planned
            .get_or_try_init(|| async {
                let inline = self.inline.load(std::sync::atomic::Ordering::Relaxed);
                LazyView::plan(&slot.definition, self.session()?, inline)
                    .await
                    .map(Arc::new)
            })
            .await?;
        Ok(Arc::clone(planned))
    }
}

impl ViewSlot {
    fn new(definition: ViewDefinition) -> Self {
        ViewSlot {
            definition,
            planned: OnceCell::new(),
            named: std::sync::OnceLock::new(),
        }
    }

    /// Whether the view's rows are computed (and held).
    fn has_rows(&self) -> bool {
        self.planned.get().is_some_and(|v| v.rows.initialized())
    }

    /// Whether the planned view reads one of `names` (false before planning,
    /// when there is nothing to forget).
    fn reads_any(&self, names: &HashSet<String>) -> bool {
        self.planned
            .get()
            .is_some_and(|v| v.reads.iter().any(|r| names.contains(r)))
    }
}

#[async_trait]
impl SchemaProvider for CatalogSchema {
    fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = read(&self.tables).keys().cloned().collect();
        for name in read(&self.views).keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(table) = read(&self.tables).get(name) {
            return Ok(Some(Arc::clone(table)));
        }
        let slot = read(&self.views).get(name).cloned();
        let Some(slot) = slot else {
            return Ok(None);
        };
        let view = self.view(&slot).await?;
        // A recursive query cannot be split into a cluster's stages (its work
        // table lives in one process), and a view marked `-- cluster: in
        // process` is not worth splitting: such a view is computed once, here,
        // and its rows travel with the plans that read it.
        if !self.inline.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(Some(view));
        }
        if view.in_process {
            let rows = view.rows(&self.session()?).await?;
            return Ok(Some(rows));
        }
        let inlined = datafusion::catalog::view::ViewTable::new(
            view.plan.clone(),
            Some(slot.definition.sql.clone()),
        );
        Ok(Some(Arc::new(inlined)))
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        self.invalidate(&name);
        Ok(write(&self.tables).insert(name, table))
    }

    fn deregister_table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        self.invalidate(name);
        Ok(write(&self.tables).remove(name))
    }

    fn table_exist(&self, name: &str) -> bool {
        read(&self.tables).contains_key(name) || read(&self.views).contains_key(name)
    }
}

/// A planned catalog view whose rows are computed on the first scan and kept.
#[derive(Debug)]
pub struct LazyView {
    plan: LogicalPlan,
    schema: SchemaRef,
    /// Tables and views the SQL names (what invalidates it).
    reads: Vec<String>,
    rows: OnceCell<Arc<MemTable>>,
    origin: String,
    /// Whether, in a session whose plans run on a cluster, the view is
    /// computed in this process instead: a recursive query (`WITH RECURSIVE`),
    /// or a view marked `-- cluster: in process`.
    in_process: bool,
}

impl LazyView {
    /// Plans the view; `for_cluster`: a recursive view, or one marked
    /// `-- cluster: in process`, is computed in this process, not on the
    /// cluster (see `CatalogSchema::table`).
    async fn plan(
        definition: &ViewDefinition,
        state: SessionState,
        for_cluster: bool,
    ) -> Result<LazyView> {
        let fail = |e: DataFusionError| {
            DataFusionError::Plan(format!(
                "view {} ({}): {}",
                definition.name,
                definition.origin,
                crate::one_line(&e.to_string())
            ))
        };
        let mut statements = DFParser::parse_sql(&definition.sql).map_err(|e| fail(e.into()))?;
        let Some(statement) = statements.pop_front().filter(|_| statements.is_empty()) else {
            return Err(fail(DataFusionError::Plan(
                "a view is exactly one SELECT statement".into(),
            )));
        };
        let reads = state
            .resolve_table_references(&statement)
            .map_err(fail)?
            .iter()
            .map(|t| t.table().to_string())
            .collect();
        let plan = {
            let _timing = crate::timing::Phase::start(&format!("  plan view {}", definition.name));
            state.statement_to_plan(statement).await.map_err(fail)?
        };
        let schema = Arc::new(plan.schema().as_arrow().clone());
        Ok(LazyView {
            plan,
            schema,
            reads,
            rows: OnceCell::new(),
            origin: format!("view {} ({})", definition.name, definition.origin),
            in_process: for_cluster && (definition.in_process || is_recursive(&definition.sql)),
        })
    }

    /// The view's rows, computed on the first call.
    async fn rows(&self, state: &dyn Session) -> Result<Arc<MemTable>> {
        let rows = self
            .rows
            .get_or_try_init(|| async {
                let _timing = crate::timing::Phase::start(&self.origin);
                let physical = {
                    let _timing =
                        crate::timing::Phase::start(&format!("  optimize {}", self.origin));
                    if self.in_process {
                        in_process(state)?.create_physical_plan(&self.plan).await?
                    } else {
                        state.create_physical_plan(&self.plan).await?
                    }
                };
                let batches = collect(physical, state.task_ctx()).await?;
                let batches = batches
                    .iter()
                    .map(|b| conform(b, &self.schema))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| DataFusionError::Execution(format!("{}: {e}", self.origin)))?;
                crate::timing::view_sizes(&self.origin, &batches);
                MemTable::try_new(Arc::clone(&self.schema), vec![batches]).map(Arc::new)
            })
            .await?;
        Ok(Arc::clone(rows))
    }
}

#[async_trait]
impl TableProvider for LazyView {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.rows(state)
            .await?
            .scan(state, projection, filters, limit)
            .await
    }
}

/// `state` with DataFusion's own physical planner: its plans run in this
/// process whatever planner the session has (a cluster client's, whose plans
/// cannot hold a recursive query: its work table lives in one process).
fn in_process(state: &dyn Session) -> Result<SessionState> {
    let Some(state) = state.as_any().downcast_ref::<SessionState>() else {
        return Err(DataFusionError::Internal(
            "a view planned outside a SessionState".into(),
        ));
    };
    Ok(
        datafusion::execution::SessionStateBuilder::new_from_existing(state.clone())
            .with_query_planner(Arc::new(InProcessPlanner))
            .build(),
    )
}

/// DataFusion's default physical planning (see [`in_process`]).
#[derive(Debug)]
struct InProcessPlanner;

#[async_trait]
impl datafusion::execution::context::QueryPlanner for InProcessPlanner {
    async fn create_physical_plan(
        &self,
        logical_plan: &LogicalPlan,
        session_state: &dyn Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        use datafusion::physical_planner::{DefaultPhysicalPlanner, PhysicalPlanner};
        DefaultPhysicalPlanner::default()
            .create_physical_plan(logical_plan, session_state)
            .await
    }
}

/// Whether `sql` is a recursive query (its first keywords, comments of
/// either kind left out: `WITH RECURSIVE`).
fn is_recursive(sql: &str) -> bool {
    let text = without_comments(sql);
    let mut words = text.split_whitespace().map(str::to_ascii_uppercase);
    words.next().as_deref() == Some("WITH") && words.next().as_deref() == Some("RECURSIVE")
}

/// The tables and views `sql` names; empty when it does not parse (planning
/// reports that, with the file).
fn names_read(sql: &str) -> Vec<String> {
    let Ok(statements) = DFParser::parse_sql(sql) else {
        return Vec::new();
    };
    statements
        .iter()
        .filter_map(|s| resolve_table_references(s, true).ok())
        .flat_map(|(relations, _ctes)| relations)
        .map(|r| r.table().to_string())
        .collect()
}

/// The names of `views` that occur in `text` as words (identifier characters
/// between others), case-insensitively, each once; comments left out (a
/// header's prose names views it does not read).
fn views_named(text: &str, views: &BTreeMap<String, Arc<ViewSlot>>) -> Vec<String> {
    view_words(&without_comments(text), |word| views.contains_key(word))
}

/// `sql` without its comments (`--` to the end of the line, `/* */`), its
/// string literals and quoted names kept whole, so that a `--` inside a
/// string starts no comment. Where dialects differ this keeps more text, never
/// less: a block comment ends at its first `*/` (nested ones end later), and a
/// backslash escapes the next character inside quotes (where it does not, the
/// string only runs on, and strings are kept).
fn without_comments(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                out.push(c);
                while let Some(inner) = chars.next() {
                    out.push(inner);
                    if inner == '\\' {
                        out.extend(chars.next());
                    } else if inner == c {
                        break; // a doubled quote reopens at once: same text
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                let rest = chars.by_ref().skip_while(|&skipped| skipped != '\n');
                out.extend(rest.take(1));
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for skipped in chars.by_ref() {
                    if (last, skipped) == ('*', '/') {
                        break;
                    }
                    last = skipped;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The words of `text` (runs of identifier characters, lowercased) that
/// `is_view` accepts, sorted, each once.
fn view_words(text: &str, is_view: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .filter(|word| is_view(word))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The views of `texts` (name → SQL) that read themselves, directly or
/// through other views.
///
/// Parsing every view's SQL to learn what it reads cost about 60 ms of CPU in
/// each run that reads any view (104 catalog views), several times the cost
/// of a small view itself. So the words of each text are scanned first
/// (comments left out, strings kept, matched case-insensitively): they name
/// every view the text reads, so a view on no cycle of words is on no cycle
/// of reads, and only the views on a cycle of words (3 shipped ones) are
/// parsed. A view's name is one word: the catalog's header check allows only
/// letters, digits and `_`.
fn views_on_cycles(texts: &[(&str, &str)]) -> HashSet<String> {
    let mut by_word: HashMap<String, Vec<String>> = HashMap::new();
    for (name, _) in texts {
        by_word
            .entry(name.to_ascii_lowercase())
            .or_default()
            .push(name.to_string());
    }
    let words: HashMap<String, Vec<String>> = texts
        .iter()
        .map(|(name, sql)| {
            let named = view_words(&without_comments(sql), |w| by_word.contains_key(w))
                .iter()
                .flat_map(|w| by_word[w].iter().cloned())
                .collect();
            (name.to_string(), named)
        })
        .collect();
    let candidates = on_cycles(&words);
    if candidates.is_empty() {
        return candidates;
    }
    let reads: HashMap<String, Vec<String>> = texts
        .iter()
        .filter(|(name, _)| candidates.contains(*name))
        .map(|(name, sql)| (name.to_string(), names_read(sql)))
        .collect();
    on_cycles(&reads)
}

/// The nodes of `reads` (view → what it names) that can reach themselves.
fn on_cycles(reads: &HashMap<String, Vec<String>>) -> HashSet<String> {
    let reaches_itself = |start: &String| {
        let mut seen = HashSet::new();
        let mut todo: Vec<&String> = reads.get(start).into_iter().flatten().collect();
        while let Some(next) = todo.pop() {
            if next == start {
                return true;
            }
            if seen.insert(next) {
                todo.extend(reads.get(next).into_iter().flatten());
            }
        }
        false
    };
    reads
        .keys()
        .filter(|v| reaches_itself(v))
        .cloned()
        .collect()
}

/// `batch` with the view's planned schema. Execution may produce other types
/// than planning promised (a UNION's integers as decimals, strings as views);
/// queries were planned against the promise, so the rows are cast to keep it.
fn conform(
    batch: &RecordBatch,
    schema: &SchemaRef,
) -> std::result::Result<RecordBatch, ArrowError> {
    if batch.schema().fields() == schema.fields() {
        return RecordBatch::try_new(Arc::clone(schema), batch.columns().to_vec());
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| cast(column, field.data_type()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    RecordBatch::try_new(Arc::clone(schema), columns)
}

// Poisoned locks: a panic elsewhere already ended the query; the maps stay usable.
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

fn lock<T>(lock: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cyclic(texts: &[(&str, &str)]) -> Vec<String> {
        let mut found: Vec<String> = views_on_cycles(texts).into_iter().collect();
        found.sort();
        found
    }

    #[test]
    fn cycles_of_reads_are_found_and_words_alone_make_none() {
        let texts = [
            ("a", "SELECT * FROM b"),
            ("b", "SELECT * FROM C JOIN events USING (uid)"),
            ("c", "-- reads a\nSELECT * FROM a"),
            // Names d in a comment and a string only: words, not reads.
            ("d", "SELECT 'e' AS x FROM kernels"),
            ("e", "-- unlike d\nSELECT * FROM kernels"),
            ("self_reader", "SELECT * FROM self_reader"),
            ("leaf", "SELECT 1"),
        ];
        assert_eq!(cyclic(&texts), ["a", "b", "c", "self_reader"]);
    }

    #[test]
    fn a_view_named_only_in_a_string_or_comment_is_not_on_a_cycle() {
        // d and e name each other in strings (a cycle of words), but neither
        // reads the other: the parse decides.
        let texts = [
            ("d", "SELECT 'e' AS x FROM kernels -- reads e? no"),
            ("e", "SELECT \"d\" FROM (SELECT 1 AS d) /* d */"),
        ];
        assert!(cyclic(&texts).is_empty());
        // A `--` inside a string starts no comment: the read after it counts.
        let texts = [("f", "SELECT '--' AS x FROM g"), ("g", "SELECT * FROM f")];
        assert_eq!(cyclic(&texts), ["f", "g"]);
        // A mixed-case name, read quoted, is still found.
        let texts = [
            ("MyView", "SELECT * FROM other"),
            ("other", "SELECT * FROM \"MyView\""),
        ];
        assert_eq!(cyclic(&texts), ["MyView", "other"]);
    }

    #[test]
    fn recursive_queries_are_told_past_comments() {
        assert!(is_recursive(
            "-- header\nWITH RECURSIVE r AS (SELECT 1) SELECT * FROM r"
        ));
        assert!(is_recursive(
            "/* a\nheader */ with/**/recursive r AS (SELECT 1) SELECT 1"
        ));
        assert!(!is_recursive("/* WITH RECURSIVE */ SELECT 1"));
        assert!(!is_recursive(
            "WITH r AS (SELECT 'RECURSIVE') SELECT * FROM r"
        ));
    }

    #[test]
    fn comments_go_and_strings_stay() {
        let sql = "SELECT 'a -- b' /* c /* d */ e FROM t -- f\nWHERE x = \"g--h\" /*/ i */";
        assert_eq!(
            without_comments(sql),
            "SELECT 'a -- b'   e FROM t \nWHERE x = \"g--h\"  "
        );
        // An escaped quote does not end the string (its `--` is no comment).
        let sql = "SELECT 'it\\' -- ' FROM v";
        assert_eq!(without_comments(sql), sql);
    }
}
