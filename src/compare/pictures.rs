//! A comparison drawn, as one HTML file (`compare --html`): both GPU
//! timelines side by side, the waterfall of where the span's difference went,
//! the ops that changed most, and a roofline per side on its own platform.
//!
//! Every chart reads a comparison view: `compare_gpu_timeline`,
//! `chart_compare_waterfall`, `compare_ops_summary`, `chart_compare_roofline`
//! and `chart_compare_roofs` (`queries/charts/`, `queries/comparison/`).

use crate::charts::page::Page;
use crate::charts::plots::{BarItem, Bars, StackRow, StackedRows, Step, Waterfall};
use crate::charts::svg::short;
use crate::charts::{numbers, texts, Figure};
use crate::engine::Engine;
use crate::output::Sheet;
use crate::report::view_rows as view;
use crate::Error;

/// How many changed ops the bar chart shows (the largest changes).
const CHANGED_OPS: usize = 15;

/// The GPU timeline metrics drawn as segments, in order, with their names.
const SEGMENTS: [(&str, &str); 4] = [
    ("computation_time", "computation"),
    ("exposed_comm_time", "exposed communication"),
    ("exposed_memcpy_time", "exposed memcpy"),
    ("idle_time", "idle"),
];

/// The comparison's charts and the tables shown beside them.
pub struct Drawn {
    /// In page order: the GPU timelines, the waterfall, the changed ops, a
    /// roofline per side (those with points).
    pub figures: Vec<Figure>,
    pub timeline: Sheet,
    pub categories: Sheet,
}

/// Draws the comparison's charts; `labels` are the sides' (base, target).
pub async fn draw(engine: &Engine, labels: &[String; 2]) -> Result<Drawn, Error> {
    let timeline = view(engine, "compare_gpu_timeline").await?;
    let waterfall = view(engine, "chart_compare_waterfall").await?;
    let ops = view(engine, "compare_ops_summary").await?;
    let categories = view(engine, "compare_ops_by_category").await?;
    let points = view(engine, "chart_compare_roofline").await?;
    let roofs = view(engine, "chart_compare_roofs").await?;
    let mut figures = vec![Figure::new(
        "compare_gpu_timeline.svg",
        "GPU timeline",
        "compare_gpu_timeline",
        timelines(&timeline, labels),
    )];
    if waterfall.rows() > 0 {
        figures.push(Figure::new(
            "waterfall.svg",
            "Where the difference went",
            "chart_compare_waterfall",
            steps(&waterfall, labels),
        ));
    }
    if ops.rows() > 0 {
        figures.push(Figure::new(
            "changed_ops.svg",
            "Ops that changed most",
            "compare_ops_summary",
            changed_ops(&ops),
        ));
    }
    for (side, label) in ["base", "target"].iter().zip(labels) {
        let platform = texts(&roofs, "side")
            .iter()
            .zip(texts(&roofs, "platform"))
            .find(|(s, _)| s.as_deref() == Some(side))
            .and_then(|(_, p)| p);
        let subtitle = match platform {
            Some(p) => format!("{label} on {p}: one point per op and shape, area by kernel time"),
            None => format!(
                "{label}: no platform, roofs not drawn (--base-platform / --target-platform)"
            ),
        };
        let chart = crate::charts::roofline(&points, &roofs, Some(side), subtitle);
        if chart.points.is_empty() {
            continue;
        }
        let title = format!("Roofline: {label}");
        figures.push(Figure::new(
            &format!("roofline_{side}.svg"),
            &title,
            "chart_compare_roofline, chart_compare_roofs",
            chart.render(&title),
        ));
    }
    Ok(Drawn {
        figures,
        timeline,
        categories,
    })
}

