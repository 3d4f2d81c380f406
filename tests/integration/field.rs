//! Traces as the field writes them (fixtures/field/, numbers worked by hand in
//! fixtures/field/EXPECTED.md): communication beyond NCCL counted as
//! communication, work launched with no aten op above it attributed to its
//! named scope and never to the launch call, annotations as phases, stream
//! overlap; `--tracelens-compat` keeps TraceLens's view of the same trace.

use crate::util::{fixture, tracesql, write_trace};

/// Rows of `sql` over `trace` as CSV records (header first).
fn csv_rows(flags: &[&str], trace: &str, sql: &str) -> Vec<Vec<String>> {
    let run = tracesql()
        .args(flags)
        .args(["query", trace, "--format", "csv", "-e", sql])
        .run();
    assert!(run.success(), "{sql}: {}", run.stderr);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(run.stdout.as_bytes());
    reader
        .records()
        .map(|r| r.expect("csv").iter().map(str::to_string).collect())
        .collect()
}

fn moe() -> String {
    fixture("field/moe_step.json")
}

fn strs(row: &[&str]) -> Vec<String> {
    row.iter().map(|s| s.to_string()).collect()
}

#[test]
fn deep_ep_kernels_are_communication_and_mostly_hidden() {
    let sql = "SELECT computation_time, exposed_comm_time, busy_time, idle_time, total_comm_time \
               FROM gpu_time_totals";
    assert_eq!(
        csv_rows(&[], &moe(), sql)[1],
        strs(&["560.0", "100.0", "660.0", "310.0", "400.0"])
    );
    // TraceLens: the all-to-all kernels are computation, no communication.
    assert_eq!(
        csv_rows(&["--tracelens-compat"], &moe(), sql)[1],
        strs(&["660.0", "0.0", "660.0", "310.0", "0.0"])
    );
    let overlap = csv_rows(
        &[],
        &moe(),
        "SELECT comm_time, hidden_comm_time, exposed_comm_time, overlap_pct FROM comm_compute_overlap",
    );
    assert_eq!(overlap[1], strs(&["400.0", "300.0", "100.0", "75.0"]));
    let families = csv_rows(
        &[],
        &moe(),
        "SELECT kernel_family, collective_kind, count(*) FROM classified_kernels \
         WHERE class = 'communication' GROUP BY 1, 2 ORDER BY 2",
    );
    assert_eq!(families.len(), 3, "{families:?}");
    assert_eq!(families[1][0], "deepep");
    assert_eq!(families[2][0], "deepep");
}

#[test]
fn streams_busy_together() {
    let rows = csv_rows(
        &[],
        &moe(),
        "SELECT stream_a, stream_b, class_a, class_b, busy_a, busy_b, together_time, share_of_b_pct \
         FROM stream_overlap",
    );
    assert_eq!(
        rows[1..],
        [strs(&[
            "7",
            "20",
            "compute",
            "communication",
            "560.0",
            "400.0",
            "300.0",
            "75.0"
        ])]
    );
    let shares = csv_rows(
        &[],
        &moe(),
        "SELECT max(busy_share_pct) <= 100, sum(busy_time) FROM stream_busy",
    );
    // Stream shares are of the busy union (660 µs), so none is above 100.
    assert_eq!(shares[1], strs(&["true", "960.0"]));
}

#[test]
fn annotations_are_phases_with_hidden_and_exposed_communication() {
    let rows = csv_rows(
        &[],
        &moe(),
        "SELECT name, kernels, gpu_busy_time, compute_time, comm_time, hidden_comm_time, \
         exposed_comm_time FROM phases ORDER BY ts",
    );
    assert_eq!(
        rows[1..],
        [
            strs(&[
                "ProfilerStep#1",
                "6",
                "650.0",
                "550.0",
                "400.0",
                "300.0",
                "100.0"
            ]),
            strs(&[
                "moe_layer",
                "5",
                "640.0",
                "540.0",
                "400.0",
                "300.0",
                "100.0"
            ]),
            strs(&[
                "Torch-Compiled Region: 0/0",
                "1",
                "40.0",
                "40.0",
                "0.0",
                "0.0",
                "0.0"
            ]),
        ]
    );
}

