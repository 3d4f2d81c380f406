//! The analyzer's per-category rules (`queries/rules/*.sql`) and the view
//! `analyze_ops`, on the synthetic fixtures `fixtures/analyze_*.json` (see
//! fixtures/EXPECTED.md) through the built binary with `--platform MI300X`, and every
//! rule on the conformance traces (skipped when they are absent).
//!
//! Expected values are computed here from the fixtures' shapes and kernel durations
//! and the MI300X datasheet peaks (5.3 TB/s HBM, 1307.4 TFLOPS/s matrix bf16), never
//! copied from the tool's output.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use datafusion::datasource::MemTable;
use serde_json::Value;
use tracesql::analyze::runner::check_schema;
use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{conformance_dir, fixture, package_path, tracesql};

/// The rules this file covers.
const RULES: [&str; 9] = [
    "bottleneck_ops",
    "conv_layout_transpose",
    "efficiency_tiers",
    "elementwise_baseline",
    "fusion_opportunity",
    "normalization_baseline",
    "short_sequence_attention",
    "tiny_batched_gemm",
    "unfused_attention",
];

/// MI300X peaks (udfs/src/roofline/platforms.rs, AMD datasheet).
const BW: f64 = 5.3e12;
const MATRIX_BF16: f64 = 1307.4e12;
/// Bytes per MiB, the perf models' "MB".
const MIB: f64 = 1048576.0;

/// The attention fixture's GPU timeline: 29 kernels back to back with 5 µs gaps,
/// 1935 µs of kernels (fixtures/EXPECTED.md).
const ATTENTION_TOTAL_US: f64 = 1935.0 + 28.0 * 5.0;

fn rule_path(rule: &str) -> PathBuf {
    package_path(&format!("queries/rules/{rule}.sql"))
}

/// Every rule's SQL as one query: `SELECT '<rule>' AS rule, * FROM (<rule>)`, unioned,
/// so a fixture costs one run of the binary.
fn all_rules_sql() -> String {
    RULES
        .iter()
        .map(|rule| {
            let sql = std::fs::read_to_string(rule_path(rule)).expect("rule file");
            format!("SELECT '{rule}' AS rule, * FROM (\n{sql}\n) AS r_{rule}")
        })
        .collect::<Vec<_>>()
        .join("\nUNION ALL\n")
}

/// Runs `sql` on a fixture through the binary (MI300X), rows as JSON objects.
fn query_json(fixture_file: &str, sql: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("q.sql");
    std::fs::write(&file, sql).expect("write query");
    let out = tracesql()
        .args([
            "query",
            &fixture(fixture_file),
            "--platform",
            "MI300X",
            "-f",
        ])
        .arg(&file)
        .args(["--format", "json"])
        .run();
    assert!(out.success(), "{fixture_file}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON rows")
}

