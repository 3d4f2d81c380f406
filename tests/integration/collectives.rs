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

/// `tracesql [FLAGS] collectives DIR --out <temp>`: the sheets' directory and the run.
fn write_sheets(dir: &Path, flags: &[&str]) -> (tempfile::TempDir, crate::util::Run) {
    let out = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .args(flags)
        .arg("collectives")
        .arg(dir)
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
}
