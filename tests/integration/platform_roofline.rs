//! Roofline columns of the perf sheets and unified_perf_summary: added only when
//! a platform is in effect (`--platform`, `SET platform`, or detected from the
//! trace's deviceProperties), computed against that platform's peaks.
//!
//! The numbers are worked out by hand from fixtures/basic_linear.json:
//! `aten::addmm` (uid 6) with bias (4096,), A (256, 1024) and B (1024, 4096),
//! all bf16, one kernel at ts 1723456789320.448 for 41.216 µs.

use crate::util::{self, cell, engine_with, fixture, number, tracesql};

/// FLOPs and bytes of the fixture's addmm (spec §7.4): 2·M·N·K + M·N (bias),
/// and bf16 (2 bytes) A + B + out + bias.
fn addmm_flops_bytes() -> (f64, f64) {
    let (m, n, k) = (256.0_f64, 4096.0_f64, 1024.0_f64);
    (2.0 * m * n * k + m * n, (m * k + k * n + m * n + n) * 2.0)
}

/// Its kernel time: the busy time of the one kernel, (ts + dur) - ts in f64.
fn addmm_kernel_us() -> f64 {
    let (ts, dur) = (1_723_456_789_320.448_f64, 41.216);
    (ts + dur) - ts
}

/// Roofline time (µs) and whether compute bounds it, for a peak in TFLOPS and a
/// bandwidth in TB/s (spec §9).
fn roofline_by_hand(peak_tflops: f64, memory_tb_s: f64) -> (f64, bool) {
    let (flops, bytes) = addmm_flops_bytes();
    let compute_us = (flops / (peak_tflops * 1e12)) * 1e6;
    let memory_us = (bytes / (memory_tb_s * 1e12)) * 1e6;
    (compute_us.max(memory_us), compute_us >= memory_us)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

/// `tracesql report FIXTURE --out DIR --only SHEET [args]`: the CSV's header and
/// rows.
fn report_csv(sheet: &str, args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = tracesql()
        .arg("report")
        .arg(fixture("basic_linear.json"))
        .arg("--out")
        .arg(dir.path())
        .arg("--only")
        .arg(sheet)
        .args(args)
        .run();
    assert!(out.success(), "{}", out.stderr);
    let path = dir.path().join(format!("{sheet}.csv"));
    let reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(&path)
        .unwrap_or_else(|e| panic!("{sheet}.csv: {e}"));
    crate::util::csv_table(reader)
}

// MI300X in udfs/src/roofline/platforms.rs: 5.3 TB/s, matrix_bf16 1307.4 TFLOPS.
const MI300X_TB_S: f64 = 5.3;
const MI300X_MATRIX_BF16: f64 = 1307.4;
// H100 (SXM) there: 3.35 TB/s, matrix_bf16 989.4 TFLOPS.
const H100_TB_S: f64 = 3.35;
const H100_MATRIX_BF16: f64 = 989.4;

#[test]
fn gemm_sheet_with_platform_mi300x() {
    let (header, rows) = report_csv("GEMM", &["--platform", "MI300X"]);
    // The roofline columns sit after Compute Spec (spec §8.5).
    let spec_at = header
        .iter()
        .position(|h| h == "Compute Spec")
        .expect("Compute Spec");
    assert_eq!(
        header[spec_at + 1..spec_at + 8],
        [
            "Roofline Time (µs)_first",
            "Roofline Bound_first",
            "Pct Roofline_mean",
            "Pct Roofline_median",
            "Pct Roofline_std",
            "Pct Roofline_min",
            "Pct Roofline_max"
        ]
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(cell(&header, row, "Compute Spec"), "matrix_bf16");

    // compute: 2,148,532,224 FLOPs / 1307.4e12 = 1.643 µs;
    // memory: 11,018,240 bytes / 5.3e12 = 2.079 µs: memory-bound.
    let (time_us, compute_bound) = roofline_by_hand(MI300X_MATRIX_BF16, MI300X_TB_S);
    assert!(!compute_bound);
    assert!((time_us - 2.0789).abs() < 1e-4, "{time_us}");
    assert_eq!(cell(&header, row, "Roofline Bound_first"), "MEMORY_BOUND");
    assert!(close(
        number(&header, row, "Roofline Time (µs)_first"),
        time_us
    ));
    let pct = time_us / addmm_kernel_us() * 100.0;
    assert!((pct - 5.044).abs() < 1e-3, "{pct}");
    for stat in ["mean", "median", "min", "max"] {
        let column = format!("Pct Roofline_{stat}");
        assert!(close(number(&header, row, &column), pct), "{column}");
    }
    // One instance: no sample std.
    assert_eq!(cell(&header, row, "Pct Roofline_std"), "");
}

#[test]
fn unified_summary_with_platform_mi300x() {
    let (header, rows) = report_csv("unified_perf_summary", &["--platform", "MI300X"]);
    let spec_at = header
        .iter()
        .position(|h| h == "Compute Spec")
        .expect("Compute Spec");
    assert_eq!(header[spec_at + 1], "Roofline Bound");
    let tflops_max = header
        .iter()
        .position(|h| h == "TFLOPS/s_max")
        .expect("TFLOPS/s_max");
    assert_eq!(
        header[tflops_max + 1..tflops_max + 7],
        [
            "Roofline Time (µs)",
            "Pct Roofline_mean",
            "Pct Roofline_median",
            "Pct Roofline_std",
            "Pct Roofline_min",
            "Pct Roofline_max"
        ]
    );
    let addmm = rows
        .iter()
        .find(|r| r[0] == "aten::addmm")
        .expect("an aten::addmm row");
    let (time_us, _) = roofline_by_hand(MI300X_MATRIX_BF16, MI300X_TB_S);
    assert_eq!(cell(&header, addmm, "Roofline Bound"), "MEMORY_BOUND");
    assert!(close(number(&header, addmm, "Roofline Time (µs)"), time_us));
    assert!(close(
        number(&header, addmm, "Pct Roofline_mean"),
        time_us / addmm_kernel_us() * 100.0
    ));
}

#[test]
fn platform_none_and_no_platform_add_no_roofline_columns() {
    // The fixture's deviceProperties names an H100-class GPU: `none` overrides
    // the detection.
    for sheet in ["GEMM", "unified_perf_summary"] {
        let (header, _) = report_csv(sheet, &["--platform", "none"]);
        assert!(
            !header.iter().any(|h| h.contains("Roofline")),
            "{sheet}: {header:?}"
        );
    }
}

#[tokio::test]
async fn platform_detected_from_device_properties() {
    // "Synthetic NVIDIA H100-class GPU (tracesql fixture)" names the H100.
    let engine = engine_with(&[&fixture("basic_linear.json")]);
    assert_eq!(engine.platform().as_deref(), Some("H100"));
    engine
        .register_views()
        .await
        .expect("shipped views register");
    let rows = util::rows(
        &engine,
        "SELECT \"Roofline Bound\", \"Roofline Time (µs)\" FROM perf_metrics \
         WHERE name = 'aten::addmm' AND pass = 'fwd'",
    )
    .await;
    // memory: 11,018,240 / 3.35e12 = 3.289 µs > compute 2.172 µs.
    let (time_us, compute_bound) = roofline_by_hand(H100_MATRIX_BF16, H100_TB_S);
    assert!(!compute_bound);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][0], "MEMORY_BOUND");
    let got: f64 = rows[0][1].parse().expect("a number");
    assert!(close(got, time_us), "{got} vs {time_us}");

    let sheets = tracesql::report::run_reports(&engine, Some(&["GEMM".to_string()]))
        .await
        .expect("the report runs");
    assert!(sheets[0].header.iter().any(|h| h == "Roofline Bound_first"));
}

