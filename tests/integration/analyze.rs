//! `tracesql analyze`: the system and validation rules on the synthetic fixtures
//! of fixtures/analyze/ (each rule: one fixture that triggers it, one that does
//! not), the ranking query, the CLI's files and errors, and the report's sections
//! on a conformance trace. Expected values are computed by hand from the fixtures'
//! timings (fixtures/analyze/EXPECTED.md), never read from our own output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tracesql::analyze::{analyze, Analysis};
use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{self, tracesql};

fn an_fixture(name: &str) -> String {
    util::fixture(&format!("analyze/{name}"))
}

/// Analyzes one fixture (platform H100 when given).
async fn run(name: &str, platform: Option<&str>) -> Analysis {
    let mut engine = Engine::new();
    engine
        .add(load_trace(&an_fixture(name)).expect("fixture loads"))
        .expect("registers");
    engine.set_platform(platform).expect("known platform");
    engine.register_views().await.expect("views register");
    analyze(&engine)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The findings of `rule`, each as column -> display cell.
fn findings_of(analysis: &Analysis, rule: &str) -> Vec<BTreeMap<String, String>> {
    let f = &analysis.findings;
    f.cells()
        .into_iter()
        .map(|row| {
            f.header
                .iter()
                .cloned()
                .zip(row)
                .collect::<BTreeMap<_, _>>()
        })
        .filter(|row| row["rule"] == rule)
        .collect()
}

fn num(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?} is not a number", row[column]))
}

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

fn metrics(row: &BTreeMap<String, String>) -> serde_json::Value {
    serde_json::from_str(&row["metrics"]).unwrap_or_else(|e| panic!("metrics JSON: {e}"))
}

#[tokio::test]
async fn gpu_idle() {
    // Two 100 µs GEMMs at 1000 and 1400: span 500 µs, idle 300 µs = 60% > 50.
    let a = run("an_idle.json", None).await;
    let f = findings_of(&a, "gpu_idle");
    assert_eq!(f.len(), 1, "{f:?}");
    let f = &f[0];
    assert_eq!(
        (f["severity"].as_str(), f["category"].as_str()),
        ("critical", "system")
    );
    assert_eq!(f["metric"], "idle_pct");
    close(num(f, "value"), 60.0, "idle_pct");
    close(num(f, "threshold"), 50.0, "threshold");
    close(num(f, "time_us"), 300.0, "idle time");
    // The gap ends at the second GEMM: event 6 (ops 0-1, then kernel, f, runtime, s).
    assert_eq!(f["evidence_uids"], "[6]");
    assert_eq!(metrics(f)["gaps"], 1);
    // Ranking: severity critical ranks critical; idle time is removable.
    assert_eq!(f["priority"], "critical");
    close(num(f, "impact_ms_at_80"), 0.3, "impact");
    close(num(f, "impact_pct_e2e"), 60.0, "impact e2e");
    assert_eq!(f["finding_rank"], "1");

    // Back-to-back kernels: 10 µs idle of a 660 µs span (1.5%).
    let quiet = run("an_quiet.json", None).await;
    assert!(findings_of(&quiet, "gpu_idle").is_empty());
}

