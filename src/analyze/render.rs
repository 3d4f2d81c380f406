//! Laying an [`Analysis`] out: the Markdown report, the terminal summary,
//! `findings.csv`, `findings.json` and `category_manifest.json`.
//!
//! Nothing here decides what a finding is or how it ranks: rows come in the
//! order and with the values the SQL gave them.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value};

use super::{Analysis, Table};
use crate::output::{atomic, report_csv};
use crate::Error;

/// The directory under `--out` that holds the charts (SVG), linked from the
/// Markdown report.
pub const CHARTS_DIR: &str = "charts";

/// The files `--out DIR` writes (and `charts/*.svg`).
pub const OUT_FILES: [&str; 4] = [
    "standalone_analysis.md",
    "findings.csv",
    "findings.json",
    "category_manifest.json",
];

/// Priorities in report order, with their headings.
const PRIORITIES: [(&str, &str); 4] = [
    ("critical", "🔴 Critical"),
    ("high", "🟠 High"),
    ("medium", "🟡 Medium"),
    ("low", "🟢 Low"),
];

/// Writes the four files to `dir`, all or none: each is complete under a
/// temporary name before any replaces its target.
pub fn write_dir(dir: &Path, analysis: &Analysis) -> Result<(), Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Output(format!("{}: cannot create directory: {e}", dir.display())))?;
    let findings_json = findings_json(&analysis.recommendations)?;
    let manifest = manifest_json(analysis)?;
    let mut staged = atomic::Staged::new();
    let err = |path: &Path, e: io::Error| Error::Output(format!("{}: {e}", path.display()));
    let figures = super::pictures::figures(analysis);
    if !figures.is_empty() {
        let charts = dir.join(CHARTS_DIR);
        std::fs::create_dir_all(&charts).map_err(|e| err(&charts, e))?;
    }
    for figure in &figures {
        let path = dir.join(CHARTS_DIR).join(&figure.file);
        staged
            .stage(&path, |out| out.write_all(figure.svg.as_bytes()))
            .map_err(|e| err(&path, e))?;
    }
    let path = dir.join(OUT_FILES[0]);
    staged
        .stage(&path, |out| markdown_with(out, analysis, &figures))
        .map_err(|e| err(&path, e))?;
    let path = dir.join(OUT_FILES[1]);
    staged
        .stage(&path, |out| {
            report_csv::write_csv(out, &analysis.findings.header, &analysis.findings.batches)
        })
        .map_err(|e| err(&path, e))?;
    for (file, value) in [(OUT_FILES[2], &findings_json), (OUT_FILES[3], &manifest)] {
        let path = dir.join(file);
        staged
            .stage(&path, |out| {
                serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
                writeln!(out)
            })
            .map_err(|e| err(&path, e))?;
    }
    staged
        .commit()
        .map_err(|e| Error::Output(format!("{}: {e}", dir.display())))
}

/// A table's rows as JSON objects (NULL as null).
pub fn table_json(table: &Table) -> Result<Vec<Value>, Error> {
    crate::output::json_rows(&table.batches)
        .map_err(|e| Error::Output(format!("{}: as JSON: {e}", table.query_name)))
}

/// `findings.json`: the recommendations (findings merged per subject), each
/// reason's `metrics` text as an object.
fn findings_json(recommendations: &Table) -> Result<Value, Error> {
    let mut rows = table_json(recommendations)?;
    for reason in rows
        .iter_mut()
        .filter_map(|row| row.get_mut("reasons").and_then(Value::as_array_mut))
        .flatten()
    {
        if let Some(Value::String(text)) = reason.get("metrics") {
            // A user rule's malformed metrics stay a string rather than failing.
            if let Ok(parsed) = serde_json::from_str::<Value>(text) {
                reason["metrics"] = parsed;
            }
        }
    }
    Ok(Value::Array(rows))
}

/// `category_manifest.json`: trace, platform, GPU utilization (summary_metrics by
/// key), the categories, the top ops and the rules that ran.
fn manifest_json(analysis: &Analysis) -> Result<Value, Error> {
    let mut utilization = Map::new();
    for row in table_json(&analysis.summary)? {
        if let Some(Value::String(key)) = row.get("key") {
            let value = match row.get("number") {
                Some(Value::Null) | None => row.get("value").cloned().unwrap_or(Value::Null),
                Some(n) => n.clone(),
            };
            utilization.insert(key.clone(), value);
        }
    }
    let rules: Vec<Value> = analysis
        .rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "rule": r.name, "version": r.version, "source": r.origin, "findings": r.findings
            })
        })
        .collect();
    Ok(serde_json::json!({
        "trace": analysis.trace,
        "platform": analysis.platform,
        "tool": format!("tracesql {}", env!("CARGO_PKG_VERSION")),
        "gpu_utilization": utilization,
        "categories": table_json(&analysis.categories)?,
        "top_ops": table_json(&analysis.top_ops)?,
        "rules": rules,
    }))
}

