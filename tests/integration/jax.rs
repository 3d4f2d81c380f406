//! JAX XPlane traces (`*.xplane.pb`) on the shared conformance data
//! (`formats/jax/<trace>/`): the events against xprof's own JSON export of the
//! same trace (refs/xprof/trace_viewer.json.gz), kernels linked to their host
//! launches, and `hlo_instructions` against xprof's HLO text
//! (refs/xprof/hlo_long_txt/). The tests skip when ../shared is absent; bad
//! files need no data.

use std::io::Read as _;
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{conformance_dir, engine_with, rows, tracesql, write_file};

/// A shared JAX trace and what it holds.
struct Expected {
    name: &'static str,
    /// Events on GPU stream lines (all kernels: rocclr copies are kernels).
    kernels: usize,
    /// Those with an `hlo_op` stat.
    with_hlo_op: usize,
    /// HLO modules in the metadata plane.
    modules: usize,
    /// GPU planes with events.
    gpus: usize,
}

const TRACES: &[Expected] = &[
    Expected {
        name: "jax_conv_minimal_08",
        kernels: 235,
        with_hlo_op: 198,
        modules: 8,
        gpus: 8,
    },
    Expected {
        name: "jax_te_fused_attn",
        kernels: 150,
        with_hlo_op: 150,
        modules: 9,
        gpus: 1,
    },
];

/// The trace's folder, or None (the test skips) without the shared data.
fn trace_dir(name: &str) -> Option<PathBuf> {
    let dir = conformance_dir()?.join("formats/jax").join(name);
    dir.is_dir().then_some(dir)
}

fn pb(dir: &std::path::Path, name: &str) -> String {
    dir.join(format!("{name}.xplane.pb"))
        .to_string_lossy()
        .into_owned()
}

/// xprof's `traceEvents`.
fn xprof_events(dir: &std::path::Path) -> Vec<Value> {
    let file =
        std::fs::File::open(dir.join("refs/xprof/trace_viewer.json.gz")).expect("xprof JSON");
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gunzip");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    doc["traceEvents"].as_array().expect("traceEvents").clone()
}

fn int(rows: &[Vec<String>]) -> usize {
    rows[0][0].parse().expect("a count")
}

#[tokio::test]
async fn gpu_events_equal_xprofs_in_order_name_pid_tid_ts_dur_and_args() {
    for t in TRACES {
        let Some(dir) = trace_dir(t.name) else { return };
        let engine = engine_with(&[&pb(&dir, t.name)]);
        let ours = rows(
            &engine,
            "SELECT CAST(pid AS BIGINT), CAST(tid AS BIGINT), name, ts, dur, cat, args
             FROM events WHERE CAST(pid AS BIGINT) < 500 ORDER BY uid",
        )
        .await;
        // xprof's stream lines: its derived lines (tids from 0xDEADBEEF) are
        // not made here.
        let reference: Vec<Value> = xprof_events(&dir)
            .into_iter()
            .filter(|e| e["ph"] == "X" && e["pid"].as_u64().unwrap() < 500)
            .filter(|e| e["tid"].as_u64().unwrap() < 0xDEAD_BEEF)
            .collect();
        assert_eq!(ours.len(), t.kernels, "{}", t.name);
        assert_eq!(reference.len(), t.kernels, "{}", t.name);
        for (row, e) in ours.iter().zip(&reference) {
            let at = format!("{}: {row:?} against {e}", t.name);
            assert_eq!(row[0], e["pid"].to_string(), "{at}");
            assert_eq!(row[1], e["tid"].to_string(), "{at}");
            assert_eq!(row[2], e["name"].as_str().unwrap(), "{at}");
            let ts: f64 = row[3].parse().unwrap();
            let dur: f64 = row[4].parse().unwrap();
            assert_eq!(ts.to_bits(), e["ts"].as_f64().unwrap().to_bits(), "{at}");
            assert_eq!(dur.to_bits(), e["dur"].as_f64().unwrap().to_bits(), "{at}");
            assert_eq!(row[5], "kernel", "{at}");
            // Every arg xprof prints is ours too (we keep more: program_id,
            // kernel_details).
            let args: Value = serde_json::from_str(&row[6]).unwrap();
            for (key, value) in e["args"].as_object().unwrap() {
                if key != "is_eager" {
                    assert_eq!(&args[key], value, "{at}: args.{key}");
                }
            }
        }
    }
}

