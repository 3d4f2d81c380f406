//! `tracesql analyze`: the system and validation rules on the synthetic fixtures
//! of fixtures/analyze/ (each rule: one fixture that triggers it, one that does
//! not), the ranking query, the CLI's files and errors, and the report's sections
//! on a conformance trace. Expected values are computed by hand from the fixtures'
//! timings (fixtures/analyze/EXPECTED.md), never read from our own output. On the
//! H100 conformance traces: priority against the share of the GPU span read from
//! gpu_time_totals, the merge of findings per subject, shapes derived from the
//! ops' input dims, and the savings caps against analyze_ops' category times.

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
    // Priority by end-to-end impact: D2H is 10.2% of the span and removable
    // (share >= 10%, saving >= 5%): critical; H2D is 4.9% (under the 5% share
    // that high needs, saving >= 0.5%): medium. The larger removable time first.
    close(
        num(d2h, "share_pct_e2e"),
        50.0 / 490.0 * 100.0,
        "D2H share of span",
    );
    close(
        num(h2d, "impact_pct_e2e"),
        24.0 / 490.0 * 100.0,
        "H2D saving of span",
    );
    assert_eq!(
        (d2h["priority"].as_str(), h2d["priority"].as_str()),
        ("critical", "medium")
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

/// `tracesql analyze an_memcpy.json --platform H100 --queries RULES --out DIR`: DIR.
fn analyze_memcpy_with(rules: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir().expect("tmp");
    let o = tracesql()
        .args(&[
            "analyze",
            &an_fixture("an_memcpy.json"),
            "--platform",
            "H100",
            "--queries",
            &rules.display().to_string(),
            "--out",
            &out.path().display().to_string(),
        ])
        .run();
    assert!(o.success(), "{}", o.stderr);
    out
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
    let out = analyze_memcpy_with(rules.path());
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
            "charts",
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
        header
            .ends_with("priority_order,impact_pct_e2e,share_pct_e2e,category_time_us,finding_rank"),
        "{header}"
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("findings.json")).expect("json"),
    )
    .expect("findings.json parses");
    // findings.json holds the recommendations: one per subject, its rules' rows as reasons.
    let rows = json.as_array().expect("an array");
    // The user rule's finding (the 400 µs GEMM, uid 62, 81.6% of the 490 µs span,
    // all of it removable as the rule gives no efficiency) is critical and first.
    let first = &rows[0];
    assert_eq!(first["recommendation_rank"], 1);
    assert_eq!(first["priority"], "critical");
    assert_eq!(first["rules"], serde_json::json!(["long_gemm"]));
    assert_eq!(first["ex_uid"], 62, "no op group: the first evidence uid");
    let reason = &first["reasons"][0];
    assert_eq!(reason["rule"], "long_gemm");
    assert_eq!(reason["rule_version"], 3);
    assert_eq!(reason["finding_rank"], 1);
    assert_eq!(reason["value"], 400.0);
    assert_eq!(reason["metrics"]["dur"], 400.0, "metrics is an object");
    assert_eq!(reason["evidence_uids"], serde_json::json!([62]));
    assert!(rows
        .iter()
        .any(|r| r["rules"] == serde_json::json!(["memcpy_direction"])));
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
        "### Charts",
        "![GPU timeline](charts/gpu_timeline.svg)",
        "## Recommendations",
        "## Detailed analysis",
        "### Categories",
        "## Appendix",
        "### Priority rule",
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

