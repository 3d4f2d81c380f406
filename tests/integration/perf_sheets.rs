//! The perf-metric sheets (GEMM, SDPA_fwd, ...) on a fixture, checked against
//! numbers worked out by hand from the trace.

use datafusion::arrow::array::Array;
use datafusion::arrow::util::display::array_value_to_string;
use tracesql::report::run_reports;

use crate::util::{cell, engine_with, fixture, number};

/// The sheet's header and its rows, every cell as text (NULL as "").
async fn sheet(path: &str, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let engine = engine_with(&[path]);
    engine
        .register_views()
        .await
        .expect("shipped views register");
    let sheets = run_reports(&engine, Some(&[name.to_string()]))
        .await
        .expect("the report runs");
    let sheet = sheets
        .into_iter()
        .find(|s| s.sheet == name)
        .unwrap_or_else(|| panic!("no {name} sheet written"));
    let mut rows = Vec::new();
    for batch in &sheet.batches {
        assert_eq!(batch.num_columns(), sheet.header.len());
        for row in 0..batch.num_rows() {
            rows.push(
                batch
                    .columns()
                    .iter()
                    .map(|c| {
                        if c.is_null(row) {
                            String::new()
                        } else {
                            array_value_to_string(c, row).expect("render cell")
                        }
                    })
                    .collect(),
            );
        }
    }
    (sheet.header, rows)
}

/// fixtures/basic_linear.json: `aten::addmm` (uid 6) with bias (4096,),
/// A (256, 1024) and B (1024, 4096), all bf16, launching one cuBLAS kernel at
/// ts 1723456789320.448 for 41.216 µs.
#[tokio::test]
async fn gemm_row_of_basic_linear_addmm() {
    let (header, rows) = sheet(&fixture("basic_linear.json"), "GEMM").await;

    // Only the keys the data has, in the model's order; the cuBLAS kernel name
    // does not tell the transpose, so there is no `param: transpose`, and the
    // column-order helper column is not written.
    let params: Vec<&str> = header
        .iter()
        .map(String::as_str)
        .filter(|h| h.starts_with("param: "))
        .collect();
    assert_eq!(
        params,
        [
            "param: M",
            "param: N",
            "param: K",
            "param: bias",
            "param: stride_A",
            "param: stride_B",
            "param: dtype_A_B",
            "param: B"
        ]
    );
    assert!(!header.iter().any(|h| h == "param_order"));
    assert_eq!(header[0], "name");
    assert_eq!(header[params.len() + 1], "GFLOPS_first");
    assert_eq!(header.last().map(String::as_str), Some("UID_first"));

    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(cell(&header, row, "name"), "aten::addmm");
    let (m, n, k) = (256.0, 4096.0, 1024.0);
    assert_eq!(cell(&header, row, "param: M"), "256");
    assert_eq!(cell(&header, row, "param: N"), "4096");
    assert_eq!(cell(&header, row, "param: K"), "1024");
    assert_eq!(cell(&header, row, "param: bias"), "True");
    assert_eq!(
        cell(&header, row, "param: dtype_A_B"),
        "('c10::BFloat16', 'c10::BFloat16')"
    );

    // FLOPs: 2·M·N·K for the product plus M·N for the bias.
    let flops = 2.0 * m * n * k + m * n;
    assert_eq!(flops, 2_148_532_224.0);
    let gflops = flops / 1e9;
    assert_eq!(number(&header, row, "GFLOPS_first"), 2.148532224);
    // Bytes, bf16 (2 bytes): A (M·K) + B (K·N) + out (M·N) + bias (N).
    let bytes = (m * k + k * n + m * n + n) * 2.0;
    assert_eq!(bytes, 11_018_240.0);
    assert_eq!(number(&header, row, "Data Moved (MB)_first"), 10.5078125);
    assert_eq!(
        number(&header, row, "FLOPS/Byte_first"),
        (gflops * 1e9) / bytes
    );

    // Kernel time is the busy time of the one kernel: (ts + dur) - ts in f64.
    let (ts, dur) = (1_723_456_789_320.448_f64, 41.216);
    let kernel_us = (ts + dur) - ts;
    assert_eq!(number(&header, row, "Kernel Time (µs)_sum"), kernel_us);
    assert_eq!(number(&header, row, "Kernel Time (µs)_mean"), kernel_us);
    let tflops_per_s = (gflops / 1e3) / (kernel_us / 1e6);
    assert!((tflops_per_s - 52.128).abs() < 0.01, "{tflops_per_s}");
    assert_eq!(number(&header, row, "TFLOPS/s_mean"), tflops_per_s);
    assert_eq!(number(&header, row, "TFLOPS/s_max"), tflops_per_s);
    // One instance: no sample std.
    assert_eq!(cell(&header, row, "TFLOPS/s_std"), "");
    assert_eq!(
        number(&header, row, "TB/s_mean"),
        (bytes / 1e12) / (kernel_us / 1e6)
    );

    assert_eq!(cell(&header, row, "Compute Spec"), "matrix_bf16");
    assert_eq!(cell(&header, row, "name_count"), "1");
    assert_eq!(cell(&header, row, "UID_first"), "6");
    assert_eq!(
        cell(&header, row, "Input Dims_first"),
        "[[4096], [256, 1024], [1024, 4096], [], []]"
    );
    assert!(cell(&header, row, "kernel_details__summarize_kernel_stats")
        .starts_with("[{'name': 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"));
}