/// One findings row by column name.
struct Finding<'a> {
    header: &'a [String],
    cells: Vec<String>,
}

impl Finding<'_> {
    fn get(&self, name: &str) -> &str {
        self.header
            .iter()
            .position(|h| h == name)
            .and_then(|i| self.cells.get(i))
            .map_or("", String::as_str)
    }
}

fn findings_rows(findings: &Table) -> Vec<Finding<'_>> {
    findings
        .cells()
        .into_iter()
        .map(|cells| Finding {
            header: &findings.header,
            cells,
        })
        .collect()
}

/// The HTML anchor of a category's detailed section.
pub fn anchor(category: &str) -> String {
    let slug: String = category
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("category-{slug}")
}

/// The categories with a detailed section, in report order: system, the op
/// categories by GPU time, any other category a finding names, validation.
fn section_categories(analysis: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    let finding_categories: Vec<String> = findings_rows(&analysis.findings)
        .iter()
        .map(|f| f.get("category").to_string())
        .collect();
    let mut push = |c: &str| {
        if !c.is_empty() && !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    };
    if finding_categories.iter().any(|c| c == "system") {
        push("system");
    }
    if let Some(i) = analysis.categories.column("category") {
        for row in analysis.categories.cells() {
            if row[i] != "validation" {
                push(&row[i]);
            }
        }
    }
    for c in finding_categories.iter().filter(|c| *c != "validation") {
        push(c);
    }
    if finding_categories.iter().any(|c| c == "validation") {
        push("validation");
    }
    out
}

/// Writes a table as GitHub Markdown, leaving out the columns in `skip`.
pub fn md_table(out: &mut dyn Write, header: &[String], rows: &[Vec<String>]) -> io::Result<()> {
    let escape = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let names: Vec<String> = header.iter().map(|h| escape(h)).collect();
    writeln!(out, "| {} |", names.join(" | "))?;
    writeln!(out, "|{}", "---|".repeat(header.len()))?;
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    writeln!(out)
}

/// The Markdown report.
pub fn markdown(out: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    markdown_with(out, analysis, &super::pictures::figures(analysis))
}

/// [`markdown`] linking `figures`, already drawn (`write_dir` writes them too).
fn markdown_with(
    out: &mut dyn Write,
    analysis: &Analysis,
    figures: &[crate::charts::Figure],
) -> io::Result<()> {
    writeln!(out, "# Standalone analysis: {}\n", analysis.trace)?;
    writeln!(
        out,
        "Generated by tracesql {} (`tracesql analyze`). Every figure comes from the trace and \
         the platform's peaks; findings state what the trace shows, not causes it cannot show \
         (those need hardware counters on a replay of the op).\n",
        env!("CARGO_PKG_VERSION")
    )?;
    executive_summary(out, analysis)?;
    if let Some(line) = &analysis.health {
        writeln!(
            out,
            "Trace health: {line} (`SELECT * FROM trace_health` lists every check).\n"
        )?;
    }
    if !figures.is_empty() {
        writeln!(out, "### Charts\n")?;
        write!(out, "{}", crate::charts::markdown_links(figures))?;
    }
    writeln!(out, "## Recommendations\n")?;
    recommendations(out, analysis, true)?;
    detailed_analysis(out, analysis)?;
    appendix(out, analysis)
}