#[tokio::test]
async fn memcpy_direction() {
    // 12 H2D copies of 2 µs from 1000, a GEMM [1040, 1440), a D2H copy [1440, 1490).
    let a = run("an_memcpy.json", None).await;
    let f = findings_of(&a, "memcpy_direction");
    let by: BTreeMap<&str, &BTreeMap<String, String>> =
        f.iter().map(|r| (r["subject"].as_str(), r)).collect();
    assert_eq!(by.keys().copied().collect::<Vec<_>>(), ["D2H", "H2D"]);
    let d2h = by["D2H"];
    assert_eq!(d2h["metric"], "memcpy_pct");
    close(num(d2h, "value"), 50.0 / 490.0 * 100.0, "D2H share");
    close(num(d2h, "threshold"), 5.0, "D2H threshold");
    close(num(d2h, "time_us"), 50.0, "D2H time");
    let h2d = by["H2D"];
    // 24 µs = 4.9% of the span: flagged for its count, 12 > 10.
    assert_eq!(h2d["metric"], "transfers");
    close(num(h2d, "value"), 12.0, "H2D transfers");
    close(num(h2d, "threshold"), 10.0, "H2D threshold");
    close(num(h2d, "time_us"), 24.0, "H2D time");
    assert_eq!(metrics(h2d)["bytes"], 12 * 65536);
    // Both warnings rank medium, the larger removable time first.
    assert_eq!(
        (d2h["priority"].as_str(), h2d["priority"].as_str()),
        ("medium", "medium")
    );
    assert!(num(d2h, "finding_rank") < num(h2d, "finding_rank"));
    close(num(d2h, "impact_ms_at_50"), 0.05, "D2H impact");

    // Two 4 µs H2D copies in 660 µs.
    let quiet = run("an_quiet.json", None).await;
    assert!(findings_of(&quiet, "memcpy_direction").is_empty());
}

#[tokio::test]
async fn communication_exposed_and_overlap() {
    // GEMM [1000, 1200), all-reduce [1150, 1350): span 350, exposed 150, overlap 50.
    let a = run("an_comm.json", None).await;
    let f = findings_of(&a, "exposed_communication");
    assert_eq!(f.len(), 1, "{f:?}");
    close(num(&f[0], "value"), 150.0 / 350.0 * 100.0, "exposed share");
    close(num(&f[0], "threshold"), 5.0, "threshold");
    close(num(&f[0], "time_us"), 150.0, "exposed time");
    let f = findings_of(&a, "comm_overlap");
    assert_eq!(f.len(), 1, "{f:?}");
    close(num(&f[0], "value"), 25.0, "overlap");
    close(num(&f[0], "threshold"), 70.0, "threshold");
    assert_eq!(f[0]["time_us"], "", "no double-counted impact");

    // The all-reduce [1050, 1250) runs under a GEMM [1000, 1300): fully overlapped.
    let quiet = run("an_quiet.json", None).await;
    assert!(findings_of(&quiet, "exposed_communication").is_empty());
    assert!(findings_of(&quiet, "comm_overlap").is_empty());
}

#[tokio::test]
async fn launch_bound() {
    // Two root ops, 4 kernels of 5 µs each: 8 of 8 short, 4 kernels per op.
    let a = run("an_launch.json", None).await;
    let f = findings_of(&a, "launch_bound");
    assert_eq!(f.len(), 1, "{f:?}");
    close(num(&f[0], "value"), 100.0, "short share");
    close(num(&f[0], "threshold"), 50.0, "threshold");
    let m = metrics(&f[0]);
    assert_eq!(
        (m["kernels"].as_i64(), m["root_ops"].as_i64()),
        (Some(8), Some(2))
    );
    close(
        m["kernels_per_op"].as_f64().unwrap_or(0.0),
        4.0,
        "kernels per op",
    );
    // Root op uids 0 and 1.
    assert_eq!(f[0]["evidence_uids"], "[0, 1]");

    // Kernels of 50 and 300 µs.
    let quiet = run("an_quiet.json", None).await;
    assert!(findings_of(&quiet, "launch_bound").is_empty());
}

#[tokio::test]
async fn time_sanity_and_coverage() {
    // addmm and relu side by side [1000, 1100), a custom op's GEMM [1100, 1200):
    // op groups sum to 300 µs, the timeline is busy 200 µs: 150%.
    let a = run("an_overlap.json", None).await;
    let f = findings_of(&a, "time_sanity");
    assert_eq!(f.len(), 1, "{f:?}");
    close(num(&f[0], "value"), 150.0, "category sum %");
    close(num(&f[0], "threshold"), 105.0, "threshold");
    // myext::fused_block has no perf model: 100 µs of a 200 µs span.
    let f = findings_of(&a, "perf_model_coverage");
    let mine: Vec<_> = f
        .iter()
        .filter(|r| r["subject"] == "myext::fused_block")
        .collect();
    assert_eq!(mine.len(), 1, "{f:?}");
    close(num(mine[0], "value"), 50.0, "uncovered share");
    assert_eq!(mine[0]["severity"], "info");
    assert_eq!(mine[0]["priority"], "low");

    // Two addmm: 200 µs of groups, 200 µs busy; addmm has a perf model.
    let idle = run("an_idle.json", None).await;
    assert!(findings_of(&idle, "time_sanity").is_empty());
    assert!(findings_of(&idle, "perf_model_coverage").is_empty());
}