#[test]
fn work_without_an_aten_op_goes_to_its_named_scope_never_to_the_launch_call() {
    let sql = "SELECT name, cat, total_direct_kernel_time FROM launchers ORDER BY name, total_direct_kernel_time";
    let default = csv_rows(&[], &moe(), sql);
    let names: Vec<&str> = default[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names[..4],
        [
            "Torch-Compiled Region: 0/0",
            "aten::mm",
            "aten::mm",
            "train.py(88): step"
        ]
    );
    // Outside every annotation and frame: the kernel itself.
    assert!(names[4].contains("FillFunctor"), "{names:?}");
    assert_eq!(default[5][1], "kernel");
    for name in &names {
        assert!(
            !name.contains("Launch"),
            "a launch call as an operation: {name}"
        );
    }
    // TraceLens: the launch calls are the operations.
    let compat = csv_rows(&["--tracelens-compat"], &moe(), sql);
    let compat_names: Vec<&str> = compat[1..].iter().map(|r| r[0].as_str()).collect();
    assert!(
        compat_names.contains(&"cudaLaunchKernelExC"),
        "{compat_names:?}"
    );
    assert!(compat_names.contains(&"cuLaunchKernel"), "{compat_names:?}");
    // The report's ops sheets follow: no launch call among the default rows.
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["report", &moe(), "--only", "ops_summary", "--out"])
        .arg(out.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    let sheet = std::fs::read_to_string(out.path().join("ops_summary.csv")).expect("ops_summary");
    assert!(sheet.contains("aten::mm"), "{sheet}");
    assert!(!sheet.contains("Launch"), "{sheet}");
    // Nor among unified_perf_summary's synthetic ops, named after the scope.
    let unified = csv_rows(
        &[],
        &moe(),
        "SELECT name FROM unified_perf_events ORDER BY name",
    );
    assert_eq!(
        unified[1][0],
        "Torch-Compiled Region: 0/0->triton_poi_fused_add_0 (Synthetic Op)"
    );
    assert!(
        unified.iter().all(|r| !r[0].contains("Launch")),
        "{unified:?}"
    );
    let compat = csv_rows(
        &["--tracelens-compat"],
        &moe(),
        "SELECT count(*) FROM unified_perf_events WHERE name LIKE 'cudaLaunchKernelExC->%'",
    );
    assert_eq!(compat[1], strs(&["2"]));
}

/// Every sample name of fixtures/kernel_names.json (real kernel symbols of each
/// communication library, and compute kernels that must not match) gets its
/// family, class and collective kind from kernel_classes, through the engine's
/// own regular expressions.
#[test]
fn every_kernel_family_is_classified_as_its_samples_say() {
    let text = std::fs::read_to_string(fixture("kernel_names.json")).expect("kernel_names.json");
    let samples: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
    assert!(samples.len() > 30, "{} samples", samples.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let events: Vec<serde_json::Value> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cat = match s["name"].as_str() {
                Some(n) if n.starts_with("Memcpy") => "gpu_memcpy",
                Some(n) if n.starts_with("Memset") => "gpu_memset",
                _ => "kernel",
            };
            serde_json::json!({"ph": "X", "cat": cat, "name": s["name"], "pid": 0, "tid": 7,
                "ts": 10.0 * i as f64, "dur": 5.0, "args": {"device": 0, "stream": 7}})
        })
        .collect();
    let trace = write_trace(dir.path(), "samples.json", serde_json::Value::Array(events));
    let rows = csv_rows(
        &[],
        &trace,
        "SELECT name, coalesce(kernel_family, ''), class, coalesce(collective_kind, '') \
         FROM classified_kernels ORDER BY uid",
    );
    assert_eq!(rows.len() - 1, samples.len());
    for (row, sample) in rows[1..].iter().zip(&samples) {
        let want = |key: &str| sample[key].as_str().unwrap_or("").to_string();
        assert_eq!(
            (&row[1], &row[2], &row[3]),
            (&want("family"), &want("class"), &want("collective_kind")),
            "{}",
            row[0]
        );
    }
}

