//! The analysis drawn: the GPU timeline as a stacked bar, the roofline, the
//! top ops as bars (SVG files beside `standalone_analysis.md`), and the whole
//! report as one HTML file (`analyze --html`).
//!
//! The numbers are the analysis's tables (catalog queries `chart_gpu_timeline`,
//! `chart_roofline`, `chart_roofs`, `top_ops`, `summary_metrics`,
//! `recommendations`); this file only chooses what goes where.

use serde_json::Value;

use super::render::table_json;
use super::{Analysis, Table};
use crate::charts::page::Page;
use crate::charts::plots::{BarItem, Bars, StackRow, StackedRows};
use crate::charts::svg::short;
use crate::charts::{numbers, texts, Figure};
use crate::Error;

/// The analysis's charts, those that have data, in report order.
pub fn figures(analysis: &Analysis) -> Vec<Figure> {
    let mut out = Vec::new();
    if let Some(svg) = timeline(&analysis.timeline_chart) {
        out.push(Figure::new(
            "gpu_timeline.svg",
            "GPU timeline",
            "chart_gpu_timeline",
            svg,
        ));
    }
    if analysis.roofline.rows() > 0 {
        out.push(Figure::new(
            "roofline.svg",
            "Roofline",
            "chart_roofline, chart_roofs",
            roofline(analysis),
        ));
    }
    if analysis.top_ops.rows() > 0 {
        out.push(Figure::new(
            "top_ops.svg",
            "Top operations",
            "top_ops",
            top_ops(&analysis.top_ops),
        ));
    }
    out.extend(analysis.extra_figures.iter().cloned());
    out
}

/// One bar per trace, split into computation / exposed communication /
/// exposed memcpy / idle.
fn timeline(table: &Table) -> Option<String> {
    if table.rows() == 0 {
        return None;
    }
    let traces = texts(table, "trace");
    let segments = texts(table, "segment");
    let times = numbers(table, "time_ms");
    let mut rows: Vec<StackRow> = Vec::new();
    for ((trace, segment), time) in traces.into_iter().zip(segments).zip(times) {
        let trace = trace.unwrap_or_default();
        if rows.last().map(|r| &r.label) != Some(&trace) {
            rows.push(StackRow {
                label: trace.clone(),
                segments: Vec::new(),
            });
        }
        if let Some(row) = rows.last_mut() {
            row.segments
                .push((segment.unwrap_or_default(), time.unwrap_or(0.0)));
        }
    }
    let chart = StackedRows {
        rows,
        unit: "ms".into(),
    };
    Some(chart.render("Where the GPU time went (share of the GPU span)"))
}

fn roofline(analysis: &Analysis) -> String {
    let subtitle = match &analysis.platform {
        Some(p) if analysis.roofs.rows() > 0 => format!(
            "{p}: one point per op group (name, shape), area by GPU time; hover for details"
        ),
        _ => "No platform set or detected (--platform NAME): roofs not drawn; one point per op group, area by GPU time".to_string(),
    };
    crate::charts::roofline(&analysis.roofline, &analysis.roofs, None, subtitle)
        .render("Roofline: achieved TFLOPS/s against arithmetic intensity")
}

/// The top op groups by GPU time, coloured by category.
fn top_ops(table: &Table) -> String {
    let names = texts(table, "Operation");
    let categories = texts(table, "Category");
    let shapes = texts(table, "Shape");
    let times = numbers(table, "Time (ms)");
    let shares = numbers(table, "% of GPU time");
    let efficiency = numbers(table, "Efficiency (%)");
    let items = (0..table.rows())
        .map(|i| {
            let name = names[i].clone().unwrap_or_default();
            let shape = shapes[i].clone().unwrap_or_default();
            let time = times[i].unwrap_or(0.0);
            let share = shares[i].unwrap_or(0.0);
            let eff = efficiency[i]
                .map(|e| format!(", {e:.1}% of roofline"))
                .unwrap_or_default();
            BarItem {
                label: format!("{name} {shape}").trim().to_string(),
                value: time,
                group: categories[i].clone().unwrap_or_else(|| "other".into()),
                value_text: format!("{} ms ({share:.1}%)", short(time)),
                hover: format!("{name} {shape}\n{time:.3} ms, {share:.2}% of the GPU span{eff}"),
            }
        })
        .collect();
    let chart = Bars {
        items,
        unit: "ms".into(),
    };
    chart.render("Top operations by GPU time")
}

