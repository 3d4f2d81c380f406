//! `tracesql compare`: the comparison views over two sides' reports, pooling
//! and per-step normalization, gates, report folders as inputs, and the views'
//! column docs. TraceLens parity of `--tracelens-compat` is checked against
//! the shared references in `conformance::compare_pairs`.

use std::collections::HashMap;

use tracesql::catalog::{expanded_notes, Catalog, QueryKind};
use tracesql::compare::{read_side, Comparison, Role};

use crate::conformance::compare::Table;
use crate::util::{cell, fixture, number, tracesql, tracesql_ok};

/// `compare ARGS --out DIR`: the sheets written, by file name.
fn compare_out(args: &[&str]) -> (tempfile::TempDir, HashMap<String, Table>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("cmp");
    tracesql()
        .arg("compare")
        .args(args)
        .arg("--out")
        .arg(&out)
        .ok();
    let mut sheets = HashMap::new();
    for entry in std::fs::read_dir(&out).expect("out dir").flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "csv") {
            let name = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            sheets.insert(name, Table::read(&path).expect("CSV"));
        }
    }
    (dir, sheets)
}

fn row<'a>(table: &'a Table, column: &str, value: &str) -> &'a [String] {
    let at = table.col(column).unwrap_or_else(|| panic!("no {column}"));
    table
        .rows
        .iter()
        .find(|r| r[at] == value)
        .unwrap_or_else(|| panic!("no row with {column} = {value}"))
}

/// `report --out` of one trace: its sheet `name`.
fn report_sheet(trace: &str, name: &str) -> Table {
    let dir = tempfile::tempdir().expect("temp dir");
    tracesql_ok(&[
        "report",
        trace,
        "--out",
        dir.path().to_str().expect("utf-8"),
    ]);
    Table::read(&dir.path().join(format!("{name}.csv"))).expect("report sheet")
}

/// basic_linear with one more ProfilerStep annotation: the same work over two
/// profiled steps.
fn two_step_trace(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(fixture("basic_linear.json")).expect("fixture");
    let mut trace: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let events = trace["traceEvents"].as_array_mut().expect("events");
    let step = events
        .iter()
        .find(|e| e["name"] == "ProfilerStep#3")
        .expect("a step")
        .clone();
    let mut next = step.clone();
    next["name"] = "ProfilerStep#4".into();
    events.push(next);
    let path = dir.join("two_steps.json");
    std::fs::write(&path, trace.to_string()).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn a_trace_against_itself_matches_every_op_with_zero_deltas() {
    let trace = fixture("basic_linear.json");
    let (_dir, sheets) = compare_out(&[&trace, &trace]);
    let ops = &sheets["compare_ops_summary"];
    let reference = report_sheet(&trace, "ops_summary");
    assert_eq!(ops.rows.len(), reference.rows.len());
    for r in &reference.rows {
        let name = cell(&reference.header, r, "name");
        let ours = row(ops, "name", name);
        let expected = number(&reference.header, r, "total_direct_kernel_time_sum");
        assert_eq!(number(&ops.header, ours, "base_us"), expected, "{name}");
        assert_eq!(number(&ops.header, ours, "target_us"), expected, "{name}");
        assert_eq!(number(&ops.header, ours, "delta_us"), 0.0, "{name}");
        assert_eq!(cell(&ops.header, ours, "status"), "both");
        assert_eq!(cell(&ops.header, ours, "match_kind"), "same_name");
    }
    let timeline = &sheets["compare_gpu_timeline"];
    let types: Vec<&str> = timeline.rows.iter().map(|r| r[0].as_str()).collect();
    // The single-trace order, not TraceLens's alphabetical one.
    assert_eq!(
        types[..6],
        [
            "computation_time",
            "exposed_comm_time",
            "exposed_memcpy_time",
            "busy_time",
            "idle_time",
            "total_time"
        ]
    );
    let overlap = row(&sheets["comparability"], "check", "op_overlap");
    assert_eq!(
        cell(&sheets["comparability"].header, overlap, "verdict"),
        "ok"
    );
}

#[test]
fn different_step_counts_are_compared_per_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    let one = fixture("basic_linear.json");
    let two = two_step_trace(dir.path());
    let (_out, sheets) = compare_out(&[&one, &two]);
    let ops = &sheets["compare_ops_summary"];
    assert!(!ops.rows.is_empty());
    for r in &ops.rows {
        let (base, target) = (
            number(&ops.header, r, "base_us"),
            number(&ops.header, r, "target_us"),
        );
        // The same kernels over twice the steps: half the time per step.
        assert!((target - base / 2.0).abs() < 1e-9 * base.max(1.0), "{r:?}");
        if base > 0.0 {
            assert!(
                (number(&ops.header, r, "delta_pct") + 50.0).abs() < 1e-9,
                "{r:?}"
            );
        }
    }
    let timeline = &sheets["compare_gpu_timeline"];
    assert!(timeline
        .rows
        .iter()
        .all(|r| cell(&timeline.header, r, "basis") == "per_step"));
    let steps = row(&sheets["comparability"], "check", "profiler_steps");
    assert_eq!(cell(&sheets["comparability"].header, steps, "base"), "1");
    assert_eq!(cell(&sheets["comparability"].header, steps, "target"), "2");
}