/// Every rule's findings on a fixture, computed once per test binary.
fn findings(fixture_file: &'static str) -> &'static [Value] {
    static ATTENTION: OnceLock<Vec<Value>> = OnceLock::new();
    static CLEAN: OnceLock<Vec<Value>> = OnceLock::new();
    static SPREAD: OnceLock<Vec<Value>> = OnceLock::new();
    let cell = match fixture_file {
        "analyze_attention.json" => &ATTENTION,
        "analyze_clean.json" => &CLEAN,
        "analyze_spread.json" => &SPREAD,
        other => panic!("no cache for {other}"),
    };
    cell.get_or_init(|| query_json(fixture_file, &all_rules_sql()))
}

fn of_rule(fixture_file: &'static str, rule: &str) -> Vec<&'static Value> {
    findings(fixture_file)
        .iter()
        .filter(|r| r["rule"] == rule)
        .collect()
}

fn one(fixture_file: &'static str, rule: &str, subject: &str) -> &'static Value {
    let rows: Vec<_> = of_rule(fixture_file, rule)
        .into_iter()
        .filter(|r| r["subject"] == subject)
        .collect();
    assert_eq!(
        rows.len(),
        1,
        "{rule} on {fixture_file}: rows for {subject}"
    );
    rows[0]
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

fn close(got: f64, want: f64, what: &str) {
    let tol = 1e-9 * want.abs().max(1e-12);
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

/// The finding's metrics JSON, parsed.
fn metrics(v: &Value) -> Value {
    serde_json::from_str(v["metrics"].as_str().expect("metrics text")).expect("metrics is JSON")
}

fn uids(v: &Value) -> Vec<i64> {
    v["evidence_uids"]
        .as_array()
        .expect("evidence_uids list")
        .iter()
        .map(|u| u.as_i64().expect("uid"))
        .collect()
}

/// Roofline efficiency of a memory-bound op, %.
fn memory_eff(bytes: f64, us: f64) -> f64 {
    bytes / BW * 1e6 / us * 100.0
}

/// Roofline efficiency of a compute-bound op, %.
fn compute_eff(flops: f64, us: f64) -> f64 {
    flops / MATRIX_BF16 * 1e6 / us * 100.0
}

// ---- the tiny batched bmm of the attention fixture: [4096, 8, 64] x [4096, 64, 8] ----
const BMM_FLOPS: f64 = 2.0 * 4096.0 * 8.0 * 8.0 * 64.0;
/// A, B and C in bf16: 4096 · (8·64 + 64·8 + 8·8) · 2.
const BMM_BYTES: f64 = 4096.0 * (8.0 * 64.0 + 64.0 * 8.0 + 8.0 * 8.0) * 2.0;
/// 4096 x 4096 bf16 elements.
const BIG: f64 = 4096.0 * 4096.0;

#[test]
fn analyze_ops_columns_on_the_attention_fixture() {
    let rows = query_json(
        "analyze_attention.json",
        "SELECT * FROM analyze_ops ORDER BY op_rank",
    );
    assert_eq!(rows.len(), 18, "op groups");
    let columns: Vec<&str> = rows[0]
        .as_object()
        .expect("row")
        .keys()
        .map(|k| k.as_str())
        .collect();
    for c in [
        "name",
        "category",
        "shape",
        "instances",
        "time_us",
        "category_time_us",
        "category_share_pct",
        "total_time_us",
        "share_pct",
        "op_rank",
        "gflops",
        "data_mb",
        "flops_per_byte",
        "tflops_per_s",
        "tb_per_s",
        "bound",
        "efficiency_pct",
        "uids",
    ] {
        assert!(columns.contains(&c), "analyze_ops has no column {c}");
    }
    // Rank 1: the first bmm (ties at 400 µs break by name, then shape).
    let bmm = &rows[0];
    assert_eq!(bmm["name"], "aten::bmm");
    assert_eq!(bmm["category"], "GEMM");
    assert_eq!(bmm["shape"], "[[4096, 8, 64], [4096, 64, 8]]");
    assert_eq!(bmm["instances"], 1);
    assert_eq!(bmm["op_rank"], 1);
    close(num(bmm, "time_us"), 400.0, "bmm time");
    close(num(bmm, "category_time_us"), 800.0, "GEMM time: two bmm");
    close(num(bmm, "category_share_pct"), 50.0, "bmm category share");
    close(num(bmm, "total_time_us"), ATTENTION_TOTAL_US, "timeline");
    close(
        num(bmm, "share_pct"),
        400.0 / ATTENTION_TOTAL_US * 100.0,
        "bmm share",
    );
    close(num(bmm, "gflops"), BMM_FLOPS / 1e9, "bmm GFLOPs");
    close(num(bmm, "data_mb"), BMM_BYTES / MIB, "bmm MiB");
    close(
        num(bmm, "flops_per_byte"),
        BMM_FLOPS / BMM_BYTES,
        "bmm FLOPs/byte",
    );
    close(
        num(bmm, "tflops_per_s"),
        BMM_FLOPS / 400.0 / 1e6,
        "bmm TFLOPS/s",
    );
    close(num(bmm, "tb_per_s"), BMM_BYTES / 400.0 / 1e6, "bmm TB/s");
    assert_eq!(bmm["bound"], "memory", "3.8 FLOPs/byte is below the ridge");
    close(
        num(bmm, "efficiency_pct"),
        memory_eff(BMM_BYTES, 400.0),
        "bmm efficiency",
    );
    assert_eq!(
        uids(&serde_json::json!({"evidence_uids": bmm["uids"]})),
        [8]
    );

    // aten::convolution owns the kernels its aten::miopen_convolution launches.
    let conv = rows
        .iter()
        .find(|r| r["category"] == "CONV_fwd")
        .expect("conv row");
    assert_eq!(conv["name"], "aten::convolution");
    assert_eq!(conv["bound"], "compute");
    close(
        num(conv, "time_us"),
        360.0,
        "conv: 2 transposes + the conv kernel",
    );
    // aten::copy_ has 4 calls of one shape (RMSNorm casts) plus one other shape.
    let copies: Vec<_> = rows.iter().filter(|r| r["name"] == "aten::copy_").collect();
    assert_eq!(copies.len(), 2);
    assert_eq!(copies[0]["instances"], 4);
    close(
        num(copies[0], "time_us"),
        20.0,
        "RMSNorm copies: 2 x (6 + 4)",
    );
    // The softmax has no perf model: no rates, no efficiency.
    let softmax = rows
        .iter()
        .find(|r| r["name"] == "aten::_softmax")
        .expect("softmax");
    assert!(softmax["efficiency_pct"].is_null() && softmax["gflops"].is_null());
    // Category times add up to the op groups' times.
    let total: f64 = rows.iter().map(|r| num(r, "time_us")).sum();
    close(total, 1935.0, "all kernels are owned once");
}

#[test]
fn bottleneck_ops_flags_ops_above_a_tenth_of_their_category() {
    let f = "analyze_attention.json";
    // elementwise: RMSNorm ops 2 x (6+5+2+2+5+4+5) = 58, attention mul 20 and copy 10,
    // add_ 25, mul 24, sigmoid 100 = 237 µs.
    let elementwise = 58.0 + 20.0 + 10.0 + 25.0 + 24.0 + 100.0;
    let sig = one(f, "bottleneck_ops", "aten::sigmoid [[4096, 4096]]");
    assert_eq!(sig["severity"], "warning", "above 25% of its category");
    assert_eq!(sig["category"], "elementwise");
    assert_eq!(sig["metric"], "category_share_pct");
    close(
        num(sig, "value"),
        100.0 / elementwise * 100.0,
        "sigmoid share",
    );
    close(num(sig, "threshold"), 10.0, "threshold");
    close(num(sig, "time_us"), 100.0, "sigmoid time");
    close(
        num(sig, "efficiency_pct"),
        memory_eff(2.0 * BIG * 2.0, 100.0),
        "sigmoid efficiency",
    );
    assert_eq!(
        sig["op_rank"], 6,
        "after 3 x 400, 360 and the flash op (name order)"
    );
    assert_eq!(uids(sig), [24]);
    let m = metrics(sig);
    close(
        num(&m, "category_time_us"),
        elementwise,
        "metrics category time",
    );
    let add = one(
        f,
        "bottleneck_ops",
        "aten::add_ [[4096, 4096], [4096, 4096], []]",
    );
    assert_eq!(add["severity"], "info", "10.5% is below 25%");
    close(num(add, "value"), 25.0 / elementwise * 100.0, "add_ share");
    // The RMSNorm copies are 20 / 237 = 8.4% of elementwise: not flagged.
    assert!(of_rule(f, "bottleneck_ops").iter().all(|r| !r["subject"]
        .as_str()
        .unwrap_or("")
        .starts_with("aten::copy_")));
    // Eleven GEMMs of about 9% each: nothing stands out.
    assert!(of_rule("analyze_spread.json", "bottleneck_ops").is_empty());
}

#[test]
fn efficiency_tiers_reports_ops_below_the_good_tier() {
    let f = "analyze_attention.json";
    let bmm = one(
        f,
        "efficiency_tiers",
        "aten::bmm [[4096, 8, 64], [4096, 64, 8]]",
    );
    assert_eq!(bmm["severity"], "warning");
    assert_eq!(bmm["metric"], "efficiency_pct");
    close(
        num(bmm, "value"),
        memory_eff(BMM_BYTES, 400.0),
        "bmm efficiency",
    );
    close(num(bmm, "threshold"), 40.0, "investigate below 40");
    let m = metrics(bmm);
    assert_eq!(m["tier"], "investigate");
    assert_eq!(m["bound"], "memory");
    close(num(&m, "peak"), 5.3, "memory peak, TB/s");
    // Convolution: compute-bound, 50% → acceptable. FLOPs 2·N·K·P·Q·C·R·S plus the
    // bias N·K·P·Q, for N 64, C = K = 256, 56x56 output, 3x3 filter.
    let nkpq = 64.0 * 256.0 * 56.0 * 56.0;
    let conv_flops = 2.0 * nkpq * 256.0 * 9.0 + nkpq;
    let conv = one(
        f,
        "efficiency_tiers",
        "aten::convolution [[64, 256, 56, 56], [256, 256, 3, 3], [256], [], [], [], [], [], []]",
    );
    assert_eq!(conv["severity"], "info");
    close(
        num(conv, "value"),
        compute_eff(conv_flops, 360.0),
        "conv efficiency",
    );
    close(num(conv, "threshold"), 60.0, "acceptable below 60");
    assert_eq!(metrics(conv)["tier"], "acceptable");
    close(
        num(&metrics(conv), "peak"),
        1307.4,
        "matrix bf16 peak, TFLOPS/s",
    );
    // add_ (76%) and mul (79%) are good: not reported.
    let subjects: Vec<&str> = of_rule(f, "efficiency_tiers")
        .iter()
        .map(|r| r["subject"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(subjects.len(), 6, "{subjects:?}");
    assert!(!subjects
        .iter()
        .any(|s| s.starts_with("aten::add_") || s.starts_with("aten::mul ")));
    // The spread fixture's GEMMs run at 75% of peak: good, no findings.
    assert!(of_rule("analyze_spread.json", "efficiency_tiers").is_empty());
}

#[test]
fn tiny_batched_gemm_flags_huge_batches_of_tiny_matrices() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "tiny_batched_gemm");
    assert_eq!(rows.len(), 2, "both attention bmm");
    let qk = one(
        f,
        "tiny_batched_gemm",
        "aten::bmm [[4096, 8, 64], [4096, 64, 8]]",
    );
    assert_eq!(qk["category"], "GEMM");
    close(num(qk, "value"), 4096.0, "batch");
    close(num(qk, "threshold"), 1024.0, "min batch");
    close(num(qk, "time_us"), 400.0, "time");
    let m = metrics(qk);
    assert_eq!(
        (&m["B"], &m["M"], &m["N"], &m["K"]),
        (&4096.into(), &8.into(), &8.into(), &64.into())
    );
    let av = one(
        f,
        "tiny_batched_gemm",
        "aten::bmm [[4096, 8, 8], [4096, 8, 64]]",
    );
    let m = metrics(av);
    assert_eq!(
        (&m["M"], &m["N"], &m["K"]),
        (&8.into(), &64.into(), &8.into())
    );
    assert_eq!(uids(av), [11]);
    // Plain 4096-wide mm (B = 1) is not batched.
    assert!(of_rule("analyze_spread.json", "tiny_batched_gemm").is_empty());
    assert!(of_rule("analyze_clean.json", "tiny_batched_gemm").is_empty());
}

#[test]
fn unfused_attention_finds_the_innermost_attention_module() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "unfused_attention");
    assert_eq!(rows.len(), 1, "Attention_0, not the enclosing Block_0");
    let a = rows[0];
    assert_eq!(a["subject"], "nn.Module: Attention");
    assert_eq!(a["severity"], "warning");
    // bmm 400 + mul 20 + softmax 30 + bmm 400 + copy 10.
    close(num(a, "value"), 860.0, "attention ops' time");
    close(num(a, "time_us"), 860.0, "time");
    assert!(a["op_rank"].is_null() && a["efficiency_pct"].is_null());
    let m = metrics(a);
    assert_eq!(
        (
            &m["matmul_ops"],
            &m["softmax_ops"],
            &m["scale_ops"],
            &m["copy_ops"]
        ),
        (&2.into(), &1.into(), &1.into(), &1.into())
    );
    assert_eq!(uids(a), [32], "the Attention_0 frame");
    // The clean fixture runs flash attention.
    assert!(of_rule("analyze_clean.json", "unfused_attention").is_empty());
}

#[test]
fn short_sequence_attention_flags_n_below_1024() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "short_sequence_attention");
    assert_eq!(rows.len(), 1);
    let s = rows[0];
    assert_eq!(s["category"], "SDPA_fwd");
    close(num(s, "value"), 512.0, "sequence length");
    close(num(s, "threshold"), 1024.0, "max");
    // B 8, H 16, N 512, d 64: two matmuls of 2·N·N·d per head; compute-bound.
    let flops = 8.0 * 16.0 * 2.0 * (2.0 * 512.0 * 512.0 * 64.0);
    let bytes = 4.0 * (8.0 * 16.0 * 512.0 * 64.0) * 2.0;
    assert!(flops / MATRIX_BF16 > bytes / BW, "compute-bound");
    close(
        num(s, "efficiency_pct"),
        compute_eff(flops, 100.0),
        "efficiency",
    );
    assert_eq!(s["severity"], "warning", "below 40%");
    // N = 2048 in the clean fixture.
    assert!(of_rule("analyze_clean.json", "short_sequence_attention").is_empty());
}

#[test]
fn elementwise_baseline_compares_with_simple_elementwise_ops() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "elementwise_baseline");
    assert_eq!(rows.len(), 1, "only the sigmoid");
    let s = rows[0];
    assert_eq!(s["subject"], "aten::sigmoid [[4096, 4096]]");
    // add_ and mul each move 3 x 4096² bf16 in 25 and 24 µs: the baseline is their
    // bytes over their time.
    let baseline = 2.0 * 3.0 * BIG * 2.0 / 49.0 / 1e6;
    let sigmoid = 2.0 * BIG * 2.0 / 100.0 / 1e6;
    close(num(s, "value"), sigmoid, "sigmoid TB/s");
    close(num(s, "threshold"), 0.5 * baseline, "half the baseline");
    let m = metrics(s);
    close(num(&m, "baseline_tb_s"), baseline, "baseline");
    close(num(&m, "ratio"), sigmoid / baseline, "ratio");
    assert_eq!(m["baseline_groups"], 2);
    // Clean: the sigmoid runs in 19 µs (86% of the baseline).
    assert!(of_rule("analyze_clean.json", "elementwise_baseline").is_empty());
}