#[tokio::test]
async fn efficiency_over_peak() {
    // addmm M=256, K=1024, N=4096 in bf16 with bias, its GEMM 1 µs long.
    let (m, n, k) = (256.0_f64, 4096.0_f64, 1024.0_f64);
    let flops = 2.0 * m * n * k + m * n;
    let bytes = 2.0 * (m * k + k * n + m * n + n);
    // H100: 989.4 TFLOPS bf16, 3.35 TB/s; the roofline time is the larger one, µs.
    let roofline_us = (flops / 989.4e6).max(bytes / 3.35e6);
    let a = run("an_overpeak.json", Some("H100")).await;
    let f = findings_of(&a, "efficiency_over_peak");
    assert_eq!(f.len(), 1, "{f:?}");
    let f = &f[0];
    assert_eq!(
        (f["severity"].as_str(), f["category"].as_str()),
        ("warning", "validation")
    );
    assert!(
        f["subject"].starts_with("aten::addmm [[4096], [256, 1024]"),
        "{}",
        f["subject"]
    );
    let want = roofline_us / 1.0 * 100.0;
    assert!(
        (num(f, "value") - want).abs() < 1e-6 * want,
        "got {}, want {want}",
        f["value"]
    );
    close(num(f, "threshold"), 100.0, "threshold");
    // Above every target: no time to gain.
    close(num(f, "impact_ms_at_80"), 0.0, "impact");
    assert_eq!(f["priority"], "medium");

    // The same GEMM at 100 µs: a few % of peak. Without a platform: no efficiency.
    let slow = run("an_idle.json", Some("H100")).await;
    assert!(findings_of(&slow, "efficiency_over_peak").is_empty());
    let none = run("an_overpeak.json", None).await;
    assert!(findings_of(&none, "efficiency_over_peak").is_empty());
}

#[tokio::test]
async fn findings_ranking_and_sections_on_a_fixture() {
    let a = run("an_memcpy.json", Some("H100")).await;
    // finding_rank is 1..n in row order.
    let ranks: Vec<String> = findings_of_all(&a)
        .iter()
        .map(|r| r["finding_rank"].clone())
        .collect();
    let want: Vec<String> = (1..=ranks.len()).map(|i| i.to_string()).collect();
    assert_eq!(ranks, want);
    // The platform appendix lists H100's HBM peak.
    let peaks = a.peaks.cells();
    assert!(
        peaks
            .iter()
            .any(|r| r[1] == "memory_tb_s" && r[2] == "3.35"),
        "{peaks:?}"
    );
    let names: Vec<&str> = a.rules.iter().map(|r| r.name.as_str()).collect();
    for rule in [
        "comm_overlap",
        "efficiency_over_peak",
        "exposed_communication",
        "gpu_idle",
        "launch_bound",
        "memcpy_direction",
        "perf_model_coverage",
        "time_sanity",
    ] {
        assert!(names.contains(&rule), "{rule} did not run: {names:?}");
    }
}

fn findings_of_all(analysis: &Analysis) -> Vec<BTreeMap<String, String>> {
    let f = &analysis.findings;
    f.cells()
        .into_iter()
        .map(|row| f.header.iter().cloned().zip(row).collect())
        .collect()
}

const RULE_COLUMNS: &str = "severity, category, subject, metric, value, threshold, message, \
    action_a, action_b, time_us, category_share_pct, efficiency_pct, op_rank, metrics, evidence_uids";

fn write_rule(dir: &Path, name: &str, select: &str) -> PathBuf {
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(
        &path,
        format!(
            "-- name: {name}\n-- version: 3\n-- kind: rule\n-- description: a user rule for the tests\n{select}\n"
        ),
    )
    .expect("write rule");
    path
}