#[test]
fn repeated_runs_are_pooled_as_the_mean_run() {
    let trace = fixture("basic_linear.json");
    let pooled = format!("{trace},{trace},{trace}");
    let (_dir, sheets) = compare_out(&[&pooled, &trace]);
    let ops = &sheets["compare_ops_summary"];
    for r in &ops.rows {
        assert_eq!(
            number(&ops.header, r, "base_us"),
            number(&ops.header, r, "target_us")
        );
        assert_eq!(
            number(&ops.header, r, "base_count"),
            number(&ops.header, r, "target_count")
        );
    }
    let runs = row(&sheets["comparability"], "check", "runs");
    assert_eq!(cell(&sheets["comparability"].header, runs, "base"), "3");
    assert_eq!(
        cell(&sheets["comparability"].header, runs, "verdict"),
        "note"
    );
}

#[test]
fn a_gate_that_matches_fails_with_exit_code_3_and_a_verdict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let one = fixture("basic_linear.json");
    let two = two_step_trace(dir.path());
    let verdict = dir.path().join("verdict.json");
    let predicate = "level = 'op' AND delta_pct < -40";
    let run = tracesql()
        .args(["compare", &one, &two, "--fail-if", predicate, "--verdict"])
        .arg(&verdict)
        .run();
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("gate failed"), "{}", run.stderr);
    assert!(run.stdout.contains("aten::addmm"), "{}", run.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&verdict).expect("verdict")).expect("JSON");
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["predicate"], predicate);
    let ops = report_sheet(&one, "ops_summary");
    // Every op with kernel time halves per step; ops without any have no percentage.
    let timed = ops
        .rows
        .iter()
        .filter(|r| number(&ops.header, r, "total_direct_kernel_time_sum") > 0.0)
        .count();
    assert_eq!(json["matching_rows"], timed);
    assert!(json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .all(|r| r["level"] == "op" && r["delta_pct"].as_f64().expect("pct") < -40.0));

    // The same gate on identical sides passes.
    let pass = tracesql()
        .args(["compare", &one, &one, "--fail-if", predicate, "--verdict"])
        .arg(&verdict)
        .run();
    assert_eq!(pass.code, Some(0), "{}", pass.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&verdict).expect("verdict")).expect("JSON");
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["matching_rows"], 0);
}

