//! The same input gives the same bytes: every file `report --out`, `report
//! --xlsx`, `export --parquet`, `analyze --out / --html` (standalone and
//! comparative, charts included) and `compare --out / --xlsx / --html` (default
//! and `--tracelens-compat`) write is byte-identical
//! between two runs (reports run side by side as tasks, views are computed in
//! whatever order the scheduler picks, so row order and file contents must not
//! depend on it).

use std::path::Path;

use crate::util::{conformance_dir, fixture, snapshot, tracesql};

/// Runs every writing command on `trace` into `out`.
fn write_everything(trace: &str, out: &Path) {
    let dir = |name: &str| out.join(name).to_string_lossy().into_owned();
    tracesql()
        .args(["report", trace, "--out", &dir("report")])
        .ok();
    tracesql()
        .args(["report", trace, "--xlsx", &dir("report.xlsx")])
        .ok();
    tracesql()
        .args(["export", trace, "--parquet", &dir("export")])
        .ok();
    tracesql()
        .args([
            "analyze",
            trace,
            "--platform",
            "H100",
            "--out",
            &dir("analysis"),
            "--html",
            &dir("analysis.html"),
        ])
        .ok();
    tracesql()
        .args(["compare", trace, trace, "--out", &dir("compare")])
        .args(["--xlsx", &dir("compare.xlsx")])
        .args(["--html", &dir("compare.html")])
        .ok();
    tracesql()
        .args(["--tracelens-compat", "compare", trace, trace])
        .args(["--names", "a", "b", "--out", &dir("compare_compat")])
        .ok();
    tracesql()
        .args([
            "analyze",
            trace,
            "--platform",
            "MI300X",
            "--reference",
            trace,
        ])
        .args(["--reference-platform", "H100", "--out", &dir("comparative")])
        .ok();
}

fn assert_same_bytes_twice(trace: &str) {
    let (one, two) = (
        tempfile::tempdir().expect("temp"),
        tempfile::tempdir().expect("temp"),
    );
    write_everything(trace, one.path());
    write_everything(trace, two.path());
    let (first, second) = (snapshot(one.path()), snapshot(two.path()));
    assert!(first.len() >= 20, "{trace}: only {} files", first.len());
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>(),
        "{trace}: the same files"
    );
    for (path, bytes) in &first {
        assert!(
            bytes == &second[path],
            "{trace}: {} differs between two runs",
            path.display()
        );
    }
    for kind in [
        "report.xlsx",
        "export/tracesql-export.json",
        "analysis/findings.csv",
        "compare/compare_lca.csv",
        "compare.xlsx",
        "compare_compat/compare_perf_reports/gpu_timeline.csv",
        "compare_compat/tracediff/merged_tree_output.txt",
        "comparative/comparative_analysis.md",
        "comparative/charts/waterfall.svg",
        "analysis/charts/gpu_timeline.svg",
        "analysis.html",
        "compare.html",
    ] {
        assert!(first.contains_key(Path::new(kind)), "{trace}: no {kind}");
    }
}

#[test]
fn two_runs_write_the_same_bytes_on_a_fixture() {
    assert_same_bytes_twice(&fixture("analyze_attention.json"));
}

#[test]
fn two_runs_write_the_same_bytes_on_a_real_trace() {
    let Some(data) = conformance_dir() else {
        return;
    };
    let trace = data.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    assert_same_bytes_twice(&trace.to_string_lossy());
}