/// The platform comes from deviceProperties: by the GPU's name, else guessed
/// from its class with a one-line warning naming the guess; `report` and the
/// analysis say which platform and why.
#[test]
fn platforms_are_detected_by_name_or_guessed_by_class_and_reported_with_why() {
    let rows = csv_rows(&[], &moe(), "SELECT platform, reason FROM session_platform");
    assert_eq!(
        rows[1],
        strs(&["H800", "deviceProperties name 'NVIDIA H800'"])
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let kernel = serde_json::json!([{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
        "ts": 1.0, "dur": 2.0, "args": {"device": 0, "stream": 7}}]);
    let trace = |name: &str, props: serde_json::Value| {
        let doc = serde_json::json!({"deviceProperties": [props], "traceEvents": kernel});
        crate::util::write_file(dir.path(), name, doc.to_string().as_bytes())
    };
    let guessed = trace(
        "gfx942.json",
        serde_json::json!({"id": 0, "name": "AMD Radeon Graphics",
            "gcnArchName": "gfx942:sramecc+:xnack-", "numSms": 304, "totalGlobalMem": 206141652992u64}),
    );
    let run = tracesql()
        .args([
            "query",
            &guessed,
            "--format",
            "csv",
            "-e",
            "SELECT platform FROM session_platform",
        ])
        .run();
    assert!(run.success(), "{}", run.stderr);
    assert_eq!(run.stdout.lines().nth(1), Some("MI300X"));
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].contains("guessed platform MI300X") && warnings[0].contains("gfx942"));
    // An L4 is not an L40S; an unknown GPU gets no platform, and says why.
    let l4 = trace(
        "l4.json",
        serde_json::json!({"id": 0, "name": "NVIDIA L4", "computeMajor": 8, "computeMinor": 9, "numSms": 58}),
    );
    assert_eq!(
        csv_rows(&[], &l4, "SELECT platform FROM session_platform")[1],
        strs(&["L4"])
    );
    let unknown = trace(
        "unknown.json",
        serde_json::json!({"id": 0, "name": "Mystery GPU"}),
    );
    let out = tempfile::tempdir().expect("temp dir");
    let report = tracesql()
        .args(["report", &unknown, "--out"])
        .arg(out.path())
        .run();
    assert!(report.success(), "{}", report.stderr);
    assert!(
        report
            .stderr
            .contains("unknown: platform none (no GPU the catalog knows"),
        "{}",
        report.stderr
    );
    let report = tracesql()
        .args(["report", &moe(), "--out"])
        .arg(out.path().join("moe"))
        .run();
    assert!(
        report
            .stderr
            .contains("moe_step: platform H800 (deviceProperties name 'NVIDIA H800')"),
        "{}",
        report.stderr
    );
    let analysis = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["analyze", &guessed, "--out"])
        .arg(analysis.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    let md = std::fs::read_to_string(analysis.path().join("standalone_analysis.md")).expect("md");
    assert!(md.contains("MI300X (gfx942, 304 CUs"), "{md}");
}

/// A trace taken without record_shapes: the report says so in its header line
/// (and trace_health), and the shape cells are empty, not the text `None`
/// (TraceLens's own output for it is checked by the conformance harness:
/// fixtures/conformance/no_record_shapes.json).
#[test]
fn traces_without_shapes_say_so_and_leave_shape_cells_empty() {
    let trace = fixture("conformance/no_record_shapes.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["report", &trace, "--out"])
        .arg(out.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "shapes not recorded (record_shapes off) for 7 ops: their FLOPs, bytes and efficiency are unknown"
        ),
        "{}",
        run.stderr
    );
    let sheet = std::fs::read_to_string(out.path().join("ops_unique_args.csv")).expect("sheet");
    assert!(!sheet.contains("None"), "{sheet}");
    let health = csv_rows(
        &[],
        &trace,
        "SELECT count, round(gpu_time_pct, 6) FROM trace_health WHERE check = 'shapes_not_recorded'",
    );
    assert_eq!(health[1], strs(&["7", "100.0"]));
    let with_shapes = csv_rows(
        &[],
        &fixture("conformance/integer_times.json"),
        "SELECT count FROM trace_health WHERE check = 'shapes_not_recorded'",
    );
    assert_eq!(with_shapes[1], strs(&["0"]));
}

/// A decode step whose custom all-reduce kernels (TensorRT-LLM, vLLM,
/// SymmetricMemory) run on the compute stream: all communication, all exposed;
/// TraceLens sees only vLLM's.
#[test]
fn custom_all_reduce_kernels_are_exposed_communication() {
    let trace = fixture("field/decode_step.json");
    let sql = "SELECT computation_time, exposed_comm_time, busy_time, total_comm_time FROM gpu_time_totals";
    assert_eq!(
        csv_rows(&[], &trace, sql)[1],
        strs(&["300.0", "100.0", "400.0", "100.0"])
    );
    assert_eq!(
        csv_rows(&["--tracelens-compat"], &trace, sql)[1],
        strs(&["370.0", "30.0", "400.0", "30.0"])
    );
    let kinds = csv_rows(
        &[],
        &trace,
        "SELECT kernel_family, collective_kind, scope_name FROM classified_kernels \
         WHERE class = 'communication' ORDER BY ts",
    );
    assert_eq!(
        kinds[1..],
        [
            strs(&["trtllm", "allreduce", "decode"]),
            strs(&["vllm", "allreduce", "decode"]),
            strs(&["torch_symm_mem", "allreduce", "decode"]),
        ]
    );
    let phase = csv_rows(
        &[],
        &trace,
        "SELECT name, kernels, comm_time, exposed_comm_time FROM phases",
    );
    assert_eq!(phase[1], strs(&["decode", "6", "100.0", "100.0"]));
}

