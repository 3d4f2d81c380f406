//! `tracesql collectives` in default mode: what it does beyond TraceLens on the
//! shared sets built for it (conformance/collectives/, see its README): sequence
//! numbers pair what order pairs wrongly, clocks are aligned, one process
//! driving two GPUs gives two ranks, all_to_allv bytes go to the right peers,
//! and inputs TraceLens fails on still give sheets.

use std::path::{Path, PathBuf};

use crate::util::{conformance_dir, tracesql, write_trace};

fn set(name: &str) -> Option<PathBuf> {
    Some(
        conformance_dir()?
            .join("collectives")
            .join(name)
            .join("traces"),
    )
}

/// Rows of `sql` over the run in `dir` (CSV, header dropped).
fn rows(dir: &Path, sql: &str) -> Vec<Vec<String>> {
    let run = tracesql()
        .arg("collectives")
        .arg(dir)
        .args(["--format", "csv", "-e", sql])
        .run();
    assert!(run.success(), "{sql}: {}", run.stderr);
    let mut reader = csv::Reader::from_reader(run.stdout.as_bytes());
    reader
        .records()
        .map(|r| r.expect("csv").iter().map(str::to_string).collect())
        .collect()
}

/// `tracesql collectives DIR [FLAGS] --out <temp>`: the sheets' directory and the run.
fn write_sheets(dir: &Path, flags: &[&str]) -> (tempfile::TempDir, crate::util::Run) {
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .arg("collectives")
        .arg(dir)
        .args(flags)
        .arg("--out")
        .arg(out.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    (out, run)
}

fn num(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("not a number: {cell}"))
}

#[test]
fn sequence_numbers_pair_what_order_pairs_wrongly() {
    for name in ["synth_shifted2", "synth_mismatch2"] {
        let Some(dir) = set(name) else { return };
        // Rank 1 captured one extra leading allreduce: by Seq, the three
        // instances both ranks ran pair up, and the extra one stands alone.
        let kept = rows(
            &dir,
            "SELECT collective_id, matched_by, participants, skew_end FROM implicit_sync_instances ORDER BY position",
        );
        assert_eq!(kept.len(), 3, "{name}: {kept:?}");
        for row in &kept {
            assert_eq!(row[1], "seq", "{name}: {row:?}");
            assert_eq!(row[2], "2", "{name}: {row:?}");
            // Paired right, the ends line up (order-paired, they differ by ~1000 µs).
            assert!(num(&row[3]) < 20.0, "{name}: {row:?}");
        }
        let windows = rows(
            &dir,
            "SELECT collective_id, ranks_present FROM collective_windows",
        );
        assert_eq!(
            windows,
            vec![vec!["0_6".to_string(), "1".to_string()]],
            "{name}"
        );
    }
}

#[test]
fn clocks_are_aligned_and_the_true_straggler_is_found() {
    let Some(dir) = set("synth_clock4") else {
        return;
    };
    let offsets = rows(
        &dir,
        "SELECT rank, offset_us, applied_us FROM rank_clock_offsets ORDER BY rank",
    );
    assert_eq!(offsets.len(), 4);
    for row in &offsets {
        let expected = if row[0] == "2" || row[0] == "3" {
            1500.0
        } else {
            0.0
        };
        assert!((num(&row[1]) - expected).abs() < 3.0, "{row:?}");
        assert_eq!(num(&row[2]) != 0.0, expected != 0.0, "{row:?}");
    }
    let first = rows(
        &dir,
        "SELECT skew_start FROM implicit_sync_instances ORDER BY position LIMIT 1",
    );
    assert_eq!(num(&first[0][0]), 120.0);
    let ranking = rows(&dir, "SELECT rank, times_late FROM straggler_ranking");
    assert_eq!(ranking[0], vec!["0".to_string(), "4.0".to_string()]);
    // Under --tracelens-compat the raw clocks blame rank 3 (node 1).
    let (out, _) = write_sheets(&dir, &["--tracelens-compat"]);
    let text = std::fs::read_to_string(out.path().join("straggler_summary.csv")).expect("sheet");
    let first_rank = text.lines().nth(1).and_then(|l| l.split(',').next());
    assert_eq!(first_rank, Some("3"), "{text}");
}

