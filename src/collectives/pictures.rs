//! A multi-rank run drawn (`collectives --html`): each rank's GPU time split
//! into computation / exposed communication / exposed memcpy / idle, and the
//! rank × collective heatmap of the time ranks waited for each other.
//!
//! The charts read the views `rank_timeline` and `chart_rank_wait`; the page's
//! tables are the sheets `straggler_summary` and `rank_gpu_timeline`. The
//! run's analysis (`--analyze`) is added by the caller.

use crate::charts::page::Page;
use crate::charts::plots::{Heatmap, StackRow, StackedRows};
use crate::charts::{numbers, texts, Figure};
use crate::engine::Engine;
use crate::output::Sheet;
use crate::report::view_rows as view;
use crate::Error;

/// The run's charts, in page order: the per-rank timeline, the wait heatmap
/// (when any collective was matched).
pub async fn figures(engine: &Engine) -> Result<Vec<Figure>, Error> {
    let timeline = view(engine, "rank_timeline").await?;
    let wait = view(engine, "chart_rank_wait").await?;
    let mut out = Vec::new();
    if timeline.rows() > 0 {
        out.push(Figure::new(
            "rank_timeline.svg",
            "GPU time per rank",
            "rank_timeline",
            rank_timeline(&timeline),
        ));
    }
    if wait.rows() > 0 {
        out.push(Figure::new(
            "rank_wait.svg",
            "Wait per rank and collective",
            "chart_rank_wait",
            heatmap(&wait),
        ));
    }
    Ok(out)
}

fn rank_timeline(table: &Sheet) -> String {
    let ranks = numbers(table, "rank");
    let parts = [
        ("computation", numbers(table, "computation_ms")),
        ("exposed communication", numbers(table, "exposed_comm_ms")),
        ("exposed memcpy", numbers(table, "exposed_memcpy_ms")),
        ("idle", numbers(table, "idle_ms")),
    ];
    // Rank order, whatever order the view gave.
    let mut order: Vec<usize> = (0..ranks.len()).collect();
    order.sort_by(|a, b| {
        ranks[*a]
            .unwrap_or(-1.0)
            .total_cmp(&ranks[*b].unwrap_or(-1.0))
    });
    let rows = order
        .into_iter()
        .map(|i| StackRow {
            label: format!("rank {}", ranks[i].map_or(-1, |r| r as i64)),
            segments: parts
                .iter()
                .map(|(name, values)| (name.to_string(), values[i].unwrap_or(0.0)))
                .collect(),
        })
        .collect();
    StackedRows {
        rows,
        unit: "ms".into(),
    }
    .render("GPU time per rank")
}

/// The distinct keys, sorted, each with its position.
fn positions<K: Ord>(keys: impl Iterator<Item = K>) -> std::collections::BTreeMap<K, usize> {
    let sorted: std::collections::BTreeSet<K> = keys.collect();
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect()
}

/// Ranks down, collectives across (the view's column order: most wait first).
fn heatmap(table: &Sheet) -> String {
    let ranks = numbers(table, "rank");
    let names = texts(table, "collective");
    let order = numbers(table, "column_order");
    let wait = numbers(table, "wait_ms");
    // Each row's (rank, (column order, collective)), once.
    let keys: Vec<(i64, (i64, String))> = (0..table.rows())
        .map(|i| {
            let rank = ranks[i].unwrap_or(-1.0) as i64;
            let column = order[i].unwrap_or(0.0) as i64;
            (rank, (column, names[i].clone().unwrap_or_default()))
        })
        .collect();
    let rows = positions(keys.iter().map(|(r, _)| *r));
    let columns = positions(keys.iter().map(|(_, c)| c.clone()));
    let mut cells = vec![vec![None; columns.len()]; rows.len()];
    for ((rank, column), value) in keys.iter().zip(&wait) {
        cells[rows[rank]][columns[column]] = *value;
    }
    Heatmap {
        rows: rows.into_keys().map(|r| format!("rank {r}")).collect(),
        columns: columns.into_keys().map(|(_, name)| name).collect(),
        cells,
        unit: "ms".into(),
        measure: "wait".into(),
    }
    .render("Time each rank waited for the others, per collective")
}

/// The run's page: charts and the straggler table; `extra` adds sections
/// (the run's analysis) before it is finished.
pub async fn page(
    engine: &Engine,
    label: &str,
    sheets: &[Sheet],
    extra: impl FnOnce(&mut Page) -> Result<(), Error>,
) -> Result<String, Error> {
    let figures = figures(engine).await?;
    let mut page = Page::new(
        &format!("Collectives: {label}"),
        "tracesql collectives · wait = last arrival − this rank's arrival, on the common clock",
    );
    if figures.is_empty() {
        page.section("Ranks");
        page.paragraph("No rank has linked GPU work: nothing to draw.");
    }
    for figure in &figures {
        page.section(&figure.title);
        page.figure(figure);
    }
    for name in ["straggler_summary", "rank_gpu_timeline"] {
        if let Some(sheet) = sheets.iter().find(|s| s.sheet == name) {
            page.section(name);
            page.sheet(sheet, 64);
        }
    }
    extra(&mut page)?;
    Ok(page.finish())
}