#[test]
fn a_bad_gate_or_label_is_a_usage_error() {
    let trace = fixture("basic_linear.json");
    let run = tracesql()
        .args(["compare", &trace, &trace, "--fail-if", "no_such_column > 1"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("--fail-if"), "{}", run.stderr);
    let run = tracesql()
        .args(["compare", &trace, &trace, "--names", "a__b", "c"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("a__b"), "{}", run.stderr);
    let run = tracesql()
        .args(["compare", &trace, &trace, "--sheets", "bogus"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

#[test]
fn gpu_only_traces_compare_by_timeline_and_kernels() {
    let trace = fixture("gpu_only.json");
    let (_dir, sheets) = compare_out(&[&trace, &trace]);
    assert!(sheets["compare_ops_summary"].rows.is_empty());
    let kernels = &sheets["compare_kernel_summary"];
    let reference = report_sheet(&trace, "kernel_summary");
    assert!(!kernels.rows.is_empty());
    let total: f64 = kernels
        .rows
        .iter()
        .map(|r| number(&kernels.header, r, "base_us"))
        .sum();
    let expected: f64 = reference
        .rows
        .iter()
        .map(|r| number(&reference.header, r, "Kernel duration (µs)_sum"))
        .sum();
    assert!(
        (total - expected).abs() < 1e-6 * expected,
        "{total} vs {expected}"
    );
    let overlap = row(&sheets["comparability"], "check", "op_overlap");
    assert_eq!(
        cell(&sheets["comparability"].header, overlap, "verdict"),
        "note"
    );
}

#[test]
fn a_report_folder_compares_like_its_trace() {
    let trace = fixture("basic_linear.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("basic_linear_perf_report_csvs");
    tracesql_ok(&["report", &trace, "--out", folder.to_str().expect("utf-8")]);
    let (_a, from_trace) = compare_out(&[&trace, &trace]);
    let (_b, from_folder) = compare_out(&[folder.to_str().expect("utf-8"), &trace]);
    let (x, y) = (
        &from_trace["compare_ops_summary"],
        &from_folder["compare_ops_summary"],
    );
    assert_eq!(x.rows.len(), y.rows.len());
    for r in &x.rows {
        let name = cell(&x.header, r, "name");
        let other = row(y, "name", name);
        assert_eq!(
            number(&x.header, r, "base_us"),
            number(&y.header, other, "base_us"),
            "{name}"
        );
        assert_eq!(number(&y.header, other, "delta_us"), 0.0, "{name}");
    }
    let steps = row(&from_folder["comparability"], "check", "profiler_steps");
    assert_eq!(
        cell(&from_folder["comparability"].header, steps, "base"),
        "unknown"
    );
}

#[test]
fn the_terminal_summary_and_ad_hoc_sql() {
    let trace = fixture("basic_linear.json");
    let out = tracesql_ok(&["compare", &trace, &trace]);
    for heading in [
        "== comparability",
        "== compare_gpu_timeline",
        "== compare_ops_summary",
    ] {
        assert!(out.contains(heading), "{heading}: {out}");
    }
    let out = tracesql_ok(&[
        "compare",
        &trace,
        &trace,
        "--format",
        "csv",
        "-e",
        "SELECT side, count(*) AS n FROM report_ops_summary GROUP BY side ORDER BY side",
    ]);
    let ops = report_sheet(&trace, "ops_summary").rows.len();
    assert_eq!(out.trim(), format!("side,n\nbase,{ops}\ntarget,{ops}"));
}

#[test]
fn equivalent_vendor_ops_meet_on_their_canonical_name() {
    // The same trace with its addmm renamed as another vendor might spell it:
    // an op_equivalence row of the user's own makes the two meet.
    let dir = tempfile::tempdir().expect("temp dir");
    let text = std::fs::read_to_string(fixture("basic_linear.json")).expect("fixture");
    let renamed = dir.path().join("renamed.json");
    std::fs::write(
        &renamed,
        text.replace("\"aten::addmm\"", "\"vendor::addmm\""),
    )
    .expect("write");
    let queries = dir.path().join("queries");
    std::fs::create_dir(&queries).expect("dir");
    let builtin = Catalog::builtin().expect("catalog");
    let sql = builtin.get("op_equivalence").expect("shipped").sql.replace(
        "  ('aten::cudnn_convolution',",
        "  ('aten::addmm', 'addmm', 'test'),\n  ('vendor::addmm', 'addmm', 'test'),\n  ('aten::cudnn_convolution',",
    );
    std::fs::write(queries.join("op_equivalence.sql"), sql).expect("write");
    let base = fixture("basic_linear.json");
    let (_out, sheets) = compare_out(&[
        "--queries",
        queries.to_str().expect("utf-8"),
        &base,
        renamed.to_str().expect("utf-8"),
    ]);
    let ops = &sheets["compare_ops_summary"];
    let addmm = row(ops, "name", "addmm");
    assert_eq!(cell(&ops.header, addmm, "status"), "both");
    assert_eq!(cell(&ops.header, addmm, "match_kind"), "equivalent");
    assert_eq!(cell(&ops.header, addmm, "base_names"), "aten::addmm");
    assert_eq!(cell(&ops.header, addmm, "target_names"), "vendor::addmm");
    assert_eq!(number(&ops.header, addmm, "delta_us"), 0.0);
}

/// Each comparison view's `Columns:` block names the columns it returns,
/// planned in a real comparison session.
#[tokio::test]
async fn every_comparison_view_documents_its_columns() {
    let catalog = Catalog::builtin().expect("catalog");
    let none = |_: &tracesql::engine::Engine| Ok(());
    let paths = [fixture("basic_linear.json")];
    let base = read_side("a", Role::Base, &paths, &catalog, &none, Default::default())
        .await
        .expect("base");
    let target = read_side(
        "b",
        Role::Target,
        &paths,
        &catalog,
        &none,
        Default::default(),
    )
    .await
    .expect("target");
    let comparison = Comparison { base, target };
    let engine = comparison.session(&catalog, &none).await.expect("session");
    let mut checked = 0;
    for query in catalog.of_kind(QueryKind::Comparison) {
        let sql = format!("SELECT * FROM {}", query.name);
        let frame = engine
            .context()
            .sql(&sql)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", query.origin));
        let returned: Vec<String> = frame
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let documented: Vec<String> = expanded_notes(query, &returned, &catalog)
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(documented, returned, "{}", query.origin);
        frame
            .collect()
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", query.origin));
        checked += 1;
    }
    assert!(checked >= 9, "{checked} comparison views");
}

/// The roofline time of `flops` and `bytes` on a platform's peaks (TFLOPS, TB/s), µs.
fn roof_us(flops: f64, bytes: f64, tflops: f64, tb_s: f64) -> f64 {
    (flops / (tflops * 1e12)).max(bytes / (tb_s * 1e12)) * 1e6
}

#[test]
fn comparative_analysis_expects_the_ratio_of_the_two_rooflines() {
    // One trace as reference on H100 and as target on MI300X: every measured
    // ratio is 1, so an op is "unexpected" exactly when the MI300X roofline
    // says it should be more than 25% faster.
    let trace = fixture("basic_linear.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("cmp");
    tracesql_ok(&[
        "analyze",
        &trace,
        "--platform",
        "MI300X",
        "--reference",
        &trace,
        "--reference-platform",
        "H100",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let files: Vec<String> = crate::util::files_under(&out)
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        [
            "changed_ops.svg",
            "compare_gpu_timeline.svg",
            "roofline_base.svg",
            "roofline_target.svg",
            "waterfall.svg",
            "comparative_analysis.md",
            "comparison_findings.csv",
            "comparison_findings.json",
        ]
    );
    // The charts are linked from the report.
    let md = std::fs::read_to_string(out.join("comparative_analysis.md")).expect("md");
    for file in ["waterfall.svg", "roofline_base.svg"] {
        assert!(md.contains(&format!("](charts/{file})")), "{file} linked");
    }
    let unified = report_sheet(&trace, "unified_perf_summary");
    let findings = Table::read(&out.join("comparison_findings.csv")).expect("findings");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("comparison_findings.json")).expect("json"),
    )
    .expect("JSON");
    assert_eq!(json.as_array().expect("rows").len(), findings.rows.len());
    // H100 and MI300X datasheet peaks (udfs/src/roofline/platforms.rs).
    let (h100, mi300) = ((989.4, 3.35), (1307.4, 5.3));
    let mut expected_findings = 0;
    for r in &unified.rows {
        let gflops = cell(&unified.header, r, "GFLOPS");
        if gflops.is_empty() || cell(&unified.header, r, "Compute Spec") != "matrix_bf16" {
            continue;
        }
        let flops = gflops.parse::<f64>().expect("GFLOPS") * 1e9;
        let bytes = number(&unified.header, r, "Data Moved (MB)") * 1048576.0;
        let expected =
            roof_us(flops, bytes, mi300.0, mi300.1) / roof_us(flops, bytes, h100.0, h100.1);
        let name = cell(&unified.header, r, "name");
        let dims = cell(&unified.header, r, "Input Dims");
        let found = findings.rows.iter().find(|f| {
            cell(&findings.header, f, "name") == name
                && cell(&findings.header, f, "Input Dims") == dims
        });
        if 1.0 / expected > 1.25 {
            expected_findings += 1;
            let f = found.unwrap_or_else(|| panic!("{name} {dims}: no finding"));
            assert!(
                (number(&findings.header, f, "expected_ratio") - expected).abs() < 1e-9,
                "{name}"
            );
            let us = number(&unified.header, r, "Kernel Time (µs)_sum");
            assert!(
                (number(&findings.header, f, "unexplained_us") - us * (1.0 - expected)).abs()
                    < 1e-6 * us.max(1.0),
                "{name}"
            );
        } else {
            assert!(
                found.is_none(),
                "{name} {dims}: within tolerance, yet a finding"
            );
        }
    }
    assert!(
        expected_findings > 0,
        "no modelled bf16 matrix op in the fixture"
    );
    let priorities: Vec<f64> = findings
        .rows
        .iter()
        .map(|f| number(&findings.header, f, "unexplained_us"))
        .collect();
    assert!(
        priorities.windows(2).all(|w| w[0] >= w[1]),
        "{priorities:?}"
    );
    let md = std::fs::read_to_string(out.join("comparative_analysis.md")).expect("md");
    for heading in [
        "# Performance comparison: ",
        "## Executive summary",
        "## Recommendations for ",
        "## Detailed comparison per operation",
        "## Appendix",
        "- **Gap**:",
        "- **Action**:",
        "- **Impact**:",
    ] {
        assert!(md.contains(heading), "{heading}");
    }
    assert!(
        md.contains("(H100) vs ") && md.contains("(MI300X)"),
        "{}",
        &md[..200]
    );
}

#[test]
fn comparative_analysis_refuses_mixed_peak_kinds_and_unknown_platforms() {
    let trace = fixture("basic_linear.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let platforms = dir.path().join("platforms.csv");
    std::fs::write(
        &platforms,
        "name,memory_tb_s,matrix_bf16,vector_fp32,source\nMI300X_measured,4.3,650.0,80.0,max achievable (measured)\n",
    )
    .expect("write");
    let run = tracesql()
        .arg("--platforms")
        .arg(&platforms)
        .args([
            "analyze",
            &trace,
            "--platform",
            "MI300X_measured",
            "--reference",
            &trace,
            "--reference-platform",
            "H100",
        ])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("different kinds"), "{}", run.stderr);
    let run = tracesql()
        .args([
            "analyze",
            &trace,
            "--platform",
            "none",
            "--reference",
            &trace,
            "--reference-platform",
            "H100",
        ])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("needs both platforms"),
        "{}",
        run.stderr
    );
}

/// basic_linear without its first top-level op (aten::empty, no GPU work).
fn one_op_fewer(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(fixture("basic_linear.json")).expect("fixture");
    let mut trace: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let events = trace["traceEvents"].as_array_mut().expect("events");
    let at = events
        .iter()
        .position(|e| e["name"] == "aten::empty" && e["cat"] == "cpu_op")
        .expect("an aten::empty");
    events.remove(at);
    let path = dir.join("one_op_fewer.json");
    std::fs::write(&path, trace.to_string()).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn aligned_roots_keep_one_extra_op_from_shifting_the_tree_diff() {
    let dir = tempfile::tempdir().expect("temp dir");
    let full = fixture("basic_linear.json");
    let fewer = one_op_fewer(dir.path());
    let sql = "SELECT count(*) AS n, count(*) FILTER (WHERE status = 'both' AND ratio = 1.0) AS same FROM compare_lca";
    let self_lcas = tracesql_ok(&["compare", &full, &full, "--format", "csv", "-e", sql]);
    let shifted = tracesql_ok(&["compare", &full, &fewer, "--format", "csv", "-e", sql]);
    let counts = |out: &str| -> (u64, u64) {
        let line = out.lines().nth(1).expect("a row");
        let (n, same) = line.split_once(',').expect("two cells");
        (n.parse().expect("n"), same.parse().expect("same"))
    };
    let (n, same) = counts(&self_lcas);
    assert!(n > 0 && same == n, "{self_lcas}");
    // Every GPU group still meets its twin, with the same time.
    assert_eq!(counts(&shifted), (n, n), "{shifted}");
    // TraceLens pairs roots by position: under --tracelens-compat every later
    // root meets the wrong op.
    let out = dir.path().join("compat");
    tracesql_ok(&[
        "--tracelens-compat",
        "compare",
        &full,
        &fewer,
        "--names",
        "a",
        "b",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let tree =
        std::fs::read_to_string(out.join("tracediff/merged_tree_output.txt")).expect("merged tree");
    let roots: Vec<&str> = tree
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('│'))
        .collect();
    assert!(
        roots.iter().filter(|l| l.contains("combined: ")).count() >= 2,
        "{tree}"
    );
}

#[test]
fn sheets_choose_the_groups_written_and_the_repl_opens_on_the_comparison() {
    let trace = fixture("basic_linear.json");
    let (_dir, sheets) =
        compare_out(&[&trace, &trace, "--sheets", "gpu_timeline", "kernel_summary"]);
    let mut names: Vec<&str> = sheets.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "comparability",
            "compare_gpu_timeline",
            "compare_kernel_summary"
        ]
    );
    let run = tracesql()
        .args(["compare", &trace, &trace, "--repl"])
        .stdin(".format csv\nSELECT count(*) AS n FROM compare_ops_summary WHERE status = 'both';\nSELECT label FROM compare_runs ORDER BY side;\n")
        .run();
    assert!(run.success(), "{}", run.stderr);
    let ops = report_sheet(&trace, "ops_summary").rows.len();
    assert!(
        run.stdout.contains(&format!("n\n{ops}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("label\nbase\ntarget\n"),
        "{}",
        run.stdout
    );
}

/// Two real recordings of the same training step, on an H100 and on an H200
/// (fixtures/recorded/): every op is on both sides, each side's op time equals
/// that side's own ops_summary, and the platforms are the two GPUs'.
#[test]
fn the_recorded_h100_and_h200_steps_compare_op_for_op() {
    let h100 = fixture("recorded/h100_block.json.gz");
    let h200 = fixture("recorded/h200_block.json.gz");
    let csv_rows = |text: &str| -> Vec<Vec<String>> {
        text.lines()
            .filter(|l| !l.starts_with("==") && !l.is_empty())
            .skip(1)
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let summary = tracesql_ok(&[
        "compare",
        &h100,
        &h200,
        "--names",
        "h100",
        "h200",
        "--format",
        "csv",
        "-e",
        "SELECT count(*) AS ops, count(*) FILTER (WHERE status = 'both') AS both_sides, \
         sum(base_us) AS base_us, sum(target_us) AS target_us, \
         (SELECT base || '/' || target FROM comparability WHERE \"check\" = 'platform') AS platforms \
         FROM compare_ops_summary",
    ]);
    let row = &csv_rows(&summary)[0];
    assert_eq!(row[0], row[1], "every op on both sides: {summary}");
    assert_eq!(row[0], "25", "{summary}");
    assert_eq!(row[4], "H100/H200", "{summary}");
    for (i, trace) in [(2, &h100), (3, &h200)] {
        let report = tracesql_ok(&["report", trace, "--only", "ops_summary", "--format", "csv"]);
        let own: f64 = csv_rows(&report)
            .iter()
            .map(|r| r[1].parse::<f64>().expect("total_direct_kernel_time_sum"))
            .sum();
        let compared: f64 = row[i].parse().expect("number");
        assert!(
            (own - compared).abs() <= 1e-6 * own,
            "{trace}: {own} vs {compared}"
        );
    }
}