#[test]
fn one_process_driving_two_gpus_gives_two_ranks() {
    let Some(dir) = set("synth_spmg") else { return };
    let ranks = rows(
        &dir,
        "SELECT DISTINCT rank, device FROM comm_kernels ORDER BY rank",
    );
    assert_eq!(
        ranks,
        vec![
            vec!["0".to_string(), "0".into()],
            vec!["1".into(), "1".into()]
        ]
    );
    // Three allreduces, each with both devices, not six single-device ones.
    let kept = rows(
        &dir,
        "SELECT participants, comm_latency FROM implicit_sync_instances",
    );
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(
        kept.iter().all(|r| r[0] == "2" && num(&r[1]) == 45.5),
        "{kept:?}"
    );
}

#[test]
fn all_to_allv_bytes_go_to_the_right_peers() {
    let Some(dir) = set("synth_a2av_ep4") else {
        return;
    };
    let (out, _) = write_sheets(&dir, &[]);
    let text =
        std::fs::read_to_string(out.path().join("nccl_all2allv_heatmap.csv")).expect("sheet");
    let mut sent_by_rank = [0.0f64; 4];
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (src, dst): (usize, usize) = (
            cells[0].parse().expect("src"),
            cells[1].parse().expect("dst"),
        );
        // Expert groups [0, 1] and [2, 3]: nothing crosses between them.
        assert_eq!(src / 2, dst / 2, "{line}");
        sent_by_rank[src] += num(cells[2]);
    }
    // What each rank sent adds up to its input size over both instances.
    let inputs = rows(
        &dir,
        "SELECT rank, sum(in_msg_mb) FROM comm_kernels GROUP BY rank ORDER BY rank",
    );
    for row in inputs {
        let rank: usize = row[0].parse().expect("rank");
        assert!(
            (sent_by_rank[rank] - num(&row[1])).abs() < 1e-9,
            "rank {rank}: {sent_by_rank:?}"
        );
    }
}

#[test]
fn fp8_and_list_api_reduce_scatter_get_sizes_and_bandwidth() {
    let Some(dir) = set("synth_meta4") else {
        return;
    };
    let found = rows(
        &dir,
        "SELECT collective_name, dtype, full_msg_mb, busbw_gib_s FROM implicit_sync_instances \
         WHERE dtype LIKE 'Float8%' OR collective_name = 'reduce_scatter' ORDER BY collective_name",
    );
    assert_eq!(found.len(), 2, "{found:?}");
    // Float8 all-gather: 2097152 one-byte elements out = 2 MiB; the list-API
    // reduce_scatter: 262144 floats in = 1 MiB. Both with a bus bandwidth.
    assert_eq!(
        (found[0][1].as_str(), num(&found[0][2])),
        ("Float8_e4m3fn", 2.0)
    );
    assert_eq!(
        (found[1][0].as_str(), num(&found[1][2])),
        ("reduce_scatter", 1.0)
    );
    assert!(found.iter().all(|r| num(&r[3]) > 0.0), "{found:?}");
}

#[test]
fn no_collectives_at_all_still_gives_the_sheets() {
    let Some(dir) = set("synth_nocomm2") else {
        return;
    };
    let (out, run) = write_sheets(&dir, &[]);
    assert!(
        run.stderr.contains("no collective kernel"),
        "{}",
        run.stderr
    );
    let long = std::fs::read_to_string(out.path().join("nccl_long.csv")).expect("nccl_long");
    assert_eq!(long.lines().count(), 1, "header only: {long}");
}