#[test]
fn normalization_baseline_flags_a_slow_batch_norm() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "normalization_baseline");
    assert_eq!(rows.len(), 1);
    let bn = rows[0];
    assert!(bn["subject"]
        .as_str()
        .unwrap_or("")
        .starts_with("aten::miopen_batch_norm "));
    assert_eq!(bn["category"], "NORM_fwd");
    // Inference batch norm: input and output (E elements) plus running mean, var,
    // weight and bias (4 x C), bf16.
    let e = 64.0 * 256.0 * 56.0 * 56.0;
    let bytes = (2.0 * e + 4.0 * 256.0) * 2.0;
    let baseline = 2.0 * 3.0 * BIG * 2.0 / 49.0 / 1e6;
    close(num(bn, "value"), bytes / 400.0 / 1e6, "batch norm TB/s");
    close(num(bn, "threshold"), 0.5 * baseline, "half the baseline");
    close(num(bn, "time_us"), 400.0, "time");
    assert_eq!(uids(bn), [26]);
    // Clean: 54 µs, 93% of the baseline.
    assert!(of_rule("analyze_clean.json", "normalization_baseline").is_empty());
}

/// One definition of a normalization (view analyze_bandwidth_baseline): a slow op
/// named like a norm whose category is not a norm category (aten::rms_norm outside
/// the registry takes its first kernel's, elementwise) is flagged by
/// normalization_baseline only. Version 1 of elementwise_baseline left out only the
/// norm categories, so both rules flagged it. Values are made up: a 4 TB/s add as
/// the baseline, the norm at 1 TB/s (a quarter of it), both moving 64 MiB per call.
#[tokio::test]
async fn a_norm_named_op_of_another_category_is_only_a_normalization_finding() {
    let engine = rules_engine(&fixture("analyze_clean.json")).await;
    let ctx = engine.context();
    let groups = ctx
        .sql(
            "SELECT * FROM (VALUES \
               ('t', 'aten::add', 'elementwise', '[[1]]', true, 4.0, 64.0, 100.0, 10.0, 1, [1]), \
               ('t', 'aten::rms_norm', 'elementwise', '[[2]]', true, 1.0, 64.0, 400.0, 40.0, 2, [2])) \
             AS v(trace, name, category, shape, compute_only, tb_per_s, data_mb, time_us, \
                  share_pct, op_rank, uids)",
        )
        .await
        .expect("plans");
    let schema = Arc::new(groups.schema().as_arrow().clone());
    let batches = groups.collect().await.expect("runs");
    ctx.register_table(
        "groups",
        Arc::new(MemTable::try_new(schema, vec![batches]).expect("table")),
    )
    .expect("register");
    let ops = ctx
        .sql(
            "SELECT trace, name, category, shape, compute_only, tb_per_s, data_mb, time_us, \
                    share_pct, CAST(NULL AS DOUBLE) AS category_share_pct, \
                    CAST(NULL AS DOUBLE) AS efficiency_pct, CAST(op_rank AS BIGINT) AS op_rank, \
                    CAST(NULL AS VARCHAR) AS compute_spec, 'memory' AS bound, \
                    CAST(NULL AS DOUBLE) AS flops_per_byte, uids \
             FROM groups",
        )
        .await
        .expect("plans");
    let schema = Arc::new(ops.schema().as_arrow().clone());
    let batches = ops.collect().await.expect("runs");
    ctx.deregister_table("analyze_ops").expect("deregister");
    ctx.register_table(
        "analyze_ops",
        Arc::new(MemTable::try_new(schema, vec![batches]).expect("table")),
    )
    .expect("register");
    let mut subjects = Vec::new();
    for rule in ["elementwise_baseline", "normalization_baseline"] {
        let sql = std::fs::read_to_string(rule_path(rule)).expect("rule file");
        let found = ctx
            .sql(&sql)
            .await
            .expect("plans")
            .collect()
            .await
            .expect("runs");
        for batch in &found {
            let subject = datafusion::arrow::compute::cast(
                batch.column(2),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .expect("text");
            let subject = subject
                .as_any()
                .downcast_ref::<datafusion::arrow::array::StringArray>()
                .expect("utf8");
            subjects.extend((0..batch.num_rows()).map(|i| format!("{rule}: {}", subject.value(i))));
        }
    }
    assert_eq!(subjects, ["normalization_baseline: aten::rms_norm [[2]]"]);
}

#[test]
fn conv_layout_transpose_measures_the_transposes_inside_convolutions() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "conv_layout_transpose");
    assert_eq!(rows.len(), 1);
    let c = rows[0];
    assert_eq!(c["category"], "CONV_fwd");
    assert_eq!(c["severity"], "info", "below 20%");
    // Two 30 µs transposes around a 300 µs convolution kernel.
    close(num(c, "value"), 60.0 / 360.0 * 100.0, "transpose share");
    close(num(c, "threshold"), 5.0, "threshold");
    close(num(c, "time_us"), 60.0, "transpose time");
    close(
        num(c, "category_share_pct"),
        60.0 / 360.0 * 100.0,
        "of CONV_fwd",
    );
    assert_eq!(uids(c), [139, 147], "kernels 27 and 29 of the file");
    assert!(of_rule("analyze_clean.json", "conv_layout_transpose").is_empty());
}