#[test]
fn set_platform_in_a_query_session() {
    let trace = fixture("basic_linear.json");
    let (stdout, stderr, code) = util::repl_piped(
        &[&trace, "--platform", "none"],
        ".format csv\n\
         SELECT coalesce(platform, 'unset') AS p FROM session_platform;\n\
         SELECT count(\"Roofline Time (\u{b5}s)\") AS before FROM perf_metrics;\n\
         SELECT 1 AS one; SET platform = 'MI300X';\n\
         SELECT platform AS p FROM session_platform;\n\
         SELECT \"Roofline Time (\u{b5}s)\" AS t FROM perf_metrics WHERE name = 'aten::addmm';\n",
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("p\nunset\n"), "{stdout}");
    // perf_metrics was computed without a platform; after SET platform (here
    // after another statement on the same line) it is computed again.
    assert!(stdout.contains("before\n0\n"), "{stdout}");
    assert!(stdout.contains("platform: MI300X"), "{stdout}");
    assert!(stdout.contains("p\nMI300X\n"), "{stdout}");
    let (time_us, _) = roofline_by_hand(MI300X_MATRIX_BF16, MI300X_TB_S);
    let t: f64 = stdout
        .split("\nt\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no roofline time in {stdout}"));
    assert!(close(t, time_us), "{t} vs {time_us}");
}

#[test]
fn unknown_platform_is_a_one_line_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = tracesql()
        .arg("report")
        .arg(fixture("basic_linear.json"))
        .arg("--out")
        .arg(dir.path())
        .arg("--only")
        .arg("GEMM")
        .arg("--platform")
        .arg("NoSuchGPU")
        .run();
    assert!(!out.success());
    let err = &out.stderr;
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("unknown platform 'NoSuchGPU'"), "{err}");
    assert!(!dir.path().join("GEMM.csv").exists());
}