/// Ranks from file names when the traces say nothing, and two traces of one
/// rank are an error naming both.
#[test]
fn ranks_come_from_file_names_and_duplicates_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    // An allreduce ends together on both ranks: rank 1 arrives 30 µs early
    // and waits.
    let kernel = |ts: f64| {
        serde_json::json!({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32",
            "pid": 0, "tid": 7, "ts": ts, "dur": 140.0 - ts,
            "args": {"correlation": 1, "stream": 7, "device": 0}})
    };
    write_trace(
        dir.path(),
        "job_rank1.json",
        serde_json::json!([kernel(100.0)]),
    );
    write_trace(
        dir.path(),
        "job_rank0.json",
        serde_json::json!([kernel(130.0)]),
    );
    let ranks = rows(
        dir.path(),
        "SELECT rank, rank_from, world_size FROM ranks ORDER BY rank",
    );
    assert_eq!(
        ranks[0],
        vec!["0".to_string(), "file name".into(), "2".into()]
    );
    assert_eq!(ranks[1][0], "1");
    let waits = rows(
        dir.path(),
        "SELECT rank, wait_time FROM collective_instances ORDER BY rank",
    );
    assert_eq!(
        waits,
        vec![
            vec!["0".to_string(), "0.0".into()],
            vec!["1".into(), "30.0".into()]
        ]
    );
    write_trace(
        dir.path(),
        "other_rank_1.json",
        serde_json::json!([kernel(100.0)]),
    );
    let run = tracesql()
        .arg("collectives")
        .arg(dir.path())
        .args(["-e", "SELECT 1"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("both rank 1"), "{}", run.stderr);
    let bad = tracesql()
        .arg("collectives")
        .arg(dir.path().join("job_rank0.json"))
        .args(["--rank-regex", "(", "-e", "SELECT 1"])
        .run();
    assert!(
        !bad.success() && bad.stderr.contains("--rank-regex"),
        "{}",
        bad.stderr
    );
    assert_eq!(bad.stderr.lines().count(), 1, "one line: {}", bad.stderr);
}

/// The run's analysis: the straggler, the share of waiting, and where a link
/// is far below its peak (a platforms file gives the inter-node figure).
#[test]
fn the_run_analysis_names_the_straggler_the_wait_and_slow_links() {
    let Some(clock4) = set("synth_clock4") else {
        return;
    };
    let (out, _) = write_sheets(&clock4, &["--analyze"]);
    let found = findings_rows(out.path());
    let find = |rule: &str| {
        found
            .iter()
            .find(|r| r[0] == rule)
            .unwrap_or_else(|| panic!("no {rule} finding: {found:?}"))
    };
    let straggler = find("straggler_rank");
    assert_eq!(straggler[4], "rank 0 (straggler)");
    assert_eq!(num(&straggler[6]), 100.0);
    // The share of the ranks' allreduce time spent waiting for the last
    // arrival, over the instances (about 30% in this set).
    let share = rows(
        &clock4,
        "SELECT sum(wait_time) / sum(dur) * 100 FROM collective_instances",
    );
    let wait = find("collective_wait_share");
    assert!(
        (num(&wait[6]) - num(&share[0][0])).abs() < 1e-9,
        "{wait:?} vs {share:?}"
    );
    assert!((29.0..32.0).contains(&num(&wait[6])), "{wait:?}");
    // Single-trace analyze runs no run rule.
    let single = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .arg("analyze")
        .arg(clock4.join("rank0_trace.json.gz"))
        .arg("--out")
        .arg(single.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    let md = std::fs::read_to_string(single.path().join("standalone_analysis.md")).expect("md");
    assert!(
        !md.contains("straggler_rank") && !md.contains("collective_wait_share"),
        "{md}"
    );

    let Some(meta4) = set("synth_meta4") else {
        return;
    };
    let platforms = tempfile::tempdir().expect("temp dir");
    let file = crate::util::write_file(
        platforms.path(),
        "links.csv",
        b"name,memory_tb_s,intra_node_gb_s,inter_node_gb_s\nH100,3.35,450,1000\n",
    );
    let (out, _) = write_sheets(&meta4, &["--platforms", &file, "--analyze"]);
    let found = findings_rows(out.path());
    // The two 4 MiB allreduces across both nodes: median busbw 123.4 GB/s of 1000.
    let slow = found
        .iter()
        .find(|r| r[0] == "collective_bandwidth" && r[4].starts_with("allreduce Float 4.0 MiB"))
        .unwrap_or_else(|| panic!("no allreduce bandwidth finding: {found:?}"));
    let expected = (117.1875 + 112.680_288_461_538_45) / 2.0 * 1.073_741_824 / 1000.0 * 100.0;
    assert!((num(&slow[6]) - expected).abs() < 1e-9, "{slow:?}");
}

fn findings_rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("analysis/findings.csv")).expect("findings");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.expect("csv").iter().map(str::to_string).collect())
        .collect()
}