/// The analysis reports hidden communication as what works, and exposed
/// communication as a finding that names its phase.
#[test]
fn the_analysis_names_the_phase_of_exposed_communication_and_credits_hidden_communication() {
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["analyze", &moe(), "--out"])
        .arg(out.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    let text = std::fs::read_to_string(out.path().join("findings.json")).expect("findings");
    let findings: serde_json::Value = serde_json::from_str(&text).expect("json");
    // findings.json holds recommendations; each rule's row is one of their reasons.
    let find = |rule: &str| {
        findings
            .as_array()
            .expect("list")
            .iter()
            .flat_map(|rec| rec["reasons"].as_array().into_iter().flatten())
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule} finding: {text}"))
            .clone()
    };
    let exposed = find("exposed_communication");
    let message = exposed["message"].as_str().unwrap_or_default();
    // 100 µs exposed of a 970 µs span, all of it in moe_layer.
    assert!(message.contains("0.1 ms, 10.31% of the trace"), "{message}");
    assert!(
        message.contains("Most of it in phase moe_layer (0.1 ms exposed)"),
        "{message}"
    );
    let hidden = find("hidden_communication");
    assert_eq!(hidden["severity"], "info");
    let message = hidden["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("0.3 ms of 0.4 ms of communication (75.0%, 2 kernels)"),
        "{message}"
    );
}

/// A user adds a kernel family with `--queries`: a file named kernel_classes
/// replaces the shipped table, and every view follows.
#[test]
fn users_extend_kernel_classes_with_their_own_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shipped = std::fs::read_to_string(crate::util::package_path(
        "queries/views/kernel_classes.sql",
    ))
    .expect("kernel_classes.sql");
    // The shipped rows plus one: GEMMs of this fixture count as a (made-up)
    // in-house all-gather kernel.
    let extended = shipped.replacen(
        "SELECT family, pattern, class, collective_kind, CAST(priority AS BIGINT) AS priority, source FROM (VALUES\n",
        "SELECT family, pattern, class, collective_kind, CAST(priority AS BIGINT) AS priority, source FROM (VALUES\n  ('inhouse', '^sm90_xmma_gemm', 'communication', 'allgather', 1, 'our own kernels'),\n",
        1,
    );
    assert_ne!(extended, shipped, "the VALUES line moved: update this test");
    let queries = dir.path().join("queries");
    std::fs::create_dir(&queries).expect("dir");
    std::fs::write(queries.join("kernel_classes.sql"), extended).expect("write");
    let flag = format!("--queries={}", queries.display());
    let rows = csv_rows(
        &[&flag],
        &moe(),
        "SELECT total_comm_time, computation_time FROM gpu_time_totals",
    );
    // The GEMMs join the DeepEP kernels as communication: busy [200, 500) and
    // [600, 900); computation is what is left (Triton 40, add 10, fill 10).
    assert_eq!(rows[1], strs(&["600.0", "60.0"]));
}

/// An annotation holds the bare launches of its own thread; from another
/// thread only the process's ProfilerStep#N does.
#[test]
fn a_launch_from_another_thread_belongs_to_the_step_not_to_an_annotation_of_another_thread() {
    let dir = tempfile::tempdir().expect("temp dir");
    let annotation = |name: &str, ts: f64, dur: f64| {
        serde_json::json!({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1,
            "ts": ts, "dur": dur})
    };
    let launch = |tid: i64, corr: i64, ts: f64| {
        [
            serde_json::json!({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                "pid": 1, "tid": tid, "ts": ts, "dur": 2.0, "args": {"correlation": corr}}),
            serde_json::json!({"ph": "X", "cat": "kernel", "name": format!("k{tid}"), "pid": 0,
                "tid": 7, "ts": ts + 10.0 * tid as f64, "dur": 5.0,
                "args": {"correlation": corr, "device": 0, "stream": 7}}),
        ]
    };
    let mut events = vec![
        annotation("ProfilerStep#1", 0.0, 100.0),
        annotation("inner", 10.0, 40.0),
    ];
    events.extend(launch(1, 1, 20.0));
    events.extend(launch(2, 2, 21.0));
    let trace = write_trace(dir.path(), "threads.json", serde_json::Value::Array(events));
    let rows = csv_rows(
        &[],
        &trace,
        "SELECT name, scope_kind, scope_name FROM linked_kernels ORDER BY name",
    );
    assert_eq!(
        rows[1..],
        [
            strs(&["k1", "annotation", "inner"]),
            strs(&["k2", "annotation", "ProfilerStep#1"])
        ]
    );
}