/// The comparison's HTML page; `labels` are the sides' (base, target).
pub async fn html(engine: &Engine, labels: &[String; 2]) -> Result<String, Error> {
    let drawn = draw(engine, labels).await?;
    let mut page = Page::new(
        &format!("Comparison: {} vs {}", labels[0], labels[1]),
        "tracesql compare · target − base; times per run (or per profiler step)",
    );
    for figure in &drawn.figures {
        page.section(&figure.title);
        page.figure(figure);
        // The numbers under the charts they explain.
        match figure.file.as_str() {
            "compare_gpu_timeline.svg" => page.sheet(&drawn.timeline, usize::MAX),
            "waterfall.svg" => page.sheet(&drawn.categories, 30),
            _ => {}
        }
    }
    if !drawn.figures.iter().any(|f| f.file == "changed_ops.svg") {
        page.paragraph("No op has GPU time on either side.");
    }
    Ok(page.finish())
}

/// Two bars, base and target, split as the GPU timeline splits the span.
fn timelines(table: &Sheet, labels: &[String; 2]) -> String {
    let types = texts(table, "type");
    let columns = [numbers(table, "base_ms"), numbers(table, "target_ms")];
    let rows = labels
        .iter()
        .zip(columns)
        .map(|(label, values)| StackRow {
            label: label.clone(),
            segments: SEGMENTS
                .iter()
                .map(|(metric, name)| {
                    let value = types
                        .iter()
                        .position(|t| t.as_deref() == Some(*metric))
                        .and_then(|i| values[i])
                        .unwrap_or(0.0);
                    (name.to_string(), value)
                })
                .collect(),
        })
        .collect();
    StackedRows {
        rows,
        unit: "ms".into(),
    }
    .render("GPU span of each side")
}

fn steps(table: &Sheet, labels: &[String; 2]) -> String {
    let names = texts(table, "step");
    let totals = texts(table, "total");
    let values = numbers(table, "value_ms");
    let steps = (0..table.rows())
        .map(|i| {
            // Booleans print as Python does (True), as in the CSV files.
            let total = totals[i]
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("true"));
            let value = values[i].unwrap_or(0.0);
            let label = match names[i].as_deref() {
                Some("base GPU span") => format!("{} GPU span", labels[0]),
                Some("target GPU span") => format!("{} GPU span", labels[1]),
                other => other.unwrap_or_default().to_string(),
            };
            let hover = match total {
                true => format!("{label}: {value:.3} ms"),
                false => format!("{label}: {value:+.3} ms"),
            };
            Step {
                label,
                total,
                value,
                hover,
            }
        })
        .collect();
    Waterfall {
        steps,
        unit: "ms".into(),
    }
    .render(&format!(
        "Where the GPU span's difference went ({} → {})",
        labels[0], labels[1]
    ))
}

/// The ops with the largest change of kernel time (the view's order).
fn changed_ops(table: &Sheet) -> String {
    let names = texts(table, "name");
    let categories = texts(table, "category");
    let status = texts(table, "status");
    let (base, target, delta) = (
        numbers(table, "base_us"),
        numbers(table, "target_us"),
        numbers(table, "delta_us"),
    );
    let items = (0..table.rows().min(CHANGED_OPS))
        .map(|i| {
            let name = names[i].clone().unwrap_or_default();
            let d = delta[i].unwrap_or(0.0) / 1e3;
            // An op in several categories is coloured by its first.
            let category = categories[i].clone().unwrap_or_default();
            let group = category.split(',').next().unwrap_or("other").to_string();
            BarItem {
                label: name.clone(),
                value: d,
                group,
                value_text: format!("{}{} ms", if d > 0.0 { "+" } else { "" }, short(d)),
                hover: format!(
                    "{name} ({})\nbase {:.3} ms → target {:.3} ms ({d:+.3} ms)",
                    status[i].clone().unwrap_or_default(),
                    base[i].unwrap_or(0.0) / 1e3,
                    target[i].unwrap_or(0.0) / 1e3,
                ),
            }
        })
        .collect();
    Bars {
        items,
        unit: "Δ ms (target − base)".into(),
    }
    .render("Ops whose kernel time changed most")
}