#[tokio::test]
async fn kernels_link_to_their_host_launch_by_correlation_id() {
    for t in TRACES {
        let Some(dir) = trace_dir(t.name) else { return };
        let engine = engine_with(&[&pb(&dir, t.name)]);
        let sql = "SELECT count(*) FROM kernels k JOIN events e ON e.uid = k.launch_uid
                   WHERE e.pid = '701' AND e.correlation = k.correlation
                     AND e.cat = 'launch' AND k.linked_by = 'correlation'";
        assert_eq!(int(&rows(&engine, sql).await), t.kernels, "{}", t.name);
        let sql =
            "SELECT count(*) FROM kernel_dispatches d JOIN api_calls a ON a.corr_id = d.corr_id
                   WHERE a.domain = 'xla_launch'";
        assert!(int(&rows(&engine, sql).await) >= t.kernels, "{}", t.name);
        let sql =
            "SELECT count(DISTINCT gpu_index), count(*), count(hlo_op) FROM kernel_dispatches";
        let counts = &rows(&engine, sql).await[0];
        let expected = [t.gpus, t.kernels, t.with_hlo_op].map(|n| n.to_string());
        assert_eq!(counts, &expected, "{}", t.name);
    }
    // One by name: the first kernel of GPU:1 (pid 2) comes after GPU:0's 60
    // stream events (TraceLens's UID 96 also counts xprof's derived lines).
    let name = "jax_conv_minimal_08";
    let Some(dir) = trace_dir(name) else { return };
    let engine = engine_with(&[&pb(&dir, name)]);
    let first = rows(
        &engine,
        "SELECT k.uid, k.name, k.device, k.launch_name, e.tid, k.correlation
         FROM kernels k JOIN events e ON e.uid = k.launch_uid
         WHERE k.device = 1 ORDER BY k.uid LIMIT 1",
    )
    .await;
    let row = &first[0];
    assert_eq!(
        row[..5],
        [
            "60",
            "loop_transpose_fusion.kd",
            "1",
            "hipModuleLaunchKernel",
            "586"
        ]
    );
}

/// The output shape of `%op` in xprof's HLO text, tuple elements joined by
/// ',' (TraceLens's normalisation).
fn text_shape(hlo_text: &str, op: &str) -> Option<String> {
    let key = format!("%{op} = ");
    let line = hlo_text.lines().find(|l| {
        let l = l.trim_start();
        l.strip_prefix("ROOT ").unwrap_or(l).starts_with(&key)
    })?;
    let rest = &line[line.find(&key)? + key.len()..];
    let shape = if rest.starts_with('(') {
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(i, c)| {
            depth += i32::from(c == '(') - i32::from(c == ')');
            (depth == 0).then_some(i)
        })?;
        &rest[..=end]
    } else {
        rest.split(' ').next()?
    };
    Some(shape.replace(", ", ","))
}