fn compile_step() -> String {
    fixture("field/compile_step.json")
}

/// A torch.compile'd training step: the Triton kernels, launched through
/// cuLaunchKernel with no aten op above them, belong to AOTAutograd's
/// CompiledFunction / CompiledFunctionBackward (the compiled region's op, as in
/// TraceLens) and keep their fused names; no sheet or finding names a launch
/// call as an operation.
#[test]
fn compiled_step_triton_kernels_land_on_the_compiled_function_never_on_a_launch_call() {
    let trace = compile_step();
    let totals = "SELECT computation_time, busy_time, idle_time, total_time, total_comm_time \
                  FROM gpu_time_totals";
    let kernels = "SELECT name, class, scope_name, scope_kind, launch_name FROM linked_kernels \
                   WHERE name LIKE 'triton%' ORDER BY ts";
    let launchers = "SELECT name, direct_kernel_count, total_direct_kernel_time, \
                     total_subtree_kernel_time FROM launchers ORDER BY ts";
    let triton = |name: &str, scope: &str| strs(&[name, "compute", scope, "op", "cuLaunchKernel"]);
    let forward = "CompiledFunction";
    let backward = "CompiledFunctionBackward";
    // Every kernel has a cpu_op above its launch: TraceLens attributes the same.
    for flags in [&[][..], &["--tracelens-compat"][..]] {
        assert_eq!(
            csv_rows(flags, &trace, totals)[1],
            strs(&["740.0", "740.0", "100.0", "840.0", "0.0"])
        );
        assert_eq!(
            csv_rows(flags, &trace, kernels)[1..],
            [
                triton("triton_poi_fused_add_mul_0", forward),
                triton("triton_red_fused__softmax_1", forward),
                triton("triton_per_fused_native_layer_norm_2", forward),
                triton("triton_per_fused_native_layer_norm_backward_0", backward),
                triton("triton_poi_fused__softmax_backward_data_mul_1", backward),
            ]
        );
        assert_eq!(
            csv_rows(flags, &trace, launchers)[1..],
            [
                strs(&[forward, "3", "100.0", "300.0"]),
                strs(&["aten::mm", "1", "200.0", "200.0"]),
                strs(&[backward, "2", "100.0", "400.0"]),
                strs(&["aten::mm", "1", "300.0", "300.0"]),
                strs(&["aten::_foreach_add_", "1", "40.0", "40.0"]),
            ]
        );
    }
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["report", &trace, "--out"])
        .arg(out.path().join("report"))
        .run();
    assert!(run.success(), "{}", run.stderr);
    let run = tracesql()
        .args(["analyze", &trace, "--out"])
        .arg(out.path().join("analyze"))
        .run();
    assert!(run.success(), "{}", run.stderr);
    let mut files = 0;
    for dir in ["report", "analyze"] {
        for entry in std::fs::read_dir(out.path().join(dir)).expect("dir") {
            let path = entry.expect("entry").path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            files += 1;
            assert!(!text.contains("LaunchKernel"), "{}: {text}", path.display());
        }
    }
    assert!(files > 10, "{files} files");
    let sheet = |name: &str| {
        let path = out.path().join("report").join(name);
        let mut reader = csv::Reader::from_path(&path).expect("sheet");
        let header = reader.headers().expect("header").clone();
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        (header, rows)
    };
    // kernel_summary: each fused kernel under its name, below its compiled op.
    let (header, rows) = sheet("kernel_summary.csv");
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (parent, kernel, time) = (
        col("Parent cpu_op"),
        col("Kernel name"),
        col("Kernel duration (µs)_sum"),
    );
    let mut fused: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| r[kernel].starts_with("triton_"))
        .map(|r| (&r[kernel], &r[parent], &r[time]))
        .collect();
    fused.sort();
    assert_eq!(
        fused,
        [
            ("triton_per_fused_native_layer_norm_2", forward, "20"),
            (
                "triton_per_fused_native_layer_norm_backward_0",
                backward,
                "40"
            ),
            (
                "triton_poi_fused__softmax_backward_data_mul_1",
                backward,
                "60"
            ),
            ("triton_poi_fused_add_mul_0", forward, "30"),
            ("triton_red_fused__softmax_1", forward, "50"),
        ]
    );
    // unified_perf_summary: synthetic ops named after the compiled op.
    let (_, rows) = sheet("unified_perf_summary.csv");
    let mut synthetic: Vec<&str> = rows
        .iter()
        .map(|r| &r[0])
        .filter(|n| n.ends_with("(Synthetic Op)"))
        .collect();
    synthetic.sort();
    assert_eq!(
        synthetic,
        [
            "CompiledFunction->triton_per_fused_native_layer_norm_2 (Synthetic Op)",
            "CompiledFunction->triton_poi_fused_add_mul_0 (Synthetic Op)",
            "CompiledFunction->triton_red_fused__softmax_1 (Synthetic Op)",
            "CompiledFunctionBackward->triton_per_fused_native_layer_norm_backward_0 (Synthetic Op)",
            "CompiledFunctionBackward->triton_poi_fused__softmax_backward_data_mul_1 (Synthetic Op)",
        ]
    );
}

