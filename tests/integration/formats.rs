//! rocprofv3 JSON and Perfetto-style JSON inputs, on the project's own
//! fixtures (fixtures/formats/, made by gen_formats.py there): detection by
//! content, the tables they fill, the rocprof report in both modes, bad files.
//! TraceLens conformance on the shared data is conformance/formats.rs.

use crate::util::{cell, fixture, gzip, number, tracesql, tracesql_ok, write_file, write_trace};

const ROCPROF: &str = "formats/rocprofv3_small_results.json";
const PERFETTO: &str = "formats/pftrace_small.json";

/// CSV output of `tracesql query PATH -e SQL`: header and rows.
fn rows(path: &str, sql: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let out = tracesql_ok(&["query", path, "-e", sql, "--format", "csv"]);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(out.as_bytes());
    let mut records = reader.records().map(|r| {
        r.expect("csv")
            .iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    let header = records.next().expect("a header");
    (header, records.collect())
}

fn one(path: &str, sql: &str) -> String {
    let (_, rows) = rows(path, sql);
    assert_eq!(rows.len(), 1, "{sql}");
    rows[0][0].clone()
}

/// A report sheet as (header, rows).
fn sheet(dir: &std::path::Path, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(dir.join(format!("{name}.csv"))).expect("sheet written");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut records = reader.records().map(|r| {
        r.expect("csv")
            .iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    let header = records.next().unwrap_or_default();
    (header, records.collect())
}

#[test]
fn the_format_is_told_by_content_whatever_the_file_is_called() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rocprof = std::fs::read(fixture(ROCPROF)).expect("fixture");
    let perfetto = std::fs::read(fixture(PERFETTO)).expect("fixture");
    let cases = [
        (write_file(dir.path(), "run.data", &rocprof), "rocprofv3"),
        (
            write_file(dir.path(), "run.json.gz", &gzip(&rocprof)),
            "rocprofv3",
        ),
        (write_file(dir.path(), "slices.txt", &perfetto), "pftrace"),
        (
            write_file(dir.path(), "slices.json.gz", &gzip(&perfetto)),
            "pftrace",
        ),
        (fixture("basic_linear.json"), "kineto"),
    ];
    for (path, format) in cases {
        let got = one(
            &path,
            "SELECT value FROM trace_meta WHERE key = 'source_format'",
        );
        assert_eq!(got, format!("\"{format}\""), "{path}");
    }
}

#[test]
fn rocprofv3_dispatches_keep_their_nanoseconds_agents_and_launches() {
    let path = fixture(ROCPROF);
    let (h, r) = rows(
        &path,
        "SELECT k.name, d.name_full, k.device, k.stream, k.dur, d.begin_ns, d.end_ns, \
                d.grid_x, d.grid_y, k.grid, k.launch_name, d.agent, d.gpu_index \
         FROM kernels k JOIN kernel_dispatches d USING (trace, uid) ORDER BY d.dispatch_id",
    );
    assert_eq!(r.len(), 8);
    let first = &r[0];
    assert_eq!(
        cell(&h, first, "name"),
        "Cijk_Ailk_Bljk_BBS_BH_MT256x128x64"
    );
    assert_eq!(cell(&h, first, "begin_ns"), "7000000010000");
    assert_eq!(cell(&h, first, "end_ns"), "7000000130000");
    assert_eq!(number(&h, first, "dur"), 120.0);
    // Work-items in the native table, blocks (65536 / 256) in Kineto's grid.
    assert_eq!(cell(&h, first, "grid_x"), "65536");
    assert_eq!(cell(&h, first, "grid"), "[256,2,1]");
    assert_eq!(cell(&h, first, "launch_name"), "hipLaunchKernel");
    assert_eq!(cell(&h, first, "agent"), "30");
    // Truncated names merge template instantiations; the full name keeps them.
    let add = &r[1];
    assert_eq!(cell(&h, add, "name"), "vectorized_elementwise_kernel");
    assert!(cell(&h, add, "name_full").contains("AddFunctor"));
    assert!(cell(&h, &r[2], "name_full").contains("MulFunctor"));
    // The second GPU is device 1 (its gpu_index), whatever its handle.
    assert_eq!(cell(&h, &r[6], "device"), "1");
    assert_eq!(cell(&h, &r[6], "gpu_index"), "1");
    // An 8 ns kernel keeps its exact length.
    assert_eq!(number(&h, &r[5], "dur"), 0.008);

    let copies = one(
        &path,
        "SELECT name || ' ' || bytes || ' ' || src_agent || '->' || dst_agent FROM memory_copies",
    );
    assert_eq!(
        copies,
        "MEMORY_COPY_HOST_TO_DEVICE 4194304 Agent-0->Agent-2"
    );
    let agents = one(&path, "SELECT string_agg(type || ':' || coalesce(CAST(gpu_index AS VARCHAR), '-'), ',' ORDER BY handle) FROM agents");
    assert_eq!(agents, "CPU:-,CPU:-,GPU:0,GPU:1");
    let meta = one(
        &path,
        "SELECT string_agg(key || '=' || value, ';' ORDER BY key) FROM trace_meta \
         WHERE key IN ('init_time', 'fini_time', 'pid', 'hostname')",
    );
    assert_eq!(
        meta,
        "fini_time=7000001000000;hostname=\"fixture-host\";init_time=6999999500000;pid=4100"
    );
    // Kineto's tables are there too: the API call is a host event above its kernel.
    let edges = one(
        &path,
        "SELECT count(*) FROM tree_edges e JOIN kernels k ON k.uid = e.child_uid",
    );
    assert_eq!(edges, "9", "8 kernels and the copy");
}

#[test]
fn perfetto_slices_become_kernels_api_calls_and_copies() {
    let path = fixture(PERFETTO);
    let (h, r) = rows(
        &path,
        "SELECT k.name, k.device, k.dur, k.launch_name, d.agent, d.begin_ns, d.delta_ns, d.grid_size \
         FROM kernels k JOIN kernel_dispatches d USING (trace, uid) ORDER BY k.uid",
    );
    assert_eq!(r.len(), 6, "the 'e' halves of the pairs are not kernels");
    assert_eq!(cell(&h, &r[0], "agent"), "Agent-2");
    // Devices in first-seen agent order: Agent-2 is 0, Agent-3 is 1.
    let devices: Vec<&str> = r.iter().map(|row| cell(&h, row, "device")).collect();
    assert_eq!(devices, ["0", "0", "0", "1", "0", "0"]);
    // Async slices have no dur: it comes from delta_ns.
    assert_eq!(number(&h, &r[2], "dur"), 300.0);
    assert_eq!(cell(&h, &r[2], "delta_ns"), "300000");
    assert_eq!(cell(&h, &r[0], "launch_name"), "hipLaunchKernel");
    assert_eq!(
        cell(&h, &r[4], "launch_name"),
        "",
        "no launch call in the trace"
    );
    let api = one(
        &path,
        "SELECT count(*) || ' ' || min(domain) || ' ' || sum(delta_ns) FROM api_calls",
    );
    assert_eq!(api, "4 hip_api 12000");
    let copy = one(
        &path,
        "SELECT bytes || ' ' || src_agent || ' ' || dst_agent FROM memory_copies",
    );
    assert_eq!(copy, "4194304 Agent-0 Agent-2");
}

#[test]
fn the_perfetto_reports_fix_tracelens_by_default_and_keep_it_under_compat() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (fixed, compat) = (dir.path().join("fixed"), dir.path().join("compat"));
    let path = fixture(PERFETTO);
    tracesql_ok(&[
        "report",
        &path,
        "--platform",
        "none",
        "--out",
        fixed.to_str().unwrap(),
    ]);
    tracesql_ok(&[
        "report",
        &path,
        "--platform",
        "none",
        "--tracelens-compat",
        "--out",
        compat.to_str().unwrap(),
    ]);
    // rocprofv3 writes agents as "Agent-2": TraceLens cannot read the number.
    let (_, copies) = sheet(&fixed, "memory_copy_by_copy_bytes");
    assert_eq!(copies, [["4194304", "h2d (GPU 2)", "1"]]);
    let (_, copies) = sheet(&compat, "memory_copy_by_copy_bytes");
    assert_eq!(copies, [["4194304", "h2d (GPU ?)", "1"]]);
    // Two overlapping compute kernels (150..270 and 200..260 µs) under the
    // 300 µs all-reduce: TraceLens's walk counts 120 + 60 µs as overlapped,
    // the union of compute under it is 120 µs.
    let overlap = |dir: &std::path::Path| -> (f64, f64) {
        let (h, rows) = sheet(dir, "category_summary");
        let get = |category: &str| {
            let row = rows
                .iter()
                .find(|r| cell(&h, r, "GPU ID") == "0" && cell(&h, r, "Category") == category)
                .unwrap_or_else(|| panic!("{category}"));
            number(&h, row, "Total runtime (ms)")
        };
        (get("overlapped_comm"), get("non_overlapped_comm"))
    };
    assert_eq!(overlap(&fixed), (0.12, 0.18));
    assert_eq!(overlap(&compat), (0.18, 0.12));
    // T = A + Q + K per launch: A = 3 µs, Q = 1 µs (launch end to kernel start).
    let (h, api) = sheet(&fixed, "api_kernel_summary");
    let gemm = api
        .iter()
        .find(|r| cell(&h, r, "Kernel Name").starts_with("Cijk") && cell(&h, r, "DevId") == "0")
        .expect("the GEMM on device 0");
    assert_eq!(number(&h, gemm, "AAvg_ns"), 3000.0);
    assert_eq!(number(&h, gemm, "QAvg_ns"), 1000.0);
    assert_eq!(number(&h, gemm, "TAvg_ns"), 124000.0);
}

#[test]
fn report_settings_change_what_the_sheets_count_and_unknown_ones_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture(PERFETTO);
    let out = dir.path().join("out");
    tracesql_ok(&[
        "--set",
        "pftrace.kernel_summary_group=name",
        "--set",
        "pftrace.hip_summary_group=name+op",
        "--set",
        "pftrace.min_event_ns=100000000",
        "report",
        &path,
        "--platform",
        "none",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Grouped by name: no configuration columns; nothing lasts 100 ms.
    let text = std::fs::read_to_string(out.join("kernel_summary.csv")).expect("sheet");
    let header = text.lines().next().unwrap_or_default();
    assert!(!header.contains("GridXYZ"), "{header}");
    assert_eq!(text.lines().count(), 1, "{text}");
    let text = std::fs::read_to_string(out.join("hip_summary.csv")).expect("sheet");
    assert!(
        text.starts_with("Time,Total Time,Instances,Avg,Med,Min,Max,StdDev,Op,Name,"),
        "{text}"
    );
    let run = tracesql()
        .args(["--set", "pftrace.min_event_nss=1", "report", &path])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("unknown setting 'pftrace.min_event_nss'"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("pftrace.min_event_ns,"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_rocprof_report_fixes_tracelens_units_by_default_and_keeps_them_under_compat() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (fixed, compat) = (dir.path().join("fixed"), dir.path().join("compat"));
    let path = fixture(ROCPROF);
    tracesql_ok(&[
        "report",
        &path,
        "--platform",
        "none",
        "--out",
        fixed.to_str().unwrap(),
    ]);
    tracesql_ok(&[
        "report",
        &path,
        "--platform",
        "none",
        "--tracelens-compat",
        "--out",
        compat.to_str().unwrap(),
    ]);
    // Only the rocprof sheets: no PyTorch sheet applies to this input.
    let mut written: Vec<String> = std::fs::read_dir(&fixed)
        .expect("out dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "gpu_timeline.csv",
            "kernel_details.csv",
            "kernel_summary.csv",
            "kernel_summary_by_category.csv",
            "short_kernel_histogram.csv",
            "short_kernels_summary.csv"
        ]
    );

    let (h, f) = sheet(&fixed, "kernel_summary");
    let (hc, c) = sheet(&compat, "kernel_summary");
    let by_name = |h: &[String], rows: &[Vec<String>], name: &str| -> Vec<String> {
        rows.iter()
            .find(|r| cell(h, r, "name") == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    let gemm = "Cijk_Ailk_Bljk_BBS_BH_MT256x128x64";
    let (gf, gc) = (by_name(&h, &f, gemm), by_name(&hc, &c, gemm));
    // 3 GEMMs of 120, 118 and 121 µs: the "µs" columns hold µs, TraceLens's ns.
    assert_eq!(number(&h, &gf, "Mean Kernel Time (µs)"), 119.66666666666667);
    assert_eq!(
        number(&hc, &gc, "Mean Kernel Time (µs)"),
        119666.66666666667
    );
    assert_eq!(
        cell(&hc, &gc, "Min Kernel Time (µs)"),
        "118000",
        "TraceLens's ints"
    );
    assert_eq!(number(&h, &gf, "Total Kernel Time (ms)"), 0.359);
    assert_eq!(number(&hc, &gc, "Total Kernel Time (ms)"), 359.0);
    // Cumulative shares follow the rows by default; TraceLens's are summed in
    // name order before the sort.
    let cumulative: Vec<f64> = f
        .iter()
        .map(|r| number(&h, r, "Cumulative Percentage (%)"))
        .collect();
    assert!(
        cumulative.windows(2).all(|w| w[0] <= w[1]),
        "{cumulative:?}"
    );
    assert!((cumulative[cumulative.len() - 1] - 100.0).abs() < 1e-9);
    // tiny_fill is last by time but third by name.
    let cum = |h: &[String], rows: &[Vec<String>], name: &str| {
        number(h, &by_name(h, rows, name), "Cumulative Percentage (%)")
    };
    assert!((cum(&h, &f, "tiny_fill") - 100.0).abs() < 1e-9);
    let all_ns = 359_000.0 + 300_000.0 + 8.0 + 22_000.0;
    let expected = (359_000.0 + 300_000.0 + 8.0) / all_ns * 100.0;
    assert!((cum(&hc, &c, "tiny_fill") - expected).abs() < 1e-9);
    assert!((cum(&hc, &c, "vectorized_elementwise_kernel") - 100.0).abs() < 1e-9);
    // An NCCL all-reduce is COMM by default, Reduction under compat ("sum").
    let nccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
    assert_eq!(cell(&h, &by_name(&h, &f, nccl), "Category"), "COMM");
    assert_eq!(cell(&hc, &by_name(&hc, &c, nccl), "Category"), "Reduction");

    // Short kernels: under 10 µs by default (6, 7, 9 µs and 8 ns), under 10 ns
    // (only the 8 ns one) under compat.
    let (hs, s) = sheet(&fixed, "short_kernels_summary");
    let (_, sc) = sheet(&compat, "short_kernels_summary");
    let names: Vec<&str> = s.iter().map(|r| cell(&hs, r, "name")).collect();
    assert_eq!(names, ["vectorized_elementwise_kernel", "tiny_fill"]);
    assert_eq!(sc.len(), 1);
    assert_eq!(sc[0][0], "tiny_fill");

    // The timeline spans tool init to fini (1.5 ms); kernels are pooled.
    let (ht, t) = sheet(&fixed, "gpu_timeline");
    let types: Vec<&str> = t.iter().map(|r| cell(&ht, r, "type")).collect();
    assert_eq!(
        types,
        ["total_time", "kernel", "memory", "busy_time", "idle"]
    );
    assert_eq!(number(&ht, &t[0], "time ms"), 1.5);
    assert_eq!(number(&ht, &t[2], "time ms"), 0.007);
    let (_, tc) = sheet(&compat, "gpu_timeline");
    assert_eq!(t, tc, "the timeline has no unit slip");

    let (hd, d) = sheet(&fixed, "kernel_details");
    assert_eq!(d.len(), 8);
    assert_eq!(number(&hd, &d[0], "Kernel duration (µs)"), 300.0);
    let (hdc, dc) = sheet(&compat, "kernel_details");
    assert_eq!(cell(&hdc, &dc[0], "Kernel duration (µs)"), "300000");
}

#[test]
fn a_kineto_trace_gets_no_format_sheets() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let path = fixture("basic_linear.json");
    tracesql_ok(&[
        "report",
        &path,
        "--platform",
        "none",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(out.join("ops_summary.csv").is_file());
    assert!(!out.join("kernel_details.csv").exists());
    assert!(!out.join("api_kernel_summary.csv").exists());
    let empty = one(
        &path,
        "SELECT (SELECT count(*) FROM kernel_dispatches) + (SELECT count(*) FROM api_calls) \
              + (SELECT count(*) FROM memory_copies) + (SELECT count(*) FROM agents)",
    );
    assert_eq!(empty, "0");
}

#[test]
fn bad_rocprofv3_files_get_one_line_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = std::fs::read_to_string(fixture(ROCPROF)).expect("fixture");
    let cut = &good[..good.len() / 2];
    let cases: Vec<(String, &str)> = vec![
        (write_file(dir.path(), "cut.json", cut.as_bytes()), "not a valid rocprofv3 JSON file"),
        (
            write_file(dir.path(), "cut.json.gz", &gzip(good.as_bytes())[..400]),
            "gzip",
        ),
        (
            write_file(
                dir.path(),
                "type.json",
                good.replacen("\"start_timestamp\": 7000000010000", "\"start_timestamp\": \"soon\"", 1)
                    .as_bytes(),
            ),
            "invalid type: string \"soon\"",
        ),
        (
            write_file(
                dir.path(),
                "missing.json",
                br#"{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [{"start_timestamp": 5}]}}]}"#,
            ),
            "kernel_dispatch record 0: no end_timestamp",
        ),
        (
            write_file(dir.path(), "none.json", br#"{"rocprofiler-sdk-tool": []}"#),
            "holds no process",
        ),
        (
            write_file(dir.path(), "tools.json", br#"{"rocprofiler-sdk-tool": {"metadata": 1}}"#),
            "not a valid rocprofv3 JSON file",
        ),
    ];
    for (path, expected) in cases {
        let out = dir.path().join("out");
        let run = tracesql()
            .args(["report", &path, "--out", out.to_str().unwrap()])
            .run();
        assert_eq!(run.code, Some(2), "{path}: {}", run.stderr);
        let lines: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("error"))
            .collect();
        assert_eq!(lines.len(), 1, "{}", run.stderr);
        assert!(lines[0].contains(&path), "{}", lines[0]);
        assert!(lines[0].contains(expected), "{path}: {}", lines[0]);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!out.exists(), "no output for a bad input");
    }
}

#[test]
fn the_format_hint_overrides_detection() {
    let kineto = fixture("basic_linear.json");
    let run = tracesql()
        .args(["--format-hint", "rocprofv3", "tables", &kineto])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("missing field `rocprofiler-sdk-tool`"),
        "{}",
        run.stderr
    );
    // An empty Perfetto export has nothing to tell it by: the hint reads it
    // as an empty run, whose sheets are empty.
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = write_file(dir.path(), "empty.json", br#"{"traceEvents": []}"#);
    let kernels = tracesql_ok(&[
        "--format-hint",
        "pftrace",
        "query",
        &empty,
        "-e",
        "SELECT count(*) AS n FROM kernels",
        "--format",
        "csv",
    ]);
    assert_eq!(kernels.trim(), "n\n0");
    let run = tracesql().args(["query", &empty, "-e", "SELECT 1"]).run();
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("traceEvents is empty"),
        "{}",
        run.stderr
    );
    let run = tracesql()
        .args(["--format-hint", "xplane", "tables", &empty])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("known: kineto, rocprofv3, pftrace"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_command_opens_the_other_formats() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (file, kernels, api_calls) in [(ROCPROF, 8, 9), (PERFETTO, 6, 4)] {
        let path = fixture(file);
        let at = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
        // export, then the export reopened: the same tables and reports.
        let export = at("export");
        tracesql_ok(&["export", &path, "--platform", "none", "--parquet", &export]);
        let counted = one(&export, "SELECT count(*) FROM kernel_dispatches");
        assert_eq!(counted, kernels.to_string(), "{file}");
        let (direct, reopened) = (at("direct"), at("reopened"));
        tracesql_ok(&["report", &path, "--platform", "none", "--out", &direct]);
        tracesql_ok(&["report", &export, "--platform", "none", "--out", &reopened]);
        for entry in std::fs::read_dir(&direct).expect("out").flatten() {
            let name = entry.file_name();
            let again = std::fs::read(std::path::Path::new(&reopened).join(&name));
            assert_eq!(
                std::fs::read(entry.path()).ok(),
                again.ok(),
                "{file}: {name:?} differs when read from the export"
            );
        }
        // analyze, compare and the REPL take them as they take Kineto traces.
        let analysis = tracesql_ok(&["analyze", &path, "--platform", "MI300X"]);
        assert!(
            analysis.contains("Recommendations") && analysis.contains("(rule "),
            "{analysis}"
        );
        let compared = at("compared");
        tracesql_ok(&["compare", &path, &path, "--out", &compared]);
        assert!(std::path::Path::new(&compared)
            .join("compare_gpu_timeline.csv")
            .is_file());
        let (out, err, code) = crate::util::repl_piped(
            &[&path],
            "SELECT 'calls=' || count(*) AS n FROM api_calls;\n",
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("calls={api_calls}")), "{out}");
        for name in ["export", "direct", "reopened", "compared"] {
            let _ = std::fs::remove_dir_all(dir.path().join(name));
        }
    }
}

/// A rocprofv3 kernel trace (recorded without the HIP API) has no launch to
/// link: all of its GPU work counts, so the timeline and the analysis see it
/// (before, `analyze` found only "100% unlinked GPU work"). Our fixture with its
/// hip_api records removed, and the shared 908_results trace, which has none.
#[test]
fn a_trace_without_launch_records_is_analyzed_on_all_its_gpu_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(ROCPROF)).expect("fixture"))
            .expect("json");
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["hip_api"] = serde_json::json!([]);
    let launchless = write_file(
        dir.path(),
        "kernels_only_results.json",
        doc.to_string().as_bytes(),
    );
    let mut traces = vec![launchless.clone()];
    if let Some(shared) = crate::util::conformance_dir() {
        traces.push(
            shared
                .join("formats/rocprof/908_results/908_results.json.gz")
                .to_string_lossy()
                .into_owned(),
        );
    }
    for path in &traces {
        let counts = "SELECT (SELECT count(*) FROM kernels) = (SELECT count(*) FROM linked_kernels) \
             AND (SELECT count(*) FROM linked_kernels WHERE launch_uid IS NOT NULL) = 0 \
             AND (SELECT total_time FROM gpu_time_totals) = (SELECT max(t_end) - min(ts) FROM kernels)";
        assert_eq!(one(path, counts), "true", "{path}");
        let out = dir.path().join("analysis");
        tracesql_ok(&[
            "analyze",
            path,
            "--platform",
            "MI300X",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let (header, findings) = sheet(&out, "findings");
        let rules: Vec<&str> = findings.iter().map(|r| cell(&header, r, "rule")).collect();
        // Both files' communication kernels run with no computation beside them;
        // the shared trace's GPU is also idle 72% of its span.
        assert!(
            rules.contains(&"exposed_communication"),
            "{path}: {rules:?}"
        );
        if path.ends_with(".gz") {
            assert!(rules.contains(&"gpu_idle"), "{path}: {rules:?}");
        }
        assert!(
            !rules.contains(&"time_sanity"),
            "{path}: no op groups to check: {rules:?}"
        );
        let unlinked = findings
            .iter()
            .any(|r| cell(&header, r, "subject").contains("unlinked"));
        assert!(!unlinked, "{path}: {rules:?}");
    }
    // The same file with its launches: only the launched work is linked, as before.
    let with_launches = fixture(ROCPROF);
    assert_eq!(
        one(
            &with_launches,
            "SELECT count(*) FROM linked_kernels WHERE launch_uid IS NULL"
        ),
        "0"
    );
    // A Kineto trace with a kernel no launch claims keeps it out (a defect).
    assert_eq!(
        one(
            &fixture("gpu_only.json"),
            "SELECT (SELECT count(*) FROM kernels) - (SELECT count(*) FROM linked_kernels)"
        ),
        "1"
    );
}

/// A Perfetto-style export of one hipLaunchKernel per kernel name, each 3 µs
/// of API time and 10 µs of kernel time, launched 100 µs apart.
fn perfetto_launches(names: &[&str]) -> serde_json::Value {
    let mut events = vec![serde_json::json!({
        "ph": "M", "cat": "__metadata", "name": "process_name", "pid": 7000, "tid": 0,
        "ts": 0, "args": {"name": "python3"}
    })];
    for (i, name) in names.iter().enumerate() {
        let (corr, begin) = (i + 1, 9_000_000_000_000u64 + 100_000 * i as u64);
        let (kernel, end) = (begin + 4_000, begin + 14_000);
        events.push(serde_json::json!({
            "ph": "X", "cat": "hip_api", "name": "hipLaunchKernel", "pid": 7000, "tid": 7000,
            "ts": begin / 1000, "dur": 3,
            "args": {"begin_ns": begin, "end_ns": begin + 3_000, "corr_id": corr}
        }));
        for (ph, ts) in [("b", kernel), ("e", end)] {
            events.push(serde_json::json!({
                "ph": ph, "cat": "kernel_dispatch", "name": name, "pid": 7000, "tid": 7000,
                "ts": ts / 1000, "id2": {"local": format!("0x{corr:x}")},
                "args": {"begin_ns": kernel, "end_ns": end, "agent": "Agent-2", "corr_id": corr}
            }));
        }
    }
    serde_json::Value::Array(events)
}

/// `pftrace.exclude_kernel_regex`: by default a name with
/// `redzone_checker_kernel` as a whole word is dropped (not one where it is
/// part of a longer word); an empty pattern drops none; a pattern of the
/// user's drops what it matches and only that.
#[test]
fn the_kernel_exclusion_pattern_drops_what_it_matches() {
    let dir = tempfile::tempdir().expect("temp dir");
    let names = [
        "redzone_checker_kernel [clone .kd]",
        "my_redzone_checker_kernels.kd",
        "Cijk_gemm.kd",
    ];
    let path = write_trace(dir.path(), "launches.json", perfetto_launches(&names));
    // The kernels of api_kernel_summary, sorted, with `settings` before the command.
    let kernels = |out: &str, settings: &[&str]| -> Vec<String> {
        let out = dir.path().join(out);
        let out_arg = out.to_str().expect("UTF-8 path");
        let report = ["report", &path, "--platform", "none", "--out", out_arg];
        tracesql_ok(&[settings, &report].concat());
        let (h, rows) = sheet(&out, "api_kernel_summary");
        let mut found: Vec<String> = rows
            .iter()
            .map(|r| cell(&h, r, "Kernel Name").to_string())
            .collect();
        found.sort();
        found
    };
    assert_eq!(
        kernels("default", &[]),
        ["Cijk_gemm.kd", "my_redzone_checker_kernels.kd"]
    );
    let mut all: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    all.sort();
    let none = ["--set", "pftrace.exclude_kernel_regex="];
    assert_eq!(kernels("none", &none), all);
    let gemm = ["--set", "pftrace.exclude_kernel_regex=^Cijk"];
    assert_eq!(
        kernels("gemm", &gemm),
        [
            "my_redzone_checker_kernels.kd",
            "redzone_checker_kernel [clone .kd]"
        ]
    );
}