/// Per-rank timelines: communication hidden under computation per rank agrees
/// with HTA's comm/comp overlap where both count the same kernels (rank 3 has
/// memsets, which HTA does not count as computation), and a process driving
/// two GPUs gets a timeline per GPU from `report`.
#[test]
fn per_rank_and_per_device_timelines() {
    let Some(dlrm) = set("dlrm8_param") else {
        return;
    };
    let ours = rows(
        &dlrm,
        "SELECT rank, comm_overlap_pct FROM rank_timeline ORDER BY rank",
    );
    let hta_file = dlrm.join("../refs/hta/comm_comp_overlap.csv");
    let hta = std::fs::read_to_string(&hta_file).expect("HTA reference");
    let mut compared = 0;
    for (row, line) in ours.iter().zip(hta.lines().skip(1)) {
        let (rank, pct) = line.split_once(',').expect("rank,pct");
        assert_eq!(row[0], rank);
        if rank == "3" {
            continue;
        }
        assert!(
            (num(&row[1]) - num(pct)).abs() <= 0.005 + 1e-9,
            "rank {rank}: {row:?} vs {pct}"
        );
        compared += 1;
    }
    assert_eq!(compared, 7);

    let Some(spmg) = set("synth_spmg") else {
        return;
    };
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .arg("report")
        .arg(spmg.join("rank0_trace.json.gz"))
        .arg("--out")
        .arg(out.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    let text =
        std::fs::read_to_string(out.path().join("gpu_timeline_by_device.csv")).expect("sheet");
    // Three allreduces of 80 µs on GPU 0 and of 45.5 µs on GPU 1, no overlap.
    assert!(text.contains("0,total_comm_time,0.24,"), "{text}");
    assert!(text.contains("1,total_comm_time,0.1365,"), "{text}");
    let compat = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(["--tracelens-compat", "report"])
        .arg(spmg.join("rank0_trace.json.gz"))
        .arg("--out")
        .arg(compat.path())
        .run();
    assert!(run.success(), "{}", run.stderr);
    assert!(!compat.path().join("gpu_timeline_by_device.csv").exists());
}

/// A send and its recv pair across ranks by their order in that direction
/// (the peer is record_param_comms' Rank), and each transfer gets its time and
/// bandwidth: the shorter kernel is the transfer, the other side waited.
#[test]
fn sends_pair_with_their_recvs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut external = 0;
    let mut p2p = |name: &str, peer: i64, ts: f64, dur: f64| {
        external += 1;
        let meta = serde_json::json!({"Collective name": name, "Process Group Name": "0",
            "Process Group Ranks": "[0, 1]", "Group size": 2, "dtype": "Float",
            "In msg nelems": 262144, "Out msg nelems": 262144,
            "In split size": "[]", "Out split size": "[]"});
        let mut record_args = meta.clone();
        record_args["External id"] = external.into();
        record_args["Rank"] = peer.into();
        record_args["Seq"] = external.into();
        let mut kernel_args = meta;
        kernel_args["External id"] = external.into();
        kernel_args["correlation"] = (1000 + external).into();
        kernel_args["device"] = 0.into();
        kernel_args["stream"] = 30.into();
        vec![
            serde_json::json!({"ph": "X", "cat": "cpu_op", "name": "record_param_comms",
                "pid": 1, "tid": 1, "ts": ts - 20.0, "dur": 10.0, "args": record_args}),
            serde_json::json!({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                "pid": 0, "tid": 30, "ts": ts, "dur": dur, "args": kernel_args}),
        ]
    };
    let rank0: Vec<_> = [
        p2p("send", 1, 100.0, 50.0),
        p2p("send", 1, 300.0, 20.0),
        p2p("recv", 1, 500.0, 40.0),
    ]
    .concat();
    let rank1: Vec<_> = [
        p2p("recv", 0, 130.0, 20.0),
        p2p("recv", 0, 290.0, 30.0),
        p2p("send", 0, 480.0, 60.0),
    ]
    .concat();
    write_trace(dir.path(), "rank0.json", serde_json::json!(rank0));
    write_trace(dir.path(), "rank1.json", serde_json::json!(rank1));
    let transfers = rows(
        dir.path(),
        "SELECT src_rank, dst_rank, transfer_us, recv_wait_us, gb_s, kernels FROM p2p_transfers \
         ORDER BY send_ts",
    );
    let expected = [
        ["0", "1", "20.0", "-30.0"],
        ["0", "1", "20.0", "10.0"],
        ["1", "0", "40.0", "-20.0"],
    ];
    assert_eq!(transfers.len(), 3, "{transfers:?}");
    for (row, want) in transfers.iter().zip(expected) {
        assert_eq!(&row[..4], &want.map(String::from)[..], "{transfers:?}");
        // 1 MiB over the transfer time.
        let gb_s = 1_048_576.0 / num(&row[2]) / 1e3;
        assert!((num(&row[4]) - gb_s).abs() < 1e-9, "{row:?}");
        assert_eq!(row[5], "2");
    }
}