fn executive_summary(out: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    writeln!(out, "## Executive summary\n")?;
    let summary = &analysis.summary;
    let (Some(m), Some(v)) = (summary.column("metric"), summary.column("value")) else {
        return writeln!(out, "(summary_metrics returned no metric/value columns)\n");
    };
    let mut rows: Vec<Vec<String>> = summary
        .cells()
        .into_iter()
        .map(|r| vec![r[m].clone(), r[v].clone()])
        .collect();
    let recs = &analysis.recommendations;
    let priorities: Vec<String> = recs
        .column("priority")
        .map(|i| recs.cells().into_iter().map(|r| r[i].clone()).collect())
        .unwrap_or_default();
    let counts: Vec<String> = PRIORITIES
        .iter()
        .map(|(p, _)| {
            let n = priorities.iter().filter(|q| q == p).count();
            format!("{n} {p}")
        })
        .collect();
    rows.push(vec![
        "Recommendations".into(),
        format!(
            "{} ({}), from {} rule findings",
            priorities.len(),
            counts.join(", "),
            analysis.findings.rows()
        ),
    ]);
    md_table(out, &["Metric".into(), "Value".into()], &rows)?;
    writeln!(out, "### Top operations\n")?;
    if analysis.top_ops.rows() == 0 {
        writeln!(out, "No op owns GPU time in this trace.\n")
    } else {
        md_table(out, &analysis.top_ops.header, &analysis.top_ops.cells())
    }
}

/// A JSON cell as display text: strings as they are, numbers as JSON writes
/// them, lists as `[a, b]`, null as "".
fn cell(row: &Value, key: &str) -> String {
    match row.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => {
            let items: Vec<String> = items
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        Some(other) => other.to_string(),
    }
}

fn cell_number(row: &Value, key: &str) -> Option<f64> {
    row.get(key).and_then(Value::as_f64)
}

/// The impact line of a recommendation: ms saved at 20/50/80% of peak, or
/// the removable time; the figures are the SQL's (already capped).
fn impact_line(rec: &Value) -> String {
    let (Some(at20), Some(at50), Some(at80)) = (
        cell_number(rec, "impact_ms_at_20"),
        cell_number(rec, "impact_ms_at_50"),
        cell_number(rec, "impact_ms_at_80"),
    ) else {
        return "not estimated (no removable time is known for this finding)".into();
    };
    let e2e = cell_number(rec, "impact_pct_e2e");
    if cell_number(rec, "efficiency_pct").is_none() {
        let e2e = e2e.map_or(String::new(), |p| format!(" ({p:.1}% of the GPU span)"));
        format!("up to {at80:.3} ms{e2e} if this time is removed")
    } else {
        let e2e = e2e.map_or("n/a".to_string(), |p| format!("{p:.1}%"));
        format!(
            "{at20:.3} / {at50:.3} / {at80:.3} ms saved if it reached 20 / 50 / 80% of peak \
             (at 80%: {e2e} end to end)"
        )
    }
}

/// A recommendation's title: the op and its perf-model parameters where the
/// model has them (`aten::mm (M=.., N=.., K=..)`), else the subject.
fn title(rec: &Value) -> String {
    match (cell(rec, "op_name"), cell(rec, "model_shape")) {
        (name, shape) if !name.is_empty() && !shape.is_empty() => format!("{name} ({shape})"),
        _ => cell(rec, "subject"),
    }
}