#[tokio::test]
async fn hlo_instructions_hold_each_kernels_op_with_xprofs_shape_text() {
    for t in TRACES {
        let Some(dir) = trace_dir(t.name) else { return };
        let engine = engine_with(&[&pb(&dir, t.name)]);
        let modules =
            "SELECT count(*) FROM (SELECT DISTINCT module, program_id FROM hlo_instructions)";
        assert_eq!(int(&rows(&engine, modules).await), t.modules, "{}", t.name);
        let joined = rows(
            &engine,
            "SELECT d.hlo_module, d.program_id, d.hlo_op, h.shape, h.opcode
             FROM kernel_dispatches d JOIN hlo_instructions h
               ON h.module = d.hlo_module AND h.program_id = d.program_id AND h.name = d.hlo_op",
        )
        .await;
        assert_eq!(joined.len(), t.with_hlo_op, "{}", t.name);
        for row in &joined {
            let file = dir.join(format!(
                "refs/xprof/hlo_long_txt/{}({}).txt",
                row[0], row[1]
            ));
            let text = std::fs::read_to_string(&file).expect("HLO text");
            let shape = text_shape(&text, &row[2]);
            assert_eq!(
                shape.as_deref(),
                Some(row[3].as_str()),
                "{}: {row:?}",
                t.name
            );
        }
    }
    // One by name.
    let name = "jax_conv_minimal_08";
    let Some(dir) = trace_dir(name) else { return };
    let engine = engine_with(&[&pb(&dir, name)]);
    let conv = rows(
        &engine,
        "SELECT opcode, shape, custom_call_target, array_length(operand_shapes)
         FROM hlo_instructions
         WHERE module = 'jit_forward_3d_conv' AND program_id = 15 AND name = 'cudnn-conv.1'",
    )
    .await;
    assert_eq!(conv.len(), 1);
    let text =
        std::fs::read_to_string(dir.join("refs/xprof/hlo_long_txt/jit_forward_3d_conv(15).txt"))
            .unwrap();
    assert_eq!(conv[0][0], "custom-call");
    assert_eq!(Some(conv[0][1].clone()), text_shape(&text, "cudnn-conv.1"));
    assert!(conv[0][1].starts_with("(bf16["), "{:?}", conv[0]);
    assert!(conv[0][2].contains("conv"), "{:?}", conv[0]);
    assert_eq!(conv[0][3], "2");
}

#[test]
fn trace_meta_has_the_profile_span_and_gpu_properties() {
    let name = "jax_conv_minimal_08";
    let Some(dir) = trace_dir(name) else { return };
    let out = crate::util::tracesql_ok(&[
        "query",
        &pb(&dir, name),
        "-e",
        "SELECT key, value FROM trace_meta WHERE key IN ('source_format', 'hostnames', 'profile_start_time', 'device:GPU:0') ORDER BY key",
        "--format",
        "csv",
    ]);
    assert!(
        out.contains("\"device:GPU:0\"") || out.contains("device:GPU:0,"),
        "{out}"
    );
    assert!(out.contains("core_count"), "{out}");
    assert!(
        out.contains("profile_start_time,1771595639214724894"),
        "{out}"
    );
    assert!(out.contains("source_format,\"\"\"jax\"\"\""), "{out}");
}

#[test]
fn bad_xplane_files_fail_in_one_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A plane whose name is written as a varint, read as JAX by the hint.
    let wire = write_file(dir.path(), "wire.pb", &[0x0a, 0x02, 0x10, 0x01]);
    // No plane: an XSpace with only a hostname.
    let empty = write_file(dir.path(), "empty.pb", &[0x22, 0x01, b'h']);
    for (path, expected) in [(&wire, "wire type"), (&empty, "no plane")] {
        let run = tracesql()
            .args(["--format-hint", "jax", "query", path, "-e", "SELECT 1"])
            .run();
        assert_eq!(run.code, Some(2), "{}", run.stderr);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", run.stderr);
        assert!(
            lines[0].contains("not a valid JAX XPlane file"),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(expected), "{}", lines[0]);
    }
    // A real trace cut short is detected by content and fails the same way.
    let name = "jax_conv_minimal_08";
    let Some(data) = trace_dir(name) else { return };
    let bytes = std::fs::read(pb(&data, name)).unwrap();
    let cut = write_file(dir.path(), "cut.bin", &bytes[..bytes.len() - 1000]);
    let run = tracesql().args(["query", &cut, "-e", "SELECT 1"]).run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("not a valid JAX XPlane file"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

/// A CSV as rows of cells, header first.
/// `report` of the shared trace `name` (in `dir`) into a temporary folder,
/// with or without `--tracelens-compat`.
fn report(dir: &std::path::Path, name: &str, compat: bool) -> tempfile::TempDir {
    let out = tempfile::tempdir().expect("temp dir");
    let out_dir = out.path().to_string_lossy().into_owned();
    let trace = pb(dir, name);
    let mut args = vec![
        "report",
        trace.as_str(),
        "--platform",
        "none",
        "--out",
        &out_dir,
    ];
    if compat {
        args.push("--tracelens-compat");
    }
    crate::util::tracesql_ok(&args);
    out
}

fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.expect("csv").iter().map(str::to_string).collect())
        .collect()
}

