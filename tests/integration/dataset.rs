//! Datasets that grow (`export --append`) and are read in place (`query DIR`):
//! partitions by run, rank and trace, skipped duplicates, an atomic manifest,
//! and queries that read only the files their filters leave.

use std::path::Path;

use tracesql::load::{reopen, Manifest};

use crate::util::{files_under, fixture, snapshot, tracesql, tracesql_ok};

/// `nccl_graph.json` as rank `rank` of a two-rank job (its distributedInfo
/// says rank 0): a second rank with different bytes, hence a different hash.
fn rank_trace(dir: &Path, rank: u32) -> String {
    let text = std::fs::read_to_string(fixture("nccl_graph.json")).unwrap();
    let marker = "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0";
    assert!(text.contains(marker), "the fixture's distributedInfo moved");
    let text = text.replacen(
        marker,
        &format!("\"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {rank}"),
        1,
    );
    let path = dir.join(format!("rank{rank}.json"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn manifest(dir: &Path) -> Manifest {
    reopen::read_manifest(dir.to_str().unwrap()).expect("a manifest")
}

fn append(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["export", "--append", "--parquet", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let run = tracesql().args(&all).run();
    assert!(run.success(), "{}", run.stderr);
    run.stderr
}

fn csv(args: &[&str], sql: &str) -> String {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "csv", "-e", sql]);
    tracesql_ok(&all)
}

#[test]
fn appends_partition_by_run_rank_and_trace_and_skip_what_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let (r0, r1) = (rank_trace(dir.path(), 0), rank_trace(dir.path(), 1));
    let data = dir.path().join("fleet");
    append(&data, &["--run", "r1", &r0, &fixture("basic_linear.json")]);
    let said = append(&data, &["--run", "r2", &r1, &r0, &r1]);
    assert!(
        said.contains("skipped, already in the dataset as rank0"),
        "{said}"
    );
    assert!(
        said.contains("skipped, repeated on the command line"),
        "{said}"
    );

    let m = manifest(&data);
    let rows: Vec<_> = m
        .traces
        .iter()
        .map(|t| {
            (
                t.info.name.as_str(),
                t.run.as_deref(),
                t.rank,
                t.partition.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("rank0", Some("r1"), Some(0), "run=r1/rank=0/trace=rank0"),
            (
                "basic_linear",
                Some("r1"),
                None,
                "run=r1/trace=basic_linear"
            ),
            ("rank1", Some("r2"), Some(1), "run=r2/rank=1/trace=rank1"),
        ]
    );
    for trace in &m.traces {
        for table in &trace.tables {
            let file = Manifest::data_file(&data, "tables", &table.name, trace);
            assert!(file.is_file(), "{}", file.display());
        }
    }
    // Nothing but the manifest and the partitions: no staging, no lock.
    let hidden: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");

    // The dataset read in place and loaded into memory agree.
    let sql = "SELECT trace, rank, count(*) AS n, sum(dur) AS us FROM kernels GROUP BY trace, rank ORDER BY trace";
    let in_place = csv(&[data.to_str().unwrap()], sql);
    assert_eq!(in_place, csv(&[data.to_str().unwrap(), "--load"], sql));
    assert_eq!(in_place.lines().count(), 4, "{in_place}");
    // ... and agree with the trace files themselves.
    assert_eq!(
        in_place,
        csv(&[&r0, &fixture("basic_linear.json"), &r1], sql)
    );
    // `tables` counts from the manifest what loading counts.
    assert_eq!(
        tracesql_ok(&["tables", data.to_str().unwrap()]),
        tracesql_ok(&["tables", &r0, &fixture("basic_linear.json"), &r1])
    );
}

#[test]
fn a_query_reads_only_the_files_its_filters_leave() {
    let dir = tempfile::tempdir().unwrap();
    let (r0, r1) = (rank_trace(dir.path(), 0), rank_trace(dir.path(), 1));
    let data = dir.path().join("fleet");
    append(&data, &["--run", "a", &r0, &r1]);
    let data = data.to_str().unwrap();
    let scanned = |sql: &str| -> Vec<String> {
        let plan = csv(&[data], &format!("EXPLAIN {sql}"));
        let mut files: Vec<String> = plan
            .split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
            .filter(|w| w.ends_with(".parquet"))
            .map(|w| w.split("/tables/").nth(1).unwrap_or(w).to_string())
            .collect();
        files.sort();
        files.dedup();
        files
    };
    assert_eq!(
        scanned("SELECT count(*) FROM kernels WHERE rank = 1"),
        ["kernels/run=a/rank=1/trace=rank1/part-0.parquet"]
    );
    assert_eq!(
        scanned("SELECT count(*) FROM events WHERE trace = 'rank0' AND dur > 1"),
        ["events/run=a/rank=0/trace=rank0/part-0.parquet"]
    );
    assert_eq!(scanned("SELECT sum(dur) FROM kernels").len(), 2);
    assert!(scanned("SELECT sum(dur) FROM kernels WHERE trace = 'nope'").is_empty());
    // Pruned or not, the answer is the same.
    let sql = "SELECT count(*) AS n FROM kernels WHERE rank = 1";
    assert_eq!(
        csv(&[data], sql),
        csv(&[&r1], "SELECT count(*) AS n FROM kernels")
    );
    assert_eq!(
        csv(
            &[data],
            "SELECT count(*) AS n FROM kernels WHERE trace = 'nope'"
        ),
        "n\n0\n"
    );

    // The run is a partition too, through trace_run(trace).
    append(
        dir.path().join("fleet").as_path(),
        &["--run", "b", &fixture("basic_linear.json")],
    );
    assert_eq!(
        scanned("SELECT count(*) FROM kernels WHERE trace_run(trace) = 'b'"),
        ["kernels/run=b/trace=basic_linear/part-0.parquet"]
    );
    assert_eq!(
        scanned("SELECT count(*) FROM kernels WHERE trace_run(trace) = 'a' AND rank = 0"),
        ["kernels/run=a/rank=0/trace=rank0/part-0.parquet"]
    );
    // Runs compared in one query, the same in place and loaded; NULL off a dataset.
    let sql = "SELECT trace_run(trace) AS run, count(DISTINCT trace) AS traces, count(*) AS n \
               FROM kernels GROUP BY 1 ORDER BY 1";
    let by_run = csv(&[data], sql);
    assert_eq!(by_run, csv(&[data, "--load"], sql));
    let per_trace = |t: &str| -> usize {
        csv(&[t], "SELECT count(*) AS n FROM kernels")
            .lines()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(
        by_run,
        format!(
            "run,traces,n\na,2,{}\nb,1,{}\n",
            per_trace(&r0) + per_trace(&r1),
            per_trace(&fixture("basic_linear.json"))
        )
    );
    assert_eq!(
        csv(
            &[&r0],
            "SELECT DISTINCT trace_run(trace) IS NULL AS none FROM kernels"
        ),
        "none\ntrue\n"
    );
}

#[test]
fn call_trees_need_the_dataset_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("one");
    append(&data, &[&fixture("basic_linear.json")]);
    let data = data.to_str().unwrap();
    let run = tracesql()
        .args(["query", data, "-e", "SELECT * FROM call_stack(3)"])
        .run();
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("call_stack: the call trees are not in memory"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--load"), "{}", run.stderr);
    let loaded = csv(&[data, "--load"], "SELECT count(*) AS n FROM call_stack(3)");
    assert_ne!(loaded, "n\n0\n");
}

#[test]
fn an_export_of_one_trace_takes_more_and_keeps_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("export");
    tracesql_ok(&[
        "export",
        &fixture("basic_linear.json"),
        "--parquet",
        data.to_str().unwrap(),
    ]);
    assert!(!manifest(&data).partitioned);
    append(&data, &[&fixture("gpu_only.json")]);
    let m = manifest(&data);
    assert!(m.partitioned);
    assert_eq!(m.traces[0].partition, "trace=basic_linear");
    // The unpartitioned files are gone; every file is under a partition.
    for file in files_under(&data.join("tables")) {
        let relative = file.strip_prefix(data.join("tables")).unwrap();
        assert_eq!(relative.components().count(), 3, "{}", relative.display());
    }
    let sql = "SELECT trace, count(*) AS n FROM kernels GROUP BY trace ORDER BY trace";
    assert_eq!(
        csv(&[data.to_str().unwrap()], sql),
        csv(
            &[&fixture("basic_linear.json"), &fixture("gpu_only.json")],
            sql
        )
    );
}

#[test]
fn a_failed_append_leaves_the_dataset_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("fleet");
    append(&data, &[&fixture("basic_linear.json")]);
    let before = snapshot(&data);
    let bad = dir.path().join("truncated.json");
    std::fs::write(&bad, "{\"traceEvents\": [{\"ph\": \"X\", ").unwrap();
    let run = tracesql()
        .args([
            "export",
            "--append",
            "--jobs",
            "2",
            "--parquet",
            data.to_str().unwrap(),
            &fixture("gpu_only.json"),
            bad.to_str().unwrap(),
        ])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("truncated.json"), "{}", run.stderr);
    assert_eq!(before, snapshot(&data), "the dataset changed");

    // Another append holds the lock: refused, naming it.
    std::fs::write(data.join(".tracesql-export.lock"), "1").unwrap();
    let run = tracesql()
        .args([
            "export",
            "--append",
            "--parquet",
            data.to_str().unwrap(),
            &fixture("gpu_only.json"),
        ])
        .run();
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("another export is appending"),
        "{}",
        run.stderr
    );
}