/// The compiled region and each compiled graph's call are phases holding
/// their Triton kernels and extern GEMM; the backward graph's launches come
/// from autograd's thread, which only ProfilerStep#N spans.
#[test]
fn compiled_regions_and_graph_calls_are_phases() {
    let rows = csv_rows(
        &[],
        &compile_step(),
        "SELECT split_part(name, ' f', 1), source, kernels, gpu_busy_time, compute_time, comm_time \
         FROM phases ORDER BY ts, source",
    );
    let row = |name: &str, source: &str, kernels: &str, busy: &str| {
        strs(&[name, source, kernels, busy, busy, "0.0"])
    };
    let graph = "## Call CompiledFxGraph";
    assert_eq!(
        rows[1..],
        [
            row("ProfilerStep#3", "cpu", "8", "740.0"),
            row("Torch-Compiled Region: 0/0", "cpu", "4", "300.0"),
            row(graph, "cpu", "4", "300.0"),
            row(graph, "gpu", "4", "300.0"),
            row(graph, "cpu", "3", "400.0"),
            row(graph, "gpu", "3", "400.0"),
            row("Optimizer.step#AdamW.step", "cpu", "1", "40.0"),
        ]
    );
}

/// Newer PyTorch writes `Torch-Compiled Region: 0/0` as a cpu_op, not an
/// annotation (the shared triton trace): it is a phase all the same, holding
/// the GPU work of the ops under it in the call tree.
#[test]
fn a_compiled_region_written_as_a_cpu_op_is_a_phase() {
    let Some(data) = crate::util::conformance_dir() else {
        return;
    };
    let trace = data.join("traces/triton/trace.json.gz");
    let trace = trace.to_string_lossy();
    let phase = csv_rows(
        &[],
        &trace,
        "SELECT source, kernels, gpu_busy_time FROM phases \
         WHERE name = 'Torch-Compiled Region: 0/0'",
    );
    // Independently: the kernels whose call-tree ancestors include the region.
    let tree = csv_rows(
        &[],
        &trace,
        "SELECT count(*), busy_time(k.ts, k.t_end) FROM linked_kernels k \
         WHERE k.uid IN (SELECT a.kernel_uid FROM kernel_ancestors a \
           JOIN events e ON e.trace = a.trace AND e.uid = a.ancestor_uid \
           WHERE e.name = 'Torch-Compiled Region: 0/0' AND e.cat = 'cpu_op')",
    );
    assert_eq!(phase.len(), 2, "a header and one phase: {phase:?}");
    assert_eq!(phase[1][0], "cpu");
    assert_eq!(phase[1][1], tree[1][0]);
    assert!(tree[1][0].parse::<i64>().expect("count") > 0);
    let (busy, want): (f64, f64) = (
        phase[1][2].parse().expect("busy"),
        tree[1][1].parse().expect("busy"),
    );
    assert!((busy - want).abs() < 1e-6, "{busy} vs {want}");
}
