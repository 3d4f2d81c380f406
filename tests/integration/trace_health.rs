//! `trace_health`: one row per check per trace, the one-line summary `report`
//! and `analyze` print, and the analyzer's rule on its warnings.

use std::path::Path;

use crate::util::{fixture, tracesql, tracesql_ok, write_trace};

/// `tracesql query TRACE -e SQL --format csv` as rows of cells (header dropped).
fn rows(trace: &str, sql: &str) -> Vec<Vec<String>> {
    let out = tracesql_ok(&["query", trace, "-e", sql, "--format", "csv"]);
    out.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// A trace with one of each defect (times in µs):
/// * op A (External id 1) launches k1 normally;
/// * op B (External id 2) ends at 320 and its launch call starts at 330;
/// * k3 starts at 405 on stream 7, while k2 runs there until 410;
/// * k4 has a correlation id no launch call carries;
/// * two launch calls share correlation 14 (k5);
/// * a cpu_op lasts 0 µs; a flow has a start and no end;
/// * the profiler's span ends at 560, before k5 (600);
/// * on the main thread a cpu_op at 650 follows one at 700 in the file;
/// * no deviceProperties.
fn defective_trace(dir: &Path) -> String {
    let op = |name: &str, ext: i64, ts: f64, dur: f64| {
        serde_json::json!({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
                           "ts": ts, "dur": dur, "args": {"External id": ext}})
    };
    let launch = |ext: i64, corr: i64, ts: f64| {
        serde_json::json!({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 1, "tid": 1, "ts": ts, "dur": 4.0,
                           "args": {"External id": ext, "correlation": corr}})
    };
    let kernel = |name: &str, corr: i64, ts: f64, dur: f64| {
        serde_json::json!({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": ts, "dur": dur,
                           "args": {"correlation": corr, "device": 0, "stream": 7}})
    };
    let events = vec![
        serde_json::json!({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)",
                           "pid": "Spans", "tid": "PyTorch Profiler", "ts": 50.0, "dur": 510.0}),
        op("op_a", 1, 100.0, 50.0),
        launch(1, 11, 110.0),
        op("op_b", 2, 300.0, 20.0),
        launch(2, 12, 330.0),
        launch(3, 13, 340.0),
        launch(4, 14, 350.0),
        launch(5, 14, 355.0),
        op("empty_op", 6, 360.0, 0.0),
        op("late_in_file", 7, 700.0, 5.0),
        op("early_in_file", 8, 650.0, 5.0),
        kernel("k1", 11, 200.0, 10.0),
        kernel("k2", 12, 400.0, 10.0),
        kernel("k3", 13, 405.0, 10.0),
        kernel("k4", 99, 500.0, 10.0),
        kernel("k5", 14, 600.0, 4.0),
        serde_json::json!({"ph": "s", "id": 77, "pid": 1, "tid": 1, "ts": 111.0,
                           "cat": "ac2g", "name": "ac2g"}),
    ];
    write_trace(dir, "defective.json", serde_json::Value::Array(events))
}

#[test]
fn every_check_finds_its_defect() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = defective_trace(dir.path());
    let found = rows(
        &trace,
        "SELECT check, severity, count, round(gpu_time_us, 3), array_to_string(example_uids, ' ') \
         FROM trace_health",
    );
    let get = |check: &str| -> Vec<String> {
        found
            .iter()
            .find(|r| r[0] == check)
            .unwrap_or_else(|| panic!("no row for {check}: {found:?}"))
            .clone()
    };
    assert_eq!(found.len(), 10, "one row per check: {found:?}");
    // (check, severity, count, GPU time, example uids)
    let expected = [
        ("unlinked_gpu_work", "warning", "1", "10.0", "14"),
        ("stream_overlap", "warning", "1", "5.0", "13"),
        ("duplicate_correlation", "warning", "1", "4.0", "6"),
        ("launch_after_op_end", "warning", "1", "10.0", "3"),
        // op_a (uid 1) launches k1 and records no shapes.
        ("shapes_not_recorded", "warning", "1", "10.0", "1"),
        ("zero_durations", "info", "1", "", "8"),
        ("flows_missing_an_end", "info", "1", "", "16"),
        ("outside_profiled_window", "info", "3", "4.0", "9 10 15"),
        ("timestamps_backwards", "info", "1", "", "10"),
        ("missing_device_properties", "info", "1", "", ""),
    ];
    for (check, severity, count, gpu, uids) in expected {
        assert_eq!(get(check), [check, severity, count, gpu, uids], "{check}");
    }
}

#[test]
fn a_clean_trace_passes_every_warning_check() {
    let trace = fixture("basic_linear.json");
    let warnings = rows(
        &trace,
        "SELECT check, count FROM trace_health WHERE severity = 'warning' ORDER BY check",
    );
    assert_eq!(warnings.len(), 5);
    assert!(warnings.iter().all(|r| r[1] == "0"), "{warnings:?}");
    // cudaDeviceSynchronize's flow has a start only (fixtures/README.md).
    let flows = rows(
        &trace,
        "SELECT count FROM trace_health WHERE check = 'flows_missing_an_end'",
    );
    assert_eq!(flows, [["1"]]);
}

#[test]
fn report_and_analyze_print_the_summary_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = defective_trace(dir.path());
    let line = "defective: reports cover 74.4% of GPU time; 5 warnings: see trace_health; \
                shapes not recorded (record_shapes off) for 1 op: their FLOPs, bytes and efficiency are unknown";
    let out = dir.path().join("out");
    let run = tracesql().args(["report", &trace, "--out"]).arg(&out).run();
    assert!(run.success(), "{}", run.stderr);
    assert!(run.stderr.contains(line), "{}", run.stderr);
    let run = tracesql().args(["analyze", &trace]).run();
    assert!(run.success(), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Trace health: reports cover 74.4% of GPU time; 5 warnings"),
        "{}",
        run.stdout
    );
    let clean = tracesql()
        .args([
            "report",
            &fixture("basic_linear.json"),
            "--only",
            "gpu_timeline",
        ])
        .run();
    assert!(clean
        .stderr
        .contains("basic_linear: reports cover 100.0% of GPU time; no warnings"));
}

#[test]
fn the_analyzer_turns_each_warning_into_a_finding() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = defective_trace(dir.path());
    let out = dir.path().join("analysis");
    tracesql_ok(&["analyze", &trace, "--out", &out.to_string_lossy()]);
    let findings = std::fs::read_to_string(out.join("findings.json")).expect("findings.json");
    let findings: serde_json::Value = serde_json::from_str(&findings).expect("JSON");
    // findings.json holds recommendations (one per subject) with the rules behind them.
    let mut subjects: Vec<String> = findings
        .as_array()
        .expect("a list of recommendations")
        .iter()
        .filter(|f| f["rules"] == serde_json::json!(["trace_health_warnings"]))
        .map(|f| f["subject"].as_str().unwrap_or_default().to_string())
        .collect();
    subjects.sort();
    assert_eq!(
        subjects,
        [
            "duplicate_correlation",
            "launch_after_op_end",
            "shapes_not_recorded",
            "stream_overlap",
            "unlinked_gpu_work"
        ]
    );
}