/// The whole analysis as one self-contained HTML page.
pub fn html(analysis: &Analysis) -> Result<String, Error> {
    let figures = figures(analysis);
    let platform = analysis.platform.as_deref().unwrap_or("no platform");
    let mut page = Page::new(
        &format!("Analysis: {}", analysis.trace),
        &format!("tracesql analyze · platform {platform}"),
    );
    page.section("Executive summary");
    let (m, v) = (
        texts(&analysis.summary, "metric"),
        texts(&analysis.summary, "value"),
    );
    let rows: Vec<Vec<String>> = m
        .into_iter()
        .zip(v)
        .map(|(m, v)| vec![m.unwrap_or_default(), v.unwrap_or_default()])
        .collect();
    page.table(&["Metric".into(), "Value".into()], &rows, &[]);
    if let Some(line) = &analysis.health {
        page.paragraph(&format!("Trace health: {line}"));
    }
    if figures.is_empty() {
        page.paragraph("No linked GPU work in this trace: nothing to chart.");
    }
    for figure in &figures {
        page.section(&figure.title);
        page.figure(figure);
    }
    page.section("Recommendations");
    recommendations(&mut page, &analysis.recommendations)?;
    page.section("Priority rule");
    page.sheet(&analysis.priority_rule, usize::MAX);
    page.section("Platform peaks");
    if analysis.peaks.rows() == 0 {
        page.paragraph("No platform was set or detected: efficiency figures are not computed (use --platform NAME).");
    } else {
        page.sheet(&analysis.peaks, usize::MAX);
    }
    Ok(page.finish())
}

/// A run's analysis (`collectives --analyze --html`): its recommendations.
pub fn run_section(page: &mut Page, analysis: &Analysis) -> Result<(), Error> {
    page.section("Run analysis: recommendations");
    recommendations(page, &analysis.recommendations)?;
    page.section("Priority rule");
    page.sheet(&analysis.priority_rule, usize::MAX);
    Ok(())
}

/// The recommendations as a table, one row per subject, styled by priority.
fn recommendations(page: &mut Page, table: &Table) -> Result<(), Error> {
    let recs = table_json(table)?;
    if recs.is_empty() {
        page.paragraph("No rule found anything to report.");
        return Ok(());
    }
    let text = |v: &Value, key: &str| match v.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let number = |v: &Value, key: &str, decimals: usize| {
        v.get(key)
            .and_then(Value::as_f64)
            .map(|x| format!("{x:.decimals$}"))
            .unwrap_or_default()
    };
    let mut rows = Vec::new();
    let mut classes = Vec::new();
    for rec in &recs {
        let reasons: Vec<String> = rec
            .get("reasons")
            .and_then(Value::as_array)
            .map(|rs| rs.iter().map(|r| text(r, "message")).collect())
            .unwrap_or_default();
        // The subject names the op group with its input dims already; the
        // model's parameters say them the way an engineer reads a GEMM.
        let subject = match text(rec, "model_shape") {
            s if s.is_empty() => text(rec, "subject"),
            s => format!("{} ({s})", text(rec, "subject")),
        };
        rows.push(vec![
            text(rec, "priority"),
            text(rec, "category"),
            subject,
            number(rec, "share_pct_e2e", 2),
            number(rec, "efficiency_pct", 1),
            number(rec, "impact_ms_at_80", 3),
            reasons.join(" · "),
        ]);
        classes.push(text(rec, "priority"));
    }
    let header = [
        "Priority",
        "Category",
        "Subject",
        "% of GPU span",
        "Efficiency (%)",
        "Saving at 80% (ms)",
        "Reasons",
    ]
    .map(String::from);
    page.table(&header, &rows, &classes);
    Ok(())
}
