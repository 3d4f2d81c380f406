//! Conformance of `tracesql --tracelens-compat collectives` with TraceLens's
//! multi-rank collective report, and of the single-trace `coll_analysis` sheet,
//! on every set of `conformance/collectives/` (its README describes them).
//!
//! Every reference CSV of `refs/multi/` must be written by us with the same
//! header and rows (cells by `cells_equal`: numbers within 1e-6, an integer is
//! not a float); rows are compared as multisets and their order by the sheet's
//! sort column, whose ties TraceLens leaves unordered. Where TraceLens raised
//! (`refs/multi/error.txt`), we must still write the sheets.

use std::path::{Path, PathBuf};

use super::compare_pairs::differences;
use crate::util::{conformance_dir, tracesql};

/// The column TraceLens sorts a sheet by (None: rows in order, compared in order).
fn sort_column(sheet: &str) -> Option<&'static str> {
    match sheet {
        "nccl_summary_implicit_sync" => Some("Total comm latency (ms)"),
        "nccl_summary_long" | "coll_analysis" => Some("dur_sum"),
        "nccl_all2allv" => Some("total data communicated (MB)"),
        "nccl_summary_all2allv" => Some("Total wall_time (ms)"),
        "straggler_summary" => Some("total_wait_time_us"),
        _ => None,
    }
}

fn sets(data: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data.join("collectives"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.retain(|d| d.join("traces").is_dir());
    dirs.sort();
    dirs
}

fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "csv"));
    files.sort();
    files
}

#[test]
fn multi_rank_sheets_match_tracelens() {
    let Some(data) = conformance_dir() else {
        return;
    };
    let sets = sets(&data);
    assert!(
        sets.len() >= 9,
        "expected the 9 shared collective sets, found {}",
        sets.len()
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for set in &sets {
        let name = set
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = tempfile::tempdir().expect("temp dir");
        let run = tracesql()
            .args(["--tracelens-compat", "collectives"])
            .arg(set.join("traces"))
            .arg("--out")
            .arg(out.path())
            .run();
        assert!(run.success(), "{name}: {}", run.stderr);
        let refs = set.join("refs/multi");
        if refs.join("error.txt").is_file() {
            // TraceLens raised: we write the sheets anyway.
            for sheet in ["nccl_long", "nccl_implicit_sync", "nccl_summary_long"] {
                let path = out.path().join(format!("{sheet}.csv"));
                assert!(
                    path.is_file(),
                    "{name}: TraceLens failed here, we must still write {sheet}"
                );
            }
            continue;
        }
        for reference in csv_files(&refs) {
            let file = reference
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let sheet = file.trim_end_matches(".csv");
            let ours = out.path().join(&file);
            if !ours.is_file() {
                failures.push(format!("{name}/{file}: not written"));
                continue;
            }
            compared += 1;
            for found in differences(&ours, &reference, sort_column(sheet)) {
                failures.push(format!("{name}/{file}: {found}"));
            }
        }
    }
    eprintln!(
        "collectives: {compared} reference sheets compared over {} sets",
        sets.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 30, "only {compared} reference sheets compared");
}

#[test]
fn coll_analysis_matches_tracelens_single_trace() {
    let Some(data) = conformance_dir() else {
        return;
    };
    let mut checked = 0;
    for set in sets(&data) {
        let single = set.join("refs/single_rank0");
        if !single.is_dir() {
            continue;
        }
        let mut traces: Vec<PathBuf> = std::fs::read_dir(set.join("traces"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        traces.retain(|t| t.to_string_lossy().ends_with(".json.gz"));
        traces.sort();
        // Rank 0's file: the one TraceLens's oracle names, else the first.
        let oracle = std::fs::read_to_string(single.join("_oracle.json")).unwrap_or_default();
        let rank0 = traces
            .iter()
            .find(|t| {
                let file = t
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                oracle.contains(&format!("\"0\": \"{file}\""))
            })
            .or(traces.first())
            .expect("a trace")
            .clone();
        let out = tempfile::tempdir().expect("temp dir");
        let run = tracesql()
            .args(["--tracelens-compat", "report"])
            .arg(&rank0)
            .arg("--out")
            .arg(out.path())
            .run();
        assert!(run.success(), "{}: {}", rank0.display(), run.stderr);
        let ours = out.path().join("coll_analysis.csv");
        let reference = single.join("coll_analysis.csv");
        if reference.is_file() {
            let found = differences(&ours, &reference, Some("dur_sum"));
            assert!(
                found.is_empty(),
                "{}: {}",
                rank0.display(),
                found.join("\n")
            );
        } else {
            // TraceLens writes no sheet when no kernel has collective metadata.
            assert!(
                !ours.exists(),
                "{}: TraceLens writes no coll_analysis here",
                rank0.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 2, "coll_analysis checked on {checked} sets");
}