#[test]
fn savings_are_capped_at_the_subject_and_the_category_time() {
    // A user rule over-claims: three GEMM subjects of 1000 µs removable time each
    // in a trace whose GEMM category has 400 µs (the GEMM [1040, 1440)), and a
    // 10 µs system subject at -100% efficiency (1 + 100/80 of its time, uncapped).
    let rules = tempfile::tempdir().expect("tmp");
    write_rule(
        rules.path(),
        "overclaim",
        "SELECT 'warning' AS severity, c AS category, s AS subject, 'm' AS metric, \
         1.0 AS value, CAST(NULL AS DOUBLE) AS threshold, 'x' AS message, 'a' AS action_a, \
         'b' AS action_b, t AS time_us, CAST(NULL AS DOUBLE) AS category_share_pct, \
         e AS efficiency_pct, CAST(NULL AS BIGINT) AS op_rank, '{}' AS metrics, \
         make_array(1) AS evidence_uids \
         FROM (VALUES ('GEMM', 'one', 1000.0, CAST(NULL AS DOUBLE)), \
                      ('GEMM', 'two', 1000.0, NULL), ('GEMM', 'three', 1000.0, NULL), \
                      ('system', 'negative', 10.0, -100.0)) AS v(c, s, t, e)",
    );
    let out = analyze_memcpy_with(rules.path());
    let rows = csv_rows(&out.path().join("findings.csv"));
    let mine: BTreeMap<&str, &BTreeMap<String, String>> = rows
        .iter()
        .filter(|r| r["rule"] == "overclaim")
        .map(|r| (r["subject"].as_str(), r))
        .collect();
    assert_eq!(mine.len(), 4, "{rows:?}");
    // The GEMM subjects (ours, and the GEMM op the shipped rules flag at a few %
    // of peak) claim more than the category's 400 µs: every GEMM saving is scaled
    // by the same factor, 400 / (3 * 1000 + the op's own saving at 80%).
    let gemm_op = rows
        .iter()
        .find(|r| r["category"] == "GEMM" && r["rule"] == "efficiency_tiers")
        .expect("the GEMM op's efficiency finding");
    let op_saving = num(gemm_op, "time_us") * (1.0 - num(gemm_op, "efficiency_pct") / 80.0);
    let factor = 400.0 / (3000.0 + op_saving);
    for subject in ["one", "two", "three"] {
        let r = mine[subject];
        close(num(r, "category_time_us"), 400.0, "GEMM time");
        close(num(r, "impact_ms_at_80") * 1e3, 1000.0 * factor, subject);
        close(num(r, "impact_ms_at_20") * 1e3, 1000.0 * factor, subject);
    }
    close(
        num(gemm_op, "impact_ms_at_80") * 1e3,
        op_saving * factor,
        "the op's saving",
    );
    // Each subject once (the op has two findings): exactly the category's time.
    let mut by_subject: BTreeMap<&str, f64> = BTreeMap::new();
    for r in rows.iter().filter(|r| r["category"] == "GEMM") {
        let saving = num(r, "impact_ms_at_80") * 1e3;
        let entry = by_subject.entry(r["subject"].as_str()).or_default();
        *entry = entry.max(saving);
    }
    close(by_subject.values().sum(), 400.0, "GEMM savings");
    // A saving never exceeds its subject's time.
    close(
        num(mine["negative"], "impact_ms_at_80") * 1e3,
        10.0,
        "capped",
    );
    // The other system findings (D2H 50 µs, H2D 24 µs) fit the 490 µs span: unscaled.
    let d2h = rows
        .iter()
        .find(|r| r["rule"] == "memcpy_direction" && r["subject"] == "D2H")
        .expect("D2H");
    close(num(d2h, "impact_ms_at_80") * 1e3, 50.0, "D2H");
}

/// A CSV file's rows as column -> cell.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.expect("record");
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

// ---- the conformance traces (skipped when absent) ----

const BERT: &str = "gaunernst_bert-small-uncased__1016001.json.gz";

/// The BERT trace's top op group: addmm(bias [512], mat1 [141, 512], mat2 [512, 512]).
const BERT_TOP: &str = "aten::addmm [[512], [141, 512], [512, 512], [], []]";

/// An H100 analysis of a trace, with the engine for cross-checks.
async fn analyze_h100(path: &Path) -> (Engine, Analysis) {
    let mut engine = Engine::new();
    let file = path.display().to_string();
    engine
        .add(load_trace(&file).unwrap_or_else(|e| panic!("{file}: {e}")))
        .expect("registers");
    engine.set_platform(Some("H100")).expect("H100");
    engine.register_views().await.expect("views register");
    let analysis = analyze(&engine)
        .await
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    (engine, analysis)
}

/// The conformance trace `file` of the H100 set, analyzed; None without the data.
async fn h100(file: &str) -> Option<(Engine, Analysis)> {
    let path = util::conformance_dir()?.join("traces/h100").join(file);
    Some(analyze_h100(&path).await)
}

/// The GPU span (gpu_time_totals) and each op category's GPU time (the sum of
/// its analyze_ops groups), µs, read from the views rather than the findings.
async fn span_and_categories(engine: &Engine) -> (f64, BTreeMap<String, f64>) {
    let span = util::rows(
        engine,
        "SELECT CAST(total_time AS DOUBLE) FROM gpu_time_totals",
    )
    .await;
    let span: f64 = span[0][0].parse().expect("span");
    let categories = util::rows(
        engine,
        "SELECT category, CAST(sum(time_us) AS DOUBLE) FROM analyze_ops GROUP BY category",
    )
    .await
    .into_iter()
    .map(|r| (r[0].clone(), r[1].parse().expect("time")))
    .collect();
    (span, categories)
}