fn same_cell(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs()),
        _ => a == b,
    }
}

#[test]
fn gpu_timeline_matches_tracelens_per_gpu() {
    // The reference of the TE trace is in perf_report_tolerant (TraceLens's
    // plain run aborts on that trace).
    let cases = [
        ("jax_conv_minimal_08", "perf_report", 8),
        ("jax_te_fused_attn", "perf_report_tolerant", 1),
    ];
    for (name, refs, gpus) in cases {
        let Some(dir) = trace_dir(name) else { return };
        let out = tempfile::tempdir().expect("temp dir");
        let out_dir = out.path().to_string_lossy().into_owned();
        crate::util::tracesql_ok(&[
            "report",
            &pb(&dir, name),
            "--tracelens-compat",
            "--out",
            &out_dir,
        ]);
        let ours = csv_rows(&out.path().join("gpu_timeline.csv"));
        let reference = csv_rows(&dir.join(format!("refs/{refs}/gpu_timeline.csv")));
        assert_eq!(ours[0], ["type", "time ms", "percent", "gpu_pid"], "{name}");
        assert_eq!(ours[0], reference[0], "{name}");
        assert_eq!(ours.len(), 1 + 8 * gpus, "{name}");
        // Rows as multisets: TraceLens orders the GPUs as a Python set.
        let mut left: Vec<&Vec<String>> = ours[1..].iter().collect();
        for row in &reference[1..] {
            let at = left
                .iter()
                .position(|o| o.iter().zip(row).all(|(a, b)| same_cell(a, b)));
            let at = at.unwrap_or_else(|| panic!("{name}: no row of ours equals {row:?}"));
            left.remove(at);
        }
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}

#[test]
fn conv_flops_count_the_whole_filter_by_default_and_its_spatial_dims_under_compat() {
    let name = "jax_conv_minimal_08";
    let Some(dir) = trace_dir(name) else { return };
    let gflops = |compat: bool| -> (String, f64) {
        let out = report(&dir, name, compat);
        let sheet = csv_rows(&out.path().join("op_conv.csv"));
        let col = |c: &str| sheet[0].iter().position(|h| h == c).expect(c);
        let row = sheet[1..]
            .iter()
            .find(|r| r[0] == "Im3d2Col.kd")
            .expect("the Im3d2Col kernel");
        let filter = row[col("param: filter_shape")].clone();
        (filter, row[col("GFLOPS_first")].parse().expect("a number"))
    };
    // A 5120×16×1×2×2 filter: TraceLens keeps only its spatial dims (1, 2, 2),
    // so FLOPs = 2·prod(w[1:])·prod(out) miss the 16 input channels.
    let (filter, compat) = gflops(true);
    assert_eq!(filter, "(1, 2, 2)");
    assert!((compat - 2.28810752).abs() < 1e-9, "{compat}");
    let (filter, fixed) = gflops(false);
    assert_eq!(filter, "(5120, 16, 1, 2, 2)");
    assert!((fixed / compat - 16.0).abs() < 1e-9, "{fixed} vs {compat}");
}

/// The attention sheets of the Transformer Engine trace, where TraceLens
/// crashes: its te_fused_attn custom calls pack q, k and v into one
/// `bf16[2,2048,3,16,128]` operand (qkv_layout BS3HD, k and v `bf16[0]`).
/// Read through the layout, q, k and v are each B×S×H×D = 2×2048×16×128; the
/// backend config's mask_type 2 (causal) halves the FLOPs by default, while
/// under --tracelens-compat causal is False as in TraceLens's model.
#[test]
fn te_fused_attention_sheets_read_packed_qkv_and_count_sdpa_flops() {
    let name = "jax_te_fused_attn";
    let Some(dir) = trace_dir(name) else { return };
    let (b, n, h, d) = (2.0_f64, 2048.0_f64, 16.0_f64, 128.0_f64);
    // Forward: QKᵀ and PV, 2·N_Q·N_KV·d each per batch and head.
    let fwd = 2.0 * b * h * n * n * d + 2.0 * b * h * n * n * d;
    // Backward (flash): recompute QKᵀ, dV, dP, dQ, dK: five such GEMMs.
    let bwd = 5.0 * 2.0 * b * h * n * n * d;
    let q_elems = b * n * h * d;
    for compat in [false, true] {
        let out = report(&dir, name, compat);
        let halve = if compat { 1.0 } else { 0.5 };
        let mut seen = 0;
        for (sheet, expected_rows) in [("op_fa_fwd", 1), ("op_fa_bwd", 3), ("op_te", 2)] {
            let rows = csv_rows(&out.path().join(format!("{sheet}.csv")));
            assert_eq!(
                rows.len() - 1,
                expected_rows,
                "{sheet} (compat {compat}): {rows:?}"
            );
            let col = |c: &str| {
                rows[0]
                    .iter()
                    .position(|x| x == c)
                    .unwrap_or_else(|| panic!("{sheet}: {c}"))
            };
            assert_eq!(
                rows[0].iter().any(|c| c == "param: dropout"),
                !compat,
                "{sheet}: dropout is a default-mode param"
            );
            for row in &rows[1..] {
                let cell = |c: &str| row[col(c)].as_str();
                let num = |c: &str| -> f64 {
                    cell(c)
                        .parse()
                        .unwrap_or_else(|_| panic!("{c}: {}", cell(c)))
                };
                for (param, value) in [
                    ("param: B", "2"),
                    ("param: N_Q", "2048"),
                    ("param: H_Q", "16"),
                    ("param: N_KV", "2048"),
                    ("param: H_KV", "16"),
                    ("param: d_h_qk", "128"),
                    ("param: d_h_v", "128"),
                    ("param: bytes_per_element", "2"),
                    ("param: flash_impl", "True"),
                    ("param: dtype_A_B", "('c10::bfloat16', 'c10::bfloat16')"),
                ] {
                    assert_eq!(cell(param), value, "{sheet} {param}");
                }
                assert_eq!(cell("param: causal"), if compat { "False" } else { "True" });
                assert_eq!(
                    cell("Input Dims_first"),
                    "((2, 2048, 3, 16, 128), (0,), (0,))"
                );
                // The forward call's kernels (FmhaFwd, the rng-state helper) get the
                // forward FLOPs; the backward call's (FmhaBwd*, fill-buffer) the backward.
                let backward = sheet == "op_fa_bwd" || cell("name").contains("fillBuffer");
                let (flops, bytes) = if backward {
                    (bwd * halve, 7.0 * q_elems * 2.0)
                } else {
                    (fwd * halve, 4.0 * q_elems * 2.0)
                };
                let gflops = num("GFLOPS_first");
                assert!(
                    (gflops - flops / 1e9).abs() < 1e-9,
                    "{sheet} compat {compat}: {gflops}"
                );
                let mb = num("Data Moved (MB)_first");
                assert!((mb - bytes / 1048576.0).abs() < 1e-9, "{sheet}: {mb}");
                // Every kernel of the call carries the whole op: under compat the
                // rate divides by the kernel's own time (a few-µs helper kernel
                // reads as > 10 PFLOPS/s), by default by the call's kernel time.
                let tflops = num("TFLOPS/s_max");
                let short = num("Kernel Time (µs)_max") < 50.0;
                if compat && short {
                    assert!(tflops > 10_000.0, "{sheet}: {tflops}");
                } else if !compat {
                    assert!(tflops < 1_000.0, "{sheet}: {tflops}");
                }
                seen += num("name_count") as usize;
            }
        }
        // 10 forward calls of 2 kernels, 10 backward calls of 5.
        assert_eq!(seen, 70, "compat {compat}");
    }
}