/// Other commands take a run's directory (or a pattern) too: every rank's
/// trace, each with its rank from distributedInfo.
#[test]
fn query_takes_a_directory_or_pattern_of_rank_traces() {
    let Some(dir) = set("synth_meta4") else {
        return;
    };
    let pattern = dir.join("rank*_trace.json.gz");
    for input in [dir.clone(), pattern] {
        let run = tracesql()
            .arg("query")
            .arg(&input)
            .args([
                "--format",
                "csv",
                "-e",
                "SELECT rank, rank_from FROM ranks ORDER BY rank",
            ])
            .run();
        assert!(run.success(), "{}", run.stderr);
        assert_eq!(
            run.stdout,
            "rank,rank_from\n0,distributedInfo\n1,distributedInfo\n2,distributedInfo\n3,distributedInfo\n"
        );
    }
}

/// `--xlsx`: an about sheet naming the run, then the same sheets as the CSV
/// files, row for row.
#[test]
fn the_workbook_holds_every_sheet_of_the_csv_directory() {
    use calamine::{open_workbook, Reader, Xlsx};
    let Some(dir) = set("synth_meta4") else {
        return;
    };
    let out = tempfile::tempdir().expect("temp dir");
    let book_path = out.path().join("run.xlsx");
    let run = tracesql()
        .arg("collectives")
        .arg(&dir)
        .arg("--xlsx")
        .arg(&book_path)
        .arg("--out")
        .arg(out.path().join("csv"))
        .run();
    assert!(run.success(), "{}", run.stderr);
    let mut book: Xlsx<_> = open_workbook(&book_path).expect("open workbook");
    let names = book.sheet_names();
    assert_eq!(names[0], "about");
    let about: Vec<String> = book
        .worksheet_range("about")
        .expect("about")
        .rows()
        .flat_map(|r| r.iter().map(|c| c.to_string()).collect::<Vec<_>>())
        .collect();
    assert!(about.iter().any(|c| c == "run of 4 ranks"), "{about:?}");
    let mut csv_sheets: Vec<String> = std::fs::read_dir(out.path().join("csv"))
        .expect("csv dir")
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".csv")
                .to_string()
        })
        .collect();
    csv_sheets.sort();
    let mut book_sheets: Vec<String> = names[1..].to_vec();
    book_sheets.sort();
    assert_eq!(book_sheets, csv_sheets);
    for sheet in &csv_sheets {
        let text = std::fs::read_to_string(out.path().join("csv").join(format!("{sheet}.csv")))
            .expect("csv");
        let csv_rows = csv::Reader::from_reader(text.as_bytes()).records().count();
        let range = book.worksheet_range(sheet).expect("sheet");
        assert_eq!(range.rows().count(), csv_rows + 1, "{sheet}");
    }
}

