//! The comparative analysis (`analyze TARGET --reference REF`): the JARVIS
//! workflow's comparative mode made deterministic (spec compare.md §6).
//!
//! Every number comes from the comparison views `comparative_summary`,
//! `comparative_ops`, `comparative_findings` and `comparative_platforms`
//! (`queries/comparison/`); this module checks that both platforms' peaks are
//! of one kind, and lays the views out as `comparative_analysis.md`,
//! `comparison_findings.csv` and `comparison_findings.json`.

use std::io::{self, Write};
use std::path::Path;

use super::Comparison;
use crate::analyze::render::{md_table, short_number, table_json};
use crate::engine::Engine;
use crate::output::{atomic, report_csv, Sheet};
use crate::report::view_rows as view;
use crate::Error;

/// The files `write_dir` writes.
pub const OUT_FILES: [&str; 3] = [
    "comparative_analysis.md",
    "comparison_findings.csv",
    "comparison_findings.json",
];

/// What the comparative report shows.
pub struct Comparative {
    pub reference: String,
    pub target: String,
    pub reference_platform: Option<String>,
    pub target_platform: Option<String>,
    pub comparability: Sheet,
    pub summary: Sheet,
    pub ops: Sheet,
    pub findings: Sheet,
    pub platforms: Sheet,
    pub tolerance_pct: String,
    /// The comparison's charts (`compare --html`'s), written under `charts/`
    /// and linked from the report: drawn by [`with_charts`] for a report
    /// written to a directory (a printed report has nowhere to link them).
    pub figures: Vec<crate::charts::Figure>,
}

/// Runs the comparative views over a comparison session whose base side is the
/// reference. Both platforms must be known and of one peak kind.
pub async fn comparative(engine: &Engine, comparison: &Comparison) -> Result<Comparative, Error> {
    let platforms = view(engine, "comparative_platforms").await?;
    let column = |sheet: &Sheet, name: &str| -> Vec<String> {
        let at = sheet.column(name);
        sheet
            .cells()
            .into_iter()
            .map(|row| at.map(|i| row[i].clone()).unwrap_or_default())
            .collect()
    };
    let names = column(&platforms, "platform");
    let kinds = column(&platforms, "peak_kind");
    let sides = column(&platforms, "side");
    let platform_of = |side: &str| -> Option<String> {
        let at = sides.iter().position(|s| s == side)?;
        Some(names[at].clone()).filter(|n| !n.is_empty())
    };
    let (reference_platform, target_platform) = (platform_of("base"), platform_of("target"));
    if reference_platform.is_none() || target_platform.is_none() {
        return Err(Error::Usage(
            "a comparative analysis needs both platforms: give --platform (target) and --reference-platform, or traces whose deviceProperties name a known GPU".into(),
        ));
    }
    if kinds.len() == 2 && kinds[0] != kinds[1] {
        return Err(Error::Usage(format!(
            "the platforms' peaks are of different kinds ({} {} vs {} {}): expected ratios need one kind on both sides (datasheet or achievable)",
            names[0], kinds[0], names[1], kinds[1]
        )));
    }
    let settings = view(engine, "comparative_settings").await?;
    let tolerance_pct = settings
        .cells()
        .first()
        .and_then(|r| r.first().cloned())
        .unwrap_or_default();
    Ok(Comparative {
        reference: comparison.base.label.clone(),
        target: comparison.target.label.clone(),
        reference_platform,
        target_platform,
        comparability: view(engine, "comparability").await?,
        summary: view(engine, "comparative_summary").await?,
        ops: view(engine, "comparative_ops").await?,
        findings: view(engine, "comparative_findings").await?,
        platforms,
        tolerance_pct,
        figures: Vec::new(),
    })
}

/// `c` with the comparison's charts drawn (`compare::pictures::draw`).
pub async fn with_charts(engine: &Engine, mut c: Comparative) -> Result<Comparative, Error> {
    let labels = [c.reference.clone(), c.target.clone()];
    c.figures = super::pictures::draw(engine, &labels).await?.figures;
    Ok(c)
}

/// Rows of `sheet` as display cells, numbers rounded for reading.
fn rows(sheet: &Sheet, columns: &[&str]) -> Vec<Vec<String>> {
    let at: Vec<Option<usize>> = columns.iter().map(|c| sheet.column(c)).collect();
    sheet
        .cells()
        .into_iter()
        .map(|row| {
            at.iter()
                .map(|i| i.map(|i| short_number(&row[i])).unwrap_or_default())
                .collect()
        })
        .collect()
}

fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// `comparative_analysis.md`.
pub fn markdown(out: &mut dyn Write, c: &Comparative) -> io::Result<()> {
    let platform = |p: &Option<String>| p.clone().unwrap_or_else(|| "unknown".into());
    let (rp, tp) = (
        platform(&c.reference_platform),
        platform(&c.target_platform),
    );
    writeln!(
        out,
        "# Performance comparison: {} ({rp}) vs {} ({tp})\n",
        c.reference, c.target
    )?;
    writeln!(
        out,
        "Generated by tracesql {} (`tracesql analyze TARGET --reference REF`). The reference is \
         {} on {rp}, the target {} on {tp}; differences are target − reference. Every figure \
         comes from the two traces and the platforms' peaks.\n",
        env!("CARGO_PKG_VERSION"),
        c.reference,
        c.target
    )?;
    writeln!(out, "## Executive summary\n")?;
    let findings = c.findings.rows();
    let unexplained: f64 = c
        .findings
        .column("unexplained_us")
        .map(|i| {
            c.findings
                .cells()
                .iter()
                .filter_map(|r| r[i].parse::<f64>().ok())
                .sum()
        })
        .unwrap_or(0.0);
    writeln!(
        out,
        "{findings} op shapes take longer on the target than the two platforms' rooflines \
         explain (tolerance {}%); together {unexplained:.1} µs per run that the hardware does \
         not account for.\n",
        c.tolerance_pct
    )?;
    let summary_columns = ["metric", "reference", "target", "delta", "delta_pct"];
    md_table(
        out,
        &header(&["Metric (ms)", "Reference", "Target", "Δ", "Δ %"]),
        &rows(&c.summary, &summary_columns),
    )?;
    writeln!(out, "Comparability:\n")?;
    md_table(
        out,
        &header(&["Check", "Reference", "Target", "Verdict"]),
        &rows(&c.comparability, &["check", "base", "target", "verdict"]),
    )?;
    if !c.figures.is_empty() {
        writeln!(out, "### Charts\n")?;
        write!(out, "{}", crate::charts::markdown_links(&c.figures))?;
    }
    writeln!(out, "## Recommendations for {}\n", c.target)?;
    if findings == 0 {
        writeln!(
            out,
            "No op shape is slower on the target than the hardware explains.\n"
        )?;
    }
    let finding_columns = ["priority", "name", "Input Dims", "gap", "action", "impact"];
    for row in rows(&c.findings, &finding_columns) {
        writeln!(out, "### {}. {} {}\n", row[0], row[1], row[2])?;
        writeln!(out, "- **Gap**: {}", row[3])?;
        writeln!(out, "- **Action**: {}", row[4])?;
        writeln!(out, "- **Impact**: {}\n", row[5])?;
    }
    writeln!(out, "## Detailed comparison per operation\n")?;
    let op_columns = [
        "name",
        "Input Dims",
        "ref_us",
        "target_us",
        "delta_pct",
        "expected_ratio",
        "actual_ratio",
        "expected",
    ];
    md_table(
        out,
        &header(&[
            "Op",
            "Shape",
            "Reference (µs)",
            "Target (µs)",
            "Δ %",
            "Expected ratio",
            "Actual ratio",
            "Expected?",
        ]),
        &rows(&c.ops, &op_columns),
    )?;
    writeln!(out, "## Appendix\n")?;
    writeln!(
        out,
        "Platforms (peaks used by the roofline of each side):\n"
    )?;
    let platform_columns = [
        "side",
        "platform",
        "peak_kind",
        "memory_tb_s",
        "matrix_bf16",
        "matrix_fp16",
        "vector_fp32",
        "source",
    ];
    md_table(
        out,
        &header(&[
            "Side",
            "Platform",
            "Peak kind",
            "HBM TB/s",
            "BF16 TFLOPS",
            "FP16 TFLOPS",
            "FP32 vector TFLOPS",
            "Source",
        ]),
        &rows(&c.platforms, &platform_columns),
    )?;
    writeln!(
        out,
        "Method: for each op shape both traces ran, the expected time ratio is the target's \
         roofline time over the reference's, max(FLOPs / peak(compute spec), bytes / HBM \
         bandwidth) on each platform (an op may be memory-bound on one and compute-bound on the \
         other); shapes without a perf model use the bandwidth ratio. An op is unexpected when \
         its measured ratio exceeds the expected one by more than {}% (or falls below it by as \
         much: the reference is then the slow side). Priority is the target time the hardware \
         does not explain (target − expected ratio × reference). Both sides use the same kind of \
         peak. Views: comparative_ops, comparative_findings, comparative_summary, \
         comparative_platforms (`tracesql queries show NAME`).",
        c.tolerance_pct
    )?;
    Ok(())
}

/// Writes the three files into `dir`, all or none.
pub fn write_dir(dir: &Path, c: &Comparative) -> Result<(), Error> {
    let fail = |path: &Path, e: io::Error| Error::Output(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let json = serde_json::Value::Array(table_json(&c.findings)?);
    let json = serde_json::to_string_pretty(&json).map_err(|e| Error::Output(e.to_string()))?;
    let mut staged = atomic::Staged::new();
    if !c.figures.is_empty() {
        let charts = dir.join("charts");
        std::fs::create_dir_all(&charts).map_err(|e| fail(&charts, e))?;
    }
    for figure in &c.figures {
        let path = dir.join("charts").join(&figure.file);
        staged
            .stage(&path, |out| out.write_all(figure.svg.as_bytes()))
            .map_err(|e| fail(&path, e))?;
    }
    let [md, csv, json_file] = OUT_FILES.map(|f| dir.join(f));
    staged
        .stage(&md, |out| markdown(out, c))
        .map_err(|e| fail(&md, e))?;
    staged
        .stage(&csv, |out| {
            report_csv::write_csv(out, &c.findings.header, &c.findings.batches)
        })
        .map_err(|e| fail(&csv, e))?;
    staged
        .stage(&json_file, |out| writeln!(out, "{json}"))
        .map_err(|e| fail(&json_file, e))?;
    staged.commit().map_err(|e| fail(dir, e))
}