#[test]
fn fusion_opportunity_sums_small_elementwise_modules() {
    let f = "analyze_attention.json";
    let rows = of_rule(f, "fusion_opportunity");
    assert_eq!(rows.len(), 1, "RMSNorm only (Block_0 holds GEMMs)");
    let r = rows[0];
    assert_eq!(r["subject"], "nn.Module: RMSNorm");
    close(num(r, "value"), 8.0, "kernels per call");
    close(num(r, "threshold"), 4.0, "min kernels");
    // 6+5+4+2+2+5+4+5 µs per call, two calls.
    close(num(r, "time_us"), 66.0, "summed time");
    assert_eq!(r["severity"], "info", "3.2% of the trace");
    let m = metrics(r);
    assert_eq!((&m["instances"], &m["kernels"]), (&2.into(), &16.into()));
    close(
        num(&m, "share_pct"),
        66.0 / ATTENTION_TOTAL_US * 100.0,
        "share",
    );
    assert_eq!(uids(r), [31, 33]);
    // Clean: the RMSNorm module has two kernels.
    assert!(of_rule("analyze_clean.json", "fusion_opportunity").is_empty());
}

/// An MI300X engine over `path` with views registered, and the views the rules
/// share computed once (what the analyze runner can do too).
async fn rules_engine(path: &str) -> Engine {
    let mut engine = Engine::new();
    engine.set_platform(Some("MI300X")).expect("MI300X");
    engine
        .add(load_trace(path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .expect("add trace");
    engine.register_views().await.expect("views");
    let ctx = engine.context();
    for view in ["analyze_ops", "launchers", "gpu_time_totals"] {
        let df = ctx.table(view).await.expect("view");
        let schema = Arc::new(df.schema().as_arrow().clone());
        let batches = df.collect().await.expect("view runs");
        ctx.deregister_table(view).expect("deregister");
        let table = MemTable::try_new(schema, vec![batches]).expect("mem table");
        ctx.register_table(view, Arc::new(table)).expect("register");
    }
    engine
}

/// Plans and runs every rule; checks the contract schema and the metrics JSON.
async fn check_rules(engine: &Engine, what: &str) -> usize {
    let mut rows = 0;
    for rule in RULES {
        let sql = std::fs::read_to_string(rule_path(rule)).expect("rule file");
        let df = engine
            .context()
            .sql(&sql)
            .await
            .unwrap_or_else(|e| panic!("{what}: {rule} does not plan: {e}"));
        // The runner's own check: names in order, types it casts to the contract.
        check_schema(df.schema().as_arrow())
            .unwrap_or_else(|e| panic!("{what}: {rule} schema: {e}"));
        let batches = df
            .collect()
            .await
            .unwrap_or_else(|e| panic!("{what}: {rule} fails: {e}"));
        for batch in &batches {
            let metrics = batch
                .column(13)
                .as_any()
                .downcast_ref::<datafusion::arrow::array::StringArray>()
                .expect("metrics is Utf8 (json_object)");
            for i in 0..batch.num_rows() {
                let text = metrics.value(i);
                serde_json::from_str::<Value>(text)
                    .unwrap_or_else(|e| panic!("{what}: {rule} metrics {text}: {e}"));
            }
            rows += batch.num_rows();
        }
    }
    rows
}

#[tokio::test]
async fn every_rule_returns_the_contract_schema() {
    let engine = rules_engine(&fixture("analyze_attention.json")).await;
    let rows = check_rules(&engine, "analyze_attention.json").await;
    assert!(rows > 20, "the attention fixture triggers every rule");
}

#[tokio::test]
async fn every_rule_runs_on_the_conformance_traces() {
    let Some(dir) = conformance_dir() else {
        return;
    };
    let traces = dir.join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&traces)
        .expect("traces dir")
        .flatten()
        .filter(|d| d.path().is_dir())
        .flat_map(|d| std::fs::read_dir(d.path()).expect("trace dir").flatten())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no traces in {}", traces.display());
    for file in files {
        let path = file.to_string_lossy().to_string();
        let engine = rules_engine(&path).await;
        check_rules(&engine, &path).await;
    }
}
