//! `tracesql analyze`: the catalog's rules as findings, ranked by SQL, rendered as
//! a standalone analysis report.
//!
//! The pipeline: [`runner`] runs every `-- kind: rule` query into the table
//! `findings_raw`; the catalog query `findings` adds priority (the rule is the
//! view `priority_rule`), capped savings and order, and `recommendations` merges
//! the findings about one subject; the report's other sections are catalog
//! queries too (`summary_metrics`, `top_ops`, `category_manifest`,
//! `category_ops`, `platform_peaks`, and the charts' `chart_*`). [`render`]
//! only lays the results out (Markdown, CSV, JSON, terminal), [`pictures`]
//! draws them (SVG charts, the HTML report).

pub mod pictures;
pub mod render;
pub mod runner;

use crate::engine::Engine;
use crate::Error;

pub use runner::RuleRun;

/// The catalog queries the report is made of, in the order they run.
pub const SECTION_QUERIES: [&str; 11] = [
    "findings",
    "recommendations",
    "priority_rule",
    "summary_metrics",
    "top_ops",
    "category_manifest",
    "category_ops",
    "platform_peaks",
    "chart_gpu_timeline",
    "chart_roofline",
    "chart_roofs",
];

/// A section's result: the query's name and version, its columns and rows
/// (the same shape as a report's sheet).
pub type Table = crate::output::Sheet;

/// Everything the report shows for one trace.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub trace: String,
    pub platform: Option<String>,
    pub rules: Vec<RuleRun>,
    /// One row per rule and subject (`findings.csv`).
    pub findings: Table,
    /// The findings merged per subject (`findings.json`, the report's
    /// recommendations).
    pub recommendations: Table,
    /// The priority rule the findings were ranked with (the appendix).
    pub priority_rule: Table,
    pub summary: Table,
    pub top_ops: Table,
    pub categories: Table,
    pub category_ops: Table,
    pub peaks: Table,
    /// The charts' data (`queries/charts/`): the GPU timeline's segments, the
    /// roofline's points and roofs.
    pub timeline_chart: Table,
    pub roofline: Table,
    pub roofs: Table,
    /// The trace_health_summary line ("reports cover 98.7% of GPU time; 2
    /// warnings: see trace_health"); None without that view.
    pub health: Option<String>,
    /// Replay packages of the recommendations (`analyze --replay`): a
    /// recommendation's `ex_uid` → its package, relative to the report.
    pub replay_packages: std::collections::BTreeMap<i64, String>,
    /// Charts the caller drew for this analysis (a run's per-rank timeline and
    /// wait heatmap, `collectives --analyze --out`), written and linked with
    /// the analysis's own.
    pub extra_figures: Vec<crate::charts::Figure>,
}

/// Runs the rules and the report's queries over the engine's (one) trace.
///
/// The views most rules and sections read (`gpu_time_totals`, `analyze_ops`)
/// are computed once for all of them (the session's views are kept once read,
/// see [`crate::engine`]); `findings_raw` holds the findings afterwards.
pub async fn analyze(engine: &Engine) -> Result<Analysis, Error> {
    analyze_scope(engine, runner::Scope::Trace).await
}

/// [`analyze`] with the rules of `scope`: `Run` for a session holding every
/// rank of a distributed run (the multi-rank rules; the report's sections then
/// pool the ranks).
pub async fn analyze_scope(engine: &Engine, scope: runner::Scope) -> Result<Analysis, Error> {
    let rules = runner::run_rules_of(engine, scope).await?;
    // Trace health is per trace: a run's analysis reports its findings only.
    let health = match scope {
        runner::Scope::Run => None,
        runner::Scope::Trace => crate::report::trace_health_lines(engine).await?,
    };
    let health = health.map(|lines| {
        lines
            .into_iter()
            .map(|(_, line)| line)
            .collect::<Vec<_>>()
            .join("; ")
    });
    let mut tables = Vec::new();
    for name in SECTION_QUERIES {
        // The summary, top-op and category sections describe one trace; over
        // a run's ranks they would mix them, so a run's analysis has only its
        // findings and the platform's peaks.
        let per_trace = !matches!(
            name,
            "findings" | "recommendations" | "priority_rule" | "platform_peaks"
        );
        if scope == runner::Scope::Run && per_trace {
            tables.push(Table {
                sheet: name.to_string(),
                query_name: name.to_string(),
                ..Table::default()
            });
            continue;
        }
        tables.push(run_section(engine, name).await?);
    }
    let mut tables = tables.into_iter();
    let mut next = || tables.next().unwrap_or_default();
    Ok(Analysis {
        trace: engine.trace_names().join(", "),
        platform: engine.platform(),
        rules,
        findings: next(),
        recommendations: next(),
        priority_rule: next(),
        summary: next(),
        top_ops: next(),
        categories: next(),
        category_ops: next(),
        peaks: next(),
        timeline_chart: next(),
        roofline: next(),
        roofs: next(),
        replay_packages: Default::default(),
        extra_figures: Vec::new(),
        health,
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
    let mut table = engine
        .sheet(name, &query.sql)
        .await
        .map_err(|e| Error::Query(crate::one_line(&format!("{name} ({}): {e}", query.origin))))?;
    table.query_version = query.version;
    Ok(table)
}