/// The rank is a column of every table, equal to the trace's `ranks.rank`,
/// under `collectives` and under any command given the run's directory.
#[test]
fn rank_is_a_column_of_every_table() {
    let Some(dir) = set("dlrm8_param") else {
        return;
    };
    let tables = [
        "events",
        "ops",
        "kernels",
        "tree_edges",
        "kernel_ancestors",
        "collectives",
        "trace_meta",
        "threads",
    ];
    // Rows per rank, and rows whose rank is not their trace's.
    let sql = tables
        .iter()
        .map(|t| {
            format!(
                "SELECT '{t}' AS tbl, count(DISTINCT x.rank) AS ranks, \
                 sum(CASE WHEN x.rank IS DISTINCT FROM r.rank THEN 1 ELSE 0 END) AS wrong \
                 FROM {t} x JOIN ranks r ON r.trace = x.trace"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
        + " ORDER BY tbl";
    let under_collectives = rows(&dir, &sql);
    assert_eq!(under_collectives.len(), tables.len());
    for row in &under_collectives {
        assert_eq!(row[1], "8", "{row:?}");
        assert_eq!(row[2], "0", "{row:?}");
    }
    let query = tracesql()
        .arg("query")
        .arg(&dir)
        .args(["--format", "csv", "-e", &sql])
        .run();
    assert!(query.success(), "{}", query.stderr);
    let mut reader = csv::Reader::from_reader(query.stdout.as_bytes());
    let under_query: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("csv").iter().map(str::to_string).collect())
        .collect();
    assert_eq!(under_query, under_collectives);
}

/// Without distributedInfo: `query` takes the rank from a file name that has
/// one (TraceLens's pattern) and leaves it NULL otherwise; `collectives`
/// resolves it again under its own `--rank-regex`, in every table.
#[test]
fn ranks_from_names_reach_every_table_and_follow_the_rank_regex() {
    let dir = tempfile::tempdir().expect("temp dir");
    let events = serde_json::json!([
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1.0, "dur": 5.0,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2.0,
         "dur": 1.0, "args": {"correlation": 9, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 4.0, "dur": 2.0,
         "args": {"correlation": 9, "stream": 7, "device": 0, "External id": 1}}
    ]);
    let named = write_trace(dir.path(), "job_rank3_gpu5.json", events.clone());
    let plain = write_trace(dir.path(), "job.json", events);
    let sql = "SELECT k.trace, k.rank AS kernel_rank, e.rank AS event_rank, r.rank_from \
               FROM kernels k JOIN ranks r ON r.trace = k.trace \
               JOIN (SELECT trace, min(rank) AS rank, count(*) AS n FROM events GROUP BY trace) e \
                 ON e.trace = k.trace ORDER BY k.trace";
    let query = tracesql()
        .args(["query", &named, &plain, "--format", "csv", "-e", sql])
        .run();
    assert!(query.success(), "{}", query.stderr);
    assert_eq!(
        query.stdout.lines().collect::<Vec<_>>(),
        vec![
            "trace,kernel_rank,event_rank,rank_from",
            "job,,,",
            "job_rank3_gpu5,3,3,file name"
        ]
    );
    let run = tracesql()
        .args([
            "collectives",
            &named,
            "--rank-regex",
            r"gpu(\d+)",
            "--world-size",
            "8",
        ])
        .args(["--format", "csv", "-e", sql])
        .run();
    assert!(run.success(), "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().nth(1),
        Some("job_rank3_gpu5,5,5,file name"),
        "{}",
        run.stdout
    );
}

/// Where a trace records a Comms Id (newest PyTorch) it is the instance key:
/// synth_shifted2 with each `Seq` replaced by a Comms Id pairs as by Seq,
/// where order would pair every kernel with the wrong one.
#[test]
fn comms_ids_pair_collectives_across_ranks() {
    let Some(dir) = set("synth_shifted2") else {
        return;
    };
    let out = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(&dir).expect("set") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".json.gz") {
            continue;
        }
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("open")),
            &mut text,
        )
        .expect("gunzip");
        let mut trace: serde_json::Value = serde_json::from_str(&text).expect("json");
        let mut keyed = 0;
        for event in trace["traceEvents"].as_array_mut().expect("events") {
            let Some(args) = event.get_mut("args").and_then(|a| a.as_object_mut()) else {
                continue;
            };
            if let Some(seq) = args.remove("Seq") {
                let id = format!("9{}31", seq.as_i64().expect("Seq"));
                args.insert("Comms Id".into(), serde_json::Value::String(id));
                keyed += 1;
            }
        }
        assert!(keyed > 0, "{name} has no Seq");
        crate::util::write_file(
            out.path(),
            name.trim_end_matches(".gz"),
            trace.to_string().as_bytes(),
        );
    }
    let kept = rows(
        out.path(),
        "SELECT collective_id, matched_by, participants, skew_end FROM implicit_sync_instances ORDER BY position",
    );
    assert_eq!(kept.len(), 3, "{kept:?}");
    for row in &kept {
        assert!(row[0].starts_with("0_c9"), "{row:?}");
        assert_eq!(row[1], "comms id", "{row:?}");
        assert_eq!(row[2], "2", "{row:?}");
        assert!(num(&row[3]) < 20.0, "{row:?}");
    }
}