/// The distinct non-empty texts of `key` among the reasons, first seen first.
fn distinct_actions(reasons: &[Value], key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for text in reasons.iter().map(|r| cell(r, key)) {
        if !text.is_empty() && !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// One recommendation: its reasons (one per rule), actions, impact and facts.
fn recommendation(
    out: &mut dyn Write,
    number: usize,
    rec: &Value,
    links: bool,
    packages: &std::collections::BTreeMap<i64, String>,
) -> io::Result<()> {
    let category = cell(rec, "category");
    writeln!(out, "#### {number}. {category}: {}\n", title(rec))?;
    let reasons = rec
        .get("reasons")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let noun = if reasons.len() == 1 {
        "finding"
    } else {
        "findings"
    };
    writeln!(out, "**Issue** ({} {noun}):", reasons.len())?;
    for r in reasons {
        writeln!(
            out,
            "- {} *(rule {} v{}, priority {}; {} = {}, threshold {}; evidence uids: {})*",
            cell(r, "message"),
            cell(r, "rule"),
            cell(r, "rule_version"),
            cell(r, "priority"),
            cell(r, "metric"),
            short_number(&cell(r, "value")),
            or_none(&short_number(&cell(r, "threshold"))),
            or_none(&cell(r, "evidence_uids"))
        )?;
    }
    writeln!(out, "\n**Action**:")?;
    for a in distinct_actions(reasons, "action_a") {
        writeln!(out, "- Path A (model code): {a}")?;
    }
    for b in distinct_actions(reasons, "action_b") {
        writeln!(out, "- Path B (kernels): {b}")?;
    }
    writeln!(out, "\n**Impact**: {}  ", impact_line(rec))?;
    let mut facts = Vec::new();
    if let (Some(us), Some(share)) = (
        cell_number(rec, "time_us"),
        cell_number(rec, "share_pct_e2e"),
    ) {
        facts.push(format!(
            "GPU time {:.3} ms ({share:.1}% of the GPU span)",
            us / 1e3
        ));
    }
    let shape = cell(rec, "shape");
    if !shape.is_empty() {
        facts.push(format!("input dims {shape}"));
    }
    let ex_uid = cell(rec, "ex_uid");
    if !ex_uid.is_empty() {
        facts.push(format!("example uid {ex_uid}"));
    }
    if !facts.is_empty() {
        writeln!(out, "*{}*", facts.join("; "))?;
    }
    if let Some(package) = rec["ex_uid"].as_i64().and_then(|uid| packages.get(&uid)) {
        writeln!(
            out,
            "\n**Replay package** (for the kernel team): [{package}]({package})  "
        )?;
    }
    if links {
        writeln!(
            out,
            "→ See [Detailed analysis: {category}](#{})",
            anchor(&category)
        )?;
    }
    writeln!(out)
}

/// The recommendations (findings merged per subject) grouped by priority;
/// `links` adds the detailed-section links.
fn recommendations(out: &mut dyn Write, analysis: &Analysis, links: bool) -> io::Result<()> {
    let recs = table_json(&analysis.recommendations).map_err(io::Error::other)?;
    if recs.is_empty() {
        writeln!(out, "No rule found anything to report.\n")?;
        return Ok(());
    }
    let mut number = 0;
    for (priority, heading) in PRIORITIES {
        let group: Vec<&Value> = recs
            .iter()
            .filter(|r| cell(r, "priority") == priority)
            .collect();
        if group.is_empty() {
            continue;
        }
        writeln!(out, "### {heading}\n")?;
        for rec in group {
            number += 1;
            recommendation(out, number, rec, links, &analysis.replay_packages)?;
        }
    }
    Ok(())
}

fn or_none(s: &str) -> String {
    if s.is_empty() || s == "[]" {
        "none".into()
    } else {
        s.to_string()
    }
}

/// A number cell rounded to 3 decimals for prose.
pub fn short_number(s: &str) -> String {
    match s.parse::<f64>() {
        Ok(v) if v.fract() != 0.0 => format!("{v:.3}"),
        _ => s.to_string(),
    }
}

fn detailed_analysis(out: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    writeln!(out, "## Detailed analysis\n")?;
    writeln!(out, "### Categories\n")?;
    if analysis.categories.rows() > 0 {
        md_table(
            out,
            &analysis.categories.header,
            &analysis.categories.cells(),
        )?;
    } else {
        writeln!(out, "No op owns GPU time in this trace.\n")?;
    }
    let findings = findings_rows(&analysis.findings);
    let ops = &analysis.category_ops;
    let ops_rows = ops.cells();
    let cat_col = ops.column("category");
    for category in section_categories(analysis) {
        writeln!(out, "<a id=\"{}\"></a>", anchor(&category))?;
        writeln!(out, "### {category}\n")?;
        if let Some(c) = cat_col {
            let rows: Vec<Vec<String>> = ops_rows
                .iter()
                .filter(|r| r[c] == category)
                .map(|r| {
                    r.iter()
                        .enumerate()
                        .filter(|(i, _)| *i != c)
                        .map(|(_, v)| v.clone())
                        .collect()
                })
                .collect();
            if !rows.is_empty() {
                let header: Vec<String> = ops
                    .header
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != c)
                    .map(|(_, h)| h.clone())
                    .collect();
                writeln!(out, "Op groups with the most GPU time:\n")?;
                md_table(out, &header, &rows)?;
            }
        }
        let mine: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.get("category") == category)
            .collect();
        if mine.is_empty() {
            writeln!(out, "No findings.\n")?;
            continue;
        }
        writeln!(out, "Findings:\n")?;
        let header: Vec<String> = [
            "#",
            "Priority",
            "Rule",
            "Subject",
            "Metric",
            "Value",
            "Threshold",
            "Impact at 80% (ms)",
            "Metrics",
        ]
        .map(String::from)
        .to_vec();
        let rows: Vec<Vec<String>> = mine
            .iter()
            .map(|f| {
                vec![
                    f.get("finding_rank").to_string(),
                    f.get("priority").to_string(),
                    format!("{} v{}", f.get("rule"), f.get("rule_version")),
                    f.get("subject").to_string(),
                    f.get("metric").to_string(),
                    short_number(f.get("value")),
                    short_number(f.get("threshold")),
                    short_number(f.get("impact_ms_at_80")),
                    format!("`{}`", f.get("metrics")),
                ]
            })
            .collect();
        md_table(out, &header, &rows)?;
    }
    Ok(())
}