#[test]
fn cli_writes_the_four_files_and_ranks_a_user_rule() {
    let rules = tempfile::tempdir().expect("tmp");
    // A user rule: one critical finding per GEMM kernel longer than 50 µs.
    write_rule(
        rules.path(),
        "long_gemm",
        "SELECT 'critical' AS severity, 'GEMM' AS category, name AS subject, 'dur_us' AS metric, \
         dur AS value, 50.0 AS threshold, 'a long GEMM kernel' AS message, 'a' AS action_a, \
         'b' AS action_b, dur AS time_us, CAST(NULL AS DOUBLE) AS category_share_pct, \
         CAST(NULL AS DOUBLE) AS efficiency_pct, CAST(NULL AS BIGINT) AS op_rank, \
         '{\"dur\":' || CAST(dur AS VARCHAR) || '}' AS metrics, make_array(uid) AS evidence_uids \
         FROM kernels WHERE name LIKE 'sm90%' AND dur > 50",
    );
    let out = tempfile::tempdir().expect("tmp");
    let o = tracesql()
        .args(&[
            "analyze",
            &an_fixture("an_memcpy.json"),
            "--platform",
            "H100",
            "--queries",
            &rules.path().display().to_string(),
            "--out",
            &out.path().display().to_string(),
        ])
        .run();
    assert!(o.success(), "{}", o.stderr);
    let mut files: Vec<String> = std::fs::read_dir(out.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "category_manifest.json",
            "findings.csv",
            "findings.json",
            "standalone_analysis.md"
        ]
    );
    let csv = std::fs::read_to_string(out.path().join("findings.csv")).expect("csv");
    let header = csv.lines().next().unwrap_or("");
    assert!(
        header.starts_with(&format!(
            "rule,rule_version,{}",
            RULE_COLUMNS.replace(", ", ",")
        )),
        "{header}"
    );
    assert!(
        header.ends_with("priority_order,impact_pct_e2e,finding_rank"),
        "{header}"
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("findings.json")).expect("json"),
    )
    .expect("findings.json parses");
    let rows = json.as_array().expect("an array");
    // The user rule's finding (the 400 µs GEMM, uid 62) is critical and ranks first.
    let first = &rows[0];
    assert_eq!(first["rule"], "long_gemm");
    assert_eq!(first["rule_version"], 3);
    assert_eq!(first["priority"], "critical");
    assert_eq!(first["finding_rank"], 1);
    assert_eq!(first["value"], 400.0);
    assert_eq!(first["metrics"]["dur"], 400.0, "metrics is an object");
    assert_eq!(first["evidence_uids"], serde_json::json!([62]));
    assert!(rows.iter().any(|r| r["rule"] == "memcpy_direction"));
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("category_manifest.json")).expect("manifest"),
    )
    .expect("manifest parses");
    assert_eq!(manifest["platform"], "H100");
    // Span 490 µs; GEMM 400 µs busy; idle 16 µs (11 gaps of 1 µs, then 5 µs).
    let total = manifest["gpu_utilization"]["total_time_ms"]
        .as_f64()
        .unwrap_or(0.0);
    close(total, 0.49, "total ms");
    let idle = manifest["gpu_utilization"]["idle_pct"]
        .as_f64()
        .unwrap_or(0.0);
    close(idle, 16.0 / 490.0 * 100.0, "idle %");
    assert!(manifest["categories"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
    let md = std::fs::read_to_string(out.path().join("standalone_analysis.md")).expect("md");
    assert!(
        md.contains("long_gemm v3"),
        "rules table lists the user rule"
    );
}

#[test]
fn cli_rejects_a_rule_with_the_wrong_columns_and_writes_nothing() {
    let rules = tempfile::tempdir().expect("tmp");
    let bad = write_rule(
        rules.path(),
        "bad_rule",
        "SELECT 'warning' AS severity, 'system' AS category, 'x' AS subject, 'm' AS metric, \
         1 AS value",
    );
    let out = tempfile::tempdir().expect("tmp");
    let target = out.path().join("report");
    let o = tracesql()
        .args(&[
            "analyze",
            &an_fixture("an_idle.json"),
            "--queries",
            &rules.path().display().to_string(),
            "--out",
            &target.display().to_string(),
        ])
        .run();
    assert_eq!(o.code, Some(2));
    let stderr = &o.stderr;
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
    assert!(
        stderr.contains("column `value` is Int64, expected DOUBLE") || stderr.contains("column 6"),
        "{stderr}"
    );
    assert!(!target.exists(), "no partial output");
}

#[test]
fn cli_unknown_platform_and_terminal_output() {
    let o = tracesql()
        .args(&[
            "analyze",
            &an_fixture("an_idle.json"),
            "--platform",
            "NOPE9000",
        ])
        .run();
    assert_eq!(o.code, Some(2));
    let stderr = &o.stderr;
    assert!(stderr.contains("unknown platform 'NOPE9000'"), "{stderr}");

    let o = tracesql()
        .args(&["analyze", &an_fixture("an_idle.json")])
        .run();
    assert!(o.success(), "{}", o.stderr);
    let stdout = &o.stdout;
    assert!(stdout.contains("Recommendations"), "{stdout}");
    assert!(stdout.contains("GPU idle time"), "{stdout}");
    assert!(stdout.contains("60.0%"), "{stdout}");
}

#[test]
fn report_sections_in_order_on_a_conformance_trace() {
    let Some(data) = util::conformance_dir() else {
        return;
    };
    let trace = data.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    let out = tempfile::tempdir().expect("tmp");
    let o = tracesql()
        .args(&[
            "analyze",
            &trace.display().to_string(),
            "--platform",
            "H100",
            "--out",
            &out.path().display().to_string(),
        ])
        .run();
    assert!(o.success(), "{}", o.stderr);
    let md = std::fs::read_to_string(out.path().join("standalone_analysis.md")).expect("md");
    let headings: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("## ") || l.starts_with("# "))
        .collect();
    assert_eq!(
        headings,
        [
            "# Standalone analysis: gaunernst_bert-small-uncased__1016001",
            "## Executive summary",
            "## Recommendations",
            "## Detailed analysis",
            "## Appendix",
        ]
    );
    let position = |s: &str| {
        md.find(s)
            .unwrap_or_else(|| panic!("no `{s}` in the report"))
    };
    let order = [
        "## Executive summary",
        "| Metric | Value |",
        "| Total time (GPU span) |",
        "| Computation |",
        "| GPU idle |",
        "| Exposed communication |",
        "| Exposed memcpy |",
        "| Top category by GPU time |",
        "| Flash attention used |",
        "### Top operations",
        "## Recommendations",
        "## Detailed analysis",
        "### Categories",
        "## Appendix",
        "### Platform peaks",
        "### Rules run",
    ];
    for pair in order.windows(2) {
        assert!(
            position(pair[0]) < position(pair[1]),
            "`{}` should come before `{}`",
            pair[0],
            pair[1]
        );
    }
    // Every recommendation links to a detailed section that exists.
    for line in md.lines().filter(|l| l.starts_with("→ See [")) {
        let anchor = line
            .rsplit_once("](#")
            .map(|(_, a)| a.trim_end_matches(')'))
            .expect("a link");
        assert!(
            md.contains(&format!("<a id=\"{anchor}\"></a>")),
            "dangling link {anchor}"
        );
    }
    // Priority groups appear in order critical, high, medium, low.
    let groups: Vec<usize> = [
        "### 🔴 Critical",
        "### 🟠 High",
        "### 🟡 Medium",
        "### 🟢 Low",
    ]
    .iter()
    .filter_map(|g| md.find(g))
    .collect();
    assert!(groups.windows(2).all(|w| w[0] < w[1]), "priority order");
    assert!(!groups.is_empty(), "some recommendations");
    // The trace runs aten::_scaled_dot_product_flash_attention (4 instances).
    assert!(
        md.contains("| Flash attention used | yes ("),
        "flash attention row"
    );
}