fn markdown_of(analysis: &Analysis) -> String {
    let mut md = Vec::new();
    tracesql::analyze::render::markdown(&mut md, analysis).expect("renders");
    String::from_utf8(md).expect("UTF-8")
}

fn recommendations_of(analysis: &Analysis) -> Vec<serde_json::Value> {
    tracesql::analyze::render::table_json(&analysis.recommendations).expect("JSON")
}

#[tokio::test]
async fn bert_priority_follows_the_share_of_the_trace() {
    let Some((engine, a)) = h100(BERT).await else {
        return;
    };
    let (span, _) = span_and_categories(&engine).await;
    let rows = findings_of_all(&a);
    for r in rows.iter().filter(|r| !r["time_us"].is_empty()) {
        let share = num(r, "time_us") / span * 100.0;
        close(num(r, "share_pct_e2e"), share, "share of the span");
        if share < 10.0 {
            assert_ne!(r["priority"], "critical", "{r:?}");
        }
    }
    // The trace is host bound: the GPU idles 92% of its 3.9 ms. That is the one
    // critical finding; every op is under 3% of the span.
    let critical: Vec<&str> = rows
        .iter()
        .filter(|r| r["priority"] == "critical")
        .map(|r| r["rule"].as_str())
        .collect();
    assert_eq!(critical, ["gpu_idle"]);
    let idle = rows.iter().find(|r| r["rule"] == "gpu_idle").expect("idle");
    assert!(num(idle, "share_pct_e2e") > 90.0, "{idle:?}");
    // The top op: 2.5% of the span at 4.2% of peak. Its saving at 80% of peak,
    // time * (1 - 4.2/80), is 2.4% of the span: medium (high needs a 5% share).
    let top: Vec<_> = rows.iter().filter(|r| r["subject"] == BERT_TOP).collect();
    assert_eq!(top.len(), 2, "bottleneck_ops and efficiency_tiers");
    for r in top {
        assert_eq!(r["priority"], "medium", "{r:?}");
        let saving = num(r, "time_us") * (1.0 - num(r, "efficiency_pct") / 80.0);
        close(num(r, "impact_ms_at_80") * 1e3, saving, "saving at 80%");
        assert!((2.0..2.6).contains(&num(r, "share_pct_e2e")), "{r:?}");
    }
    // The appendix states the rule that was applied, row by row.
    let md = markdown_of(&a);
    let appendix = &md[md.find("## Appendix").expect("appendix")..];
    assert!(appendix.contains("### Priority rule"), "{appendix}");
    assert!(
        appendix.contains(
            "| critical | the subject takes >= 10.0% of the GPU span and the estimated \
             saving is >= 5.0% of the GPU span |"
        ),
        "{appendix}"
    );
    let rule = &a.priority_rule;
    let (p, text) = (
        rule.column("priority").expect("priority"),
        rule.column("rule").expect("rule"),
    );
    assert!(rule.rows() >= 4, "a condition per priority at least");
    for row in rule.cells() {
        let line = format!("| {} | {} |", row[p], row[text]);
        assert!(appendix.contains(&line), "{line} not in the appendix");
    }
}

