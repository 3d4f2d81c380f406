//! `--tracelens-compat`: one flag turns TraceLens's behaviour back on wherever
//! tracesql deliberately differs (tests/conformance/DIFFERENCES.md). These run on
//! fixtures and generated traces, so they hold without the conformance data; the
//! harness's `tracelens_compat_matches_exactly` checks the flag against every
//! reference.

use std::path::Path;

use crate::util::{fixture, tracesql_ok, write_trace};

/// One CSV value of `tracesql query FILE -e SQL` (one row, one column).
fn scalar(trace: &str, sql: &str, compat: bool) -> String {
    let mut args = vec!["query", trace, "-e", sql, "--format", "csv"];
    if compat {
        args.push("--tracelens-compat");
    }
    let out = tracesql_ok(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one header and one row: {out}");
    lines[1].to_string()
}

#[test]
fn the_flag_is_what_queries_read() {
    let trace = fixture("basic_linear.json");
    assert_eq!(scalar(&trace, "SELECT tracelens_compat()", false), "false");
    assert_eq!(scalar(&trace, "SELECT tracelens_compat()", true), "true");
}

/// GPU work launched without a flow event counts by default (linked by its
/// correlation id) and is unlinked under the flag, as TraceLens leaves it.
#[test]
fn flowless_launches_are_unlinked_only_under_the_flag() {
    let trace = fixture("no_flows_strings.json");
    let sql = "SELECT count(*) FROM linked_kernels";
    assert_eq!(scalar(&trace, sql, false), "5");
    assert_eq!(scalar(&trace, sql, true), "0");
    // A trace whose links are all flows is the same either way.
    let flows = fixture("analyze_spread.json");
    assert_eq!(scalar(&flows, sql, false), scalar(&flows, sql, true));
}

/// A trace with one `aten::mean` over the last dim of 8×16 (dim and keepdim
/// recorded as strings, as the profiler writes them) and its kernel.
fn mean_trace(dir: &Path) -> String {
    let events = serde_json::json!([
        {"ph": "X", "cat": "cpu_op", "name": "aten::mean", "pid": 1, "tid": 1,
         "ts": 100.0, "dur": 50.0,
         "args": {"External id": 1, "Input Dims": [[8, 16], [], [], []],
                  "Input type": ["float", "ScalarList", "Scalar", ""],
                  "Input Strides": [[16, 1], [], [], []],
                  "Concrete Inputs": ["", "[-1]", "False", ""]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
         "tid": 1, "ts": 110.0, "dur": 5.0, "args": {"External id": 1, "correlation": 7}},
        {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 110.0, "cat": "ac2g", "name": "ac2g"},
        {"ph": "X", "cat": "kernel", "name": "reduce_kernel", "pid": 0, "tid": 7,
         "ts": 120.0, "dur": 4.0,
         "args": {"External id": 1, "correlation": 7, "device": 0, "stream": 7}},
        {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 120.0, "cat": "ac2g",
         "name": "ac2g", "bp": "e"}
    ]);
    write_trace(dir, "mean.json", events)
}

/// The perf models count the reduce's real output by default (8 rows of 16 give
/// 8) and TraceLens's 1 under the flag (it misreads `dim` written as a string).
#[test]
fn perf_models_keep_tracelens_bugs_only_under_the_flag() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = mean_trace(dir.path());
    let sql = "SELECT p['py_str'] FROM (SELECT unnest(params) AS p FROM perf_metrics \
               WHERE name = 'aten::mean') WHERE p['key'] = 'num_output_elems'";
    assert_eq!(scalar(&trace, sql, false), "8");
    assert_eq!(scalar(&trace, sql, true), "1");
    let sql = "SELECT perf_params FROM unified_collected_ops WHERE name = 'aten::mean'";
    assert!(scalar(&trace, sql, false).contains("'num_output_elems': 8"));
    assert!(scalar(&trace, sql, true).contains("'num_output_elems': 1"));
}

/// An empty short_kernels_summary is written with its header by default, and as
/// TraceLens writes it under the flag: a blank line when the trace has no short
/// kernel at all.
#[test]
fn empty_short_kernel_sheet_is_written_as_tracelens_does_under_the_flag() {
    let trace = fixture("analyze_spread.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let (ours, theirs) = (dir.path().join("ours"), dir.path().join("theirs"));
    let sheet = "--only=short_kernels_summary";
    tracesql_ok(&["report", &trace, sheet, "--out", &ours.to_string_lossy()]);
    tracesql_ok(&[
        "report",
        &trace,
        sheet,
        "--out",
        &theirs.to_string_lossy(),
        "--tracelens-compat",
    ]);
    let read = |d: &Path| std::fs::read_to_string(d.join("short_kernels_summary.csv")).unwrap();
    assert!(
        read(&ours).starts_with("Parent cpu_op,Input dims,"),
        "{}",
        read(&ours)
    );
    assert_eq!(read(&theirs), "\n");
}

/// Reports an export stores were made with or without the flag; a run with the
/// other setting computes them again instead of reusing them.
#[test]
fn stored_reports_are_reused_only_with_the_same_setting() {
    let trace = fixture("no_flows_strings.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let export = dir.path().join("export");
    let export = export.to_string_lossy();
    tracesql_ok(&["export", &trace, "--parquet", &export]);
    // gpu_timeline of `input` (the export or the trace itself), as CSV.
    let timeline = |input: &str, compat: bool| {
        let mut args = vec!["report", input, "--only", "gpu_timeline", "--format", "csv"];
        if compat {
            args.push("--tracelens-compat");
        }
        tracesql_ok(&args)
    };
    assert_ne!(timeline(&export, false), timeline(&export, true));
    assert_eq!(timeline(&export, false), timeline(&trace, false));
    assert_eq!(timeline(&export, true), timeline(&trace, true));
}