fn appendix(out: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    writeln!(out, "## Appendix\n")?;
    priority_rule(out, &analysis.priority_rule)?;
    writeln!(out, "### Platform peaks\n")?;
    if analysis.peaks.rows() == 0 {
        writeln!(
            out,
            "No platform was set or detected: efficiency figures are not computed \
             (use --platform NAME).\n"
        )?;
    } else {
        md_table(out, &analysis.peaks.header, &analysis.peaks.cells())?;
    }
    replay_artifacts(out, &analysis.replay_packages)?;
    writeln!(out, "### Rules run\n")?;
    let rows: Vec<Vec<String>> = analysis
        .rules
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.version.to_string(),
                r.origin.clone(),
                r.findings.to_string(),
            ]
        })
        .collect();
    md_table(
        out,
        &["Rule", "Version", "Source", "Findings"].map(String::from),
        &rows,
    )?;
    writeln!(out, "### Queries\n")?;
    let sections = [
        &analysis.findings,
        &analysis.recommendations,
        &analysis.priority_rule,
        &analysis.summary,
        &analysis.top_ops,
        &analysis.categories,
        &analysis.category_ops,
        &analysis.peaks,
        &analysis.timeline_chart,
        &analysis.roofline,
        &analysis.roofs,
    ];
    let rows: Vec<Vec<String>> = sections
        .iter()
        .map(|t| vec![t.query_name.clone(), t.query_version.to_string()])
        .collect();
    md_table(out, &["Query", "Version"].map(String::from), &rows)
}

/// The replay packages written beside the report (`analyze --replay`).
fn replay_artifacts(
    out: &mut dyn Write,
    packages: &std::collections::BTreeMap<i64, String>,
) -> io::Result<()> {
    if packages.is_empty() {
        return Ok(());
    }
    writeln!(out, "### Replay artifacts\n")?;
    writeln!(
        out,
        "Each package rebuilds the op's inputs from the trace's shapes and times it \
         (`unzip`, then `python3 replay.py`; `--dry-run` needs no GPU). All of them: \
         `replay_packages/replay.py`.\n"
    )?;
    let rows: Vec<Vec<String>> = packages
        .iter()
        .map(|(uid, path)| vec![uid.to_string(), format!("[{path}]({path})")])
        .collect();
    md_table(out, &["Example uid", "Package"].map(String::from), &rows)
}

/// The priority rule as applied: the conditions of view `priority_rule`, whose
/// numbers view `findings` reads (so the text cannot drift from the ranking).
fn priority_rule(out: &mut dyn Write, rule: &Table) -> io::Result<()> {
    writeln!(out, "### Priority rule\n")?;
    writeln!(
        out,
        "Priority follows end-to-end impact. A finding's share is its subject's GPU time \
         over the GPU span; its saving is the time saved at 80% of peak (or the removable \
         time), capped at the subject's time and, per category, at the category's GPU time, \
         over the GPU span. A finding gets the first priority one of whose conditions \
         holds; a recommendation (the findings about one subject) the highest of its \
         findings'.\n"
    )?;
    let (Some(p), Some(r)) = (rule.column("priority"), rule.column("rule")) else {
        return writeln!(out, "(priority_rule returned no priority/rule columns)\n");
    };
    let rows: Vec<Vec<String>> = rule
        .cells()
        .into_iter()
        .map(|row| vec![row[p].clone(), row[r].clone()])
        .collect();
    md_table(out, &["Priority", "Condition"].map(String::from), &rows)
}

/// The terminal output without `--out`: the summary table and the
/// recommendations.
pub fn terminal(out: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    writeln!(out, "== {} ==\n", analysis.trace)?;
    if let (Some(m), Some(v)) = (
        analysis.summary.column("metric"),
        analysis.summary.column("value"),
    ) {
        for row in analysis.summary.cells() {
            writeln!(out, "{:<28} {}", row[m], row[v])?;
        }
        writeln!(out)?;
    }
    if let Some(line) = &analysis.health {
        writeln!(out, "Trace health: {line}\n")?;
    }
    writeln!(out, "Recommendations\n")?;
    recommendations(out, analysis, false)?;
    writeln!(
        out,
        "(--out DIR writes the full report: standalone_analysis.md, findings.csv, findings.json, category_manifest.json)"
    )
}