#[tokio::test]
async fn bert_recommendations_merge_the_findings_about_one_subject() {
    let Some((_, a)) = h100(BERT).await else {
        return;
    };
    let recs = recommendations_of(&a);
    let findings = findings_of_all(&a);
    // 6 findings: GPU idle, two addmm groups each from bottleneck_ops and
    // efficiency_tiers, the short-sequence attention: 4 subjects.
    assert_eq!((findings.len(), recs.len()), (6, 4), "{recs:?}");
    let mut subjects = std::collections::BTreeSet::new();
    for rec in &recs {
        let key = (rec["category"].to_string(), rec["subject"].to_string());
        assert!(subjects.insert(key), "a subject twice: {rec}");
    }
    let reasons: usize = recs
        .iter()
        .map(|r| r["reasons"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(reasons, findings.len(), "every finding is one reason");
    let top = recs
        .iter()
        .find(|r| r["subject"] == BERT_TOP)
        .expect("the top addmm");
    assert_eq!(
        top["rules"],
        serde_json::json!(["bottleneck_ops", "efficiency_tiers"])
    );
    assert_eq!(top["priority"], "medium");
    assert_eq!(top["op_name"], "aten::addmm");
    assert!(top["ex_uid"].is_i64(), "an example instance: {top}");
    // Counted once: the recommendation saves what each reason saves, not the sum.
    let one = findings
        .iter()
        .find(|r| r["subject"] == BERT_TOP)
        .expect("finding");
    close(
        top["impact_ms_at_80"].as_f64().expect("impact"),
        num(one, "impact_ms_at_80"),
        "impact counted once",
    );
    // The report: one heading per recommendation, none twice, both reasons under one.
    let md = markdown_of(&a);
    let headings: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("#### "))
        .map(|l| l.split_once(". ").map_or(l, |(_, t)| t))
        .collect();
    assert_eq!(headings.len(), 4, "{headings:?}");
    let distinct: std::collections::BTreeSet<&&str> = headings.iter().collect();
    assert_eq!(distinct.len(), 4, "{headings:?}");
    assert!(md.contains(
        "| Recommendations | 4 (1 critical, 0 high, 3 medium, 0 low), from 6 rule findings |"
    ));
    let section = md
        .split("#### ")
        .find(|s| s.contains("GEMM: aten::addmm (M=141, N=512, K=512"))
        .expect("the top addmm's recommendation");
    assert!(section.contains("**Issue** (2 findings):"), "{section}");
    assert!(
        section.contains("rule bottleneck_ops v1") && section.contains("rule efficiency_tiers v1")
    );
}

#[tokio::test]
async fn bert_shapes_are_the_perf_model_parameters() {
    let Some((_, a)) = h100(BERT).await else {
        return;
    };
    // addmm(bias [512], mat1 [141, 512], mat2 [512, 512]) in bf16: M = 141 rows of
    // mat1, K = 512, N = 512 columns of mat2. Flash attention on q, k, v of
    // [1, 8, 141, 64] (B, H, N, d). Layer norm has no named dims: its input dims.
    let shape_of = |table: &tracesql::analyze::Table, rank: &str| {
        let (r, s) = (
            table.column("Rank").expect("Rank"),
            table.column("Shape").expect("Shape"),
        );
        table
            .cells()
            .into_iter()
            .find(|row| row[r] == rank)
            .map(|row| row[s].clone())
            .unwrap_or_default()
    };
    for table in [&a.top_ops, &a.category_ops] {
        assert_eq!(shape_of(table, "1"), "M=141, N=512, K=512, dtype=BFloat16");
        assert_eq!(
            shape_of(table, "3"),
            "B=1, H=8, N_Q=141, N_KV=141, d=64, dtype=BFloat16"
        );
        assert_eq!(
            shape_of(table, "5"),
            "[[1, 141, 512], [], [512], [512], []]"
        );
    }
    let md = markdown_of(&a);
    assert!(
        md.contains("#### 2. GEMM: aten::addmm (M=141, N=512, K=512, dtype=BFloat16)"),
        "{md}"
    );
    assert!(md.contains(
        "SDPA_fwd: aten::_scaled_dot_product_flash_attention (B=1, H=8, N_Q=141, N_KV=141, \
         d=64, dtype=BFloat16)"
    ));
}

#[tokio::test]
async fn savings_stay_within_op_and_category_time_on_the_h100_traces() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let dir = dir.join("traces/h100");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("h100 traces")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let le = |a: f64, b: f64| a <= b + 1e-9 * b.abs().max(1.0);
    for file in &files {
        let (engine, a) = analyze_h100(file).await;
        let (span, categories) = span_and_categories(&engine).await;
        let name = file.display();
        for f in findings_of_all(&a) {
            if f["impact_ms_at_80"].is_empty() {
                continue;
            }
            let at = |t: &str| num(&f, &format!("impact_ms_at_{t}")) * 1e3;
            let time = num(&f, "time_us");
            assert!(
                0.0 <= at("20") && le(at("20"), at("50")) && le(at("50"), at("80")),
                "{name}: {f:?}"
            );
            assert!(le(at("80"), time), "{name}: saving above the time: {f:?}");
        }
        // Per category, each subject once: at most the category's GPU time (the
        // span for system and validation).
        let mut sums: BTreeMap<String, f64> = BTreeMap::new();
        for rec in recommendations_of(&a) {
            let category = rec["category"].as_str().unwrap_or_default().to_string();
            let cap = categories.get(&category).copied().unwrap_or(span);
            close(
                rec["category_time_us"].as_f64().expect("category time"),
                cap,
                "category time",
            );
            *sums.entry(category).or_default() +=
                rec["impact_ms_at_80"].as_f64().unwrap_or(0.0) * 1e3;
        }
        for (category, sum) in &sums {
            let cap = categories.get(category).copied().unwrap_or(span);
            assert!(le(*sum, cap), "{name}: {category} saves {sum} of {cap} µs");
        }
        // And what the report calls critical is a large share of the trace.
        for f in findings_of_all(&a) {
            if f["priority"] == "critical" {
                assert!(num(&f, "share_pct_e2e") >= 10.0, "{name}: {f:?}");
            }
        }
    }
}
