//! No report sheet or finding shows a share of GPU time above 100%: shares are
//! of the busy union or the GPU span, never of summed stream time (issue 25).
//! Every column of every CSV that `report --out`, `analyze --out` and
//! `collectives --analyze --out` write whose name says it is a share (`%`,
//! `pct`, `percent`, `share`) is read, except roofline efficiencies (a kernel
//! can beat a datasheet peak; the rule efficiency_over_peak flags it) and
//! changes (`delta`). Inputs: the field fixtures (streams overlapping), a
//! trace written here whose GPU work is mostly unlinked, and shared traces of
//! other shapes (a multi-GPU rocprofv3 run, a multi-rank run).

use std::path::Path;

use crate::util::{self, fixture, tracesql, write_trace};

/// Whether a column holds a share of time.
fn is_share(column: &str) -> bool {
    let c = column.to_lowercase();
    let share = ["%", "pct", "percent", "share"]
        .iter()
        .any(|k| c.contains(k));
    let exempt = ["roofline", "efficiency", "delta"]
        .iter()
        .any(|k| c.contains(k));
    share && !exempt
}

/// Every share cell above 100 in the CSV files under `dir`: (file, column, value).
fn shares_above_100(dir: &Path) -> Vec<(String, String, f64)> {
    let mut found = Vec::new();
    let mut checked = 0;
    for path in util::files_under(dir) {
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let mut reader = csv::Reader::from_path(&path).expect("csv");
        let header = reader.headers().expect("header").clone();
        for record in reader.records() {
            let record = record.expect("record");
            for (column, cell) in header.iter().zip(record.iter()) {
                let Ok(value) = cell.parse::<f64>() else {
                    continue;
                };
                if !is_share(column) {
                    continue;
                }
                checked += 1;
                if value > 100.0 + 1e-6 {
                    let file = path.strip_prefix(dir).unwrap_or(&path);
                    found.push((file.display().to_string(), column.to_string(), value));
                }
            }
        }
    }
    assert!(checked > 0, "no share column under {}", dir.display());
    found
}

/// `report --out` and `analyze --out` of one trace into `out`.
fn write_reports(trace: &str, out: &Path) {
    let dir = |name: &str| out.join(name).to_string_lossy().into_owned();
    tracesql()
        .args(["report", trace, "--out", &dir("report")])
        .ok();
    tracesql()
        .args(["analyze", trace, "--out", &dir("analysis")])
        .ok();
}

/// One short linked GEMM, then 1 ms of GPU work no launch claims: its time is
/// a hundred times the linked span the timeline measures.
fn mostly_unlinked(dir: &Path) -> String {
    let events = serde_json::json!([
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0.0, "dur": 20.0,
         "args": {"External id": 1, "Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5.0,
         "dur": 4.0, "args": {"External id": 1, "correlation": 11}},
        {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 100.0, "dur": 10.0,
         "args": {"External id": 1, "correlation": 11, "device": 0, "stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "orphan_kernel", "pid": 0, "tid": 7, "ts": 200.0, "dur": 1000.0,
         "args": {"device": 0, "stream": 7}}
    ]);
    write_trace(dir, "mostly_unlinked.json", events)
}

#[test]
fn no_share_of_gpu_time_is_above_100_percent_on_fixtures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unlinked = mostly_unlinked(dir.path());
    let traces = [
        fixture("field/moe_step.json"),
        fixture("field/decode_step.json"),
        unlinked.clone(),
    ];
    for (i, trace) in traces.iter().enumerate() {
        let out = dir.path().join(format!("t{i}"));
        write_reports(trace, &out);
        assert_eq!(shares_above_100(&out), [], "{trace}");
    }
    // The unlinked work is still reported, as a share of all GPU time, and
    // leaving most of it out of the reports is critical.
    let findings = std::fs::read_to_string(dir.path().join("t2/analysis/findings.json"))
        .expect("findings.json");
    let findings: serde_json::Value = serde_json::from_str(&findings).expect("JSON");
    let unlinked = findings
        .as_array()
        .expect("list")
        .iter()
        .find(|f| f["subject"] == "unlinked_gpu_work")
        .expect("an unlinked_gpu_work recommendation");
    assert_eq!(unlinked["reasons"][0]["severity"], "critical");
    assert!(unlinked["share_pct_e2e"].is_null());
    // 1000 of the 1010 µs of GPU work.
    let message = unlinked["reasons"][0]["message"].as_str().expect("message");
    assert!(message.contains("(99.01% of GPU time)"), "{message}");
}

#[test]
fn no_share_of_gpu_time_is_above_100_percent_on_shared_runs() {
    let Some(data) = util::conformance_dir() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let multiagent =
        data.join("formats/rocprof/synthetic_multiagent_results/synthetic_multiagent_results.json");
    let hta = data.join("traces/hta/ns_resolution_rank0.json.gz");
    for (i, trace) in [multiagent, hta].iter().enumerate() {
        let out = dir.path().join(format!("t{i}"));
        write_reports(&trace.to_string_lossy(), &out);
        assert_eq!(shares_above_100(&out), [], "{}", trace.display());
    }
    let run = data.join("collectives/dlrm8_param/traces");
    let out = dir.path().join("run");
    tracesql()
        .arg("collectives")
        .arg(&run)
        .arg("--analyze")
        .arg("--out")
        .arg(&out)
        .ok();
    assert_eq!(shares_above_100(&out), []);
}
