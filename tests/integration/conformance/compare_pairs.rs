//! Conformance of `tracesql --tracelens-compat compare` with TraceLens's report
//! diff (`compare_perf_reports_pytorch`) on every shared pair of
//! `conformance/compare/` (its README describes them).
//!
//! Each pair runs twice: from the traces themselves (our single-trace reports,
//! `--platform none` as the references were made), and from TraceLens's own
//! report folders. Every reference file must exist with the same header; rows
//! are compared as multisets (cells by [`cells_equal`]: numbers within 1e-6, an
//! integer is not a float), and the order by the sheet's sort column, whose
//! ties TraceLens leaves unordered. Where TraceLens failed on a pair (`--sheets
//! all` on some), we produce the files anyway: the narrower references apply.

use std::path::{Path, PathBuf};

use super::compare::{cells_equal, Table};
use crate::util::{files_under, tracesql};

/// One pair: its folder, the compare command's arguments, what it must match.
struct Pair {
    dir: PathBuf,
    names: [String; 2],
    sheets: Vec<String>,
    /// The two single-trace report folders the references were made from.
    reports: [PathBuf; 2],
}

fn pairs(data: &Path) -> Vec<Pair> {
    let root = data.join("compare");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let meta = dir.join("compare_perf_reports_meta.json");
        let Ok(text) = std::fs::read_to_string(&meta) else {
            continue;
        };
        let meta: serde_json::Value = serde_json::from_str(&text).expect("meta JSON");
        let args = &meta["args"];
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .expect("a list")
                .iter()
                .map(|s| s.as_str().expect("text").to_string())
                .collect()
        };
        let names = strings(&args["names"]);
        let reports = strings(&args["reports"]);
        // Paths in the meta files are relative to ../shared.
        let shared = data.parent().expect("conformance has a parent");
        out.push(Pair {
            dir,
            names: [names[0].clone(), names[1].clone()],
            sheets: strings(&args["sheets"]),
            reports: [shared.join(&reports[0]), shared.join(&reports[1])],
        });
    }
    out
}

/// The trace a report folder was made from (`X_perf_report_csvs` → `X.json.gz`).
fn trace_of(report: &Path) -> PathBuf {
    let name = report.file_name().expect("a name").to_string_lossy();
    let stem = name
        .strip_suffix("_perf_report_csvs")
        .expect("a report folder");
    report.with_file_name(format!("{stem}.json.gz"))
}

/// The column whose values order the rows of a result file, if any (spec
/// compare.md §2.4, §2.5); None: the rows come in key order.
fn sort_column(file: &str, names: &[String; 2]) -> Option<String> {
    let [base, variant] = names;
    let first_metric = |sheet: &str| match sheet {
        "unified_perf_summary" => "Kernel Time (µs)_sum",
        "ops_unique_args" | "ops_all" => "total_direct_kernel_time_sum",
        _ => "Kernel Time (µs)_sum",
    };
    match file {
        "gpu_timeline" => None,
        "ops_summary" => Some(format!("{base}::total_direct_kernel_time_ms")),
        "kernel_summary" => Some(format!("{base}::Kernel duration (µs)_sum")),
        _ => {
            let suffix = format!("_{variant}");
            let stem = file.strip_suffix(&suffix).expect("a split sheet");
            for (part, tag) in [
                ("_intersect", base),
                ("_only_baseline", base),
                ("_only_variant", variant),
            ] {
                if let Some(sheet) = stem.strip_suffix(part) {
                    return Some(format!("{tag}::{}", first_metric(sheet)));
                }
            }
            panic!("{file}: not a result name");
        }
    }
}

/// What differs between our file and the reference; empty when they match.
pub(super) fn differences(ours: &Path, reference: &Path, sort: Option<&str>) -> Vec<String> {
    let text =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let (ours_text, reference_text) = (text(ours), text(reference));
    if reference_text == "\n" || ours_text == "\n" {
        return if reference_text == ours_text {
            Vec::new()
        } else {
            vec!["one side is the empty-sheet newline, the other is not".into()]
        };
    }
    let ours = Table::parse(&ours_text).expect("our CSV");
    let reference = Table::parse(&reference_text).expect("reference CSV");
    if ours.header != reference.header {
        return vec![format!(
            "header: ours {:?}\nreference {:?}",
            ours.header, reference.header
        )];
    }
    if ours.rows.len() != reference.rows.len() {
        return vec![format!(
            "{} rows, the reference {}",
            ours.rows.len(),
            reference.rows.len()
        )];
    }
    let same = |a: &[String], b: &[String]| a.iter().zip(b).all(|(x, y)| cells_equal(x, y));
    let mut found = Vec::new();
    let mut used = vec![false; reference.rows.len()];
    for row in &ours.rows {
        let hit = (0..reference.rows.len()).find(|&i| !used[i] && same(row, &reference.rows[i]));
        match hit {
            Some(i) => used[i] = true,
            None => found.push(format!("row without a reference twin: {row:?}")),
        }
    }
    // Order: the sort column's values in sequence (ties may come in any order),
    // or, without one, the rows themselves.
    for (at, (a, b)) in ours.rows.iter().zip(&reference.rows).enumerate() {
        let ordered = match sort.and_then(|c| ours.col(c)) {
            Some(c) if !(a[c].is_empty() && b[c].is_empty()) => cells_equal(&a[c], &b[c]),
            Some(_) | None => same(&a[..1], &b[..1]),
        };
        if !ordered {
            found.push(format!("row {} out of the reference order", at + 1));
            break;
        }
    }
    found
}

fn run_pair(pair: &Pair, inputs: [&Path; 2], out: &Path) -> Vec<String> {
    let run = tracesql()
        .args(["--tracelens-compat", "--platform", "none", "compare"])
        .arg(inputs[0])
        .arg(inputs[1])
        .args(["--names", &pair.names[0], &pair.names[1], "--sheets"])
        .args(&pair.sheets)
        .arg("--out")
        .arg(out)
        .run();
    assert!(run.success(), "{}: {}", pair.dir.display(), run.stderr);
    let reference_dir = pair.dir.join("compare_perf_reports");
    let ours_dir = out.join("compare_perf_reports");
    let name = |p: &Path| {
        p.file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned()
    };
    let theirs: Vec<String> = files_under(&reference_dir)
        .iter()
        .map(|p| name(p))
        .collect();
    let mine: Vec<String> = files_under(&ours_dir).iter().map(|p| name(p)).collect();
    let mut problems = Vec::new();
    if theirs != mine {
        problems.push(format!("files: ours {mine:?}, the reference {theirs:?}"));
    }
    for file in &theirs {
        let sort = sort_column(file, &pair.names);
        let csv = format!("{file}.csv");
        for d in differences(
            &ours_dir.join(&csv),
            &reference_dir.join(&csv),
            sort.as_deref(),
        ) {
            problems.push(format!("{csv}: {d}"));
        }
    }
    problems
}

#[test]
fn tracelens_report_diff_matches_every_shared_pair() {
    let Some(data) = super::shared_data_or_fixtures_only() else {
        return;
    };
    let pairs = pairs(&data);
    assert!(
        pairs.len() >= 6,
        "{} pairs under {}",
        pairs.len(),
        data.display()
    );
    let mut failures = Vec::new();
    let mut files = 0;
    for pair in &pairs {
        let out = tempfile::tempdir().expect("temp dir");
        let traces = [trace_of(&pair.reports[0]), trace_of(&pair.reports[1])];
        let from_traces = run_pair(pair, [&traces[0], &traces[1]], &out.path().join("traces"));
        let from_reports = run_pair(
            pair,
            [&pair.reports[0], &pair.reports[1]],
            &out.path().join("reports"),
        );
        let label = pair
            .dir
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        files += files_under(&pair.dir.join("compare_perf_reports")).len();
        for (how, problems) in [("traces", from_traces), ("report folders", from_reports)] {
            failures.extend(
                problems
                    .into_iter()
                    .map(|p| format!("{label} (from {how}): {p}")),
            );
        }
    }
    eprintln!("compare_perf_reports: {} pairs, {files} reference files, each matched from the traces and from the report folders", pairs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sort_columns_follow_the_result_names() {
    let names = ["h100".to_string(), "mi300".to_string()];
    assert_eq!(sort_column("gpu_timeline", &names), None);
    assert_eq!(
        sort_column("GEMM_only_variant_mi300", &names).as_deref(),
        Some("mi300::Kernel Time (µs)_sum")
    );
    assert_eq!(
        sort_column("ops_unique_args_intersect_mi300", &names).as_deref(),
        Some("h100::total_direct_kernel_time_sum")
    );
}

/// The pairs of a trace with itself, where TraceLens's keys cross-join
/// duplicate rows into non-zero "diffs" (spec compare.md §8 A1): by default
/// every row matches one to one with a zero delta, and each comparison sheet
/// has one row per distinct key of the single-trace sheet.
#[test]
fn default_keys_do_not_cross_join() {
    let Some(data) = super::shared_data_or_fixtures_only() else {
        return;
    };
    let selves: Vec<Pair> = pairs(&data)
        .into_iter()
        .filter(|p| p.reports[0] == p.reports[1])
        .collect();
    assert!(selves.len() >= 3, "{} self pairs", selves.len());
    let mut cross_joined = 0;
    for pair in &selves {
        let trace = trace_of(&pair.reports[0]);
        let out = tempfile::tempdir().expect("temp dir");
        let run = tracesql()
            .args(["--platform", "none", "compare"])
            .arg(&trace)
            .arg(&trace)
            .arg("--out")
            .arg(out.path())
            .run();
        assert!(run.success(), "{}: {}", trace.display(), run.stderr);
        for sheet in [
            "compare_kernel_summary",
            "compare_unified_perf_summary",
            "compare_ops_summary",
        ] {
            let table = Table::read(&out.path().join(format!("{sheet}.csv"))).expect("sheet");
            let col = |name: &str| {
                table
                    .col(name)
                    .unwrap_or_else(|| panic!("{sheet}: no {name}"))
            };
            for row in &table.rows {
                assert_eq!(row[col("status")], "both", "{sheet}: {row:?}");
                assert_eq!(
                    row[col("delta_us")].parse::<f64>().expect("a number"),
                    0.0,
                    "{sheet}: {row:?}"
                );
                if sheet != "compare_ops_summary" {
                    assert_eq!(row[col("match_kind")], "one_to_one", "{sheet}: {row:?}");
                }
            }
        }
        // TraceLens's kernel_summary of the same pair has more rows than keys
        // where a kernel name repeats; ours has one per (category, op, kernel).
        let reference = pair.dir.join("compare_perf_reports/kernel_summary.csv");
        let Ok(theirs) = Table::read(&reference) else {
            continue;
        };
        let ours = Table::read(&out.path().join("compare_kernel_summary.csv")).expect("sheet");
        let single = Table::read(&pair.reports[0].join("kernel_summary.csv")).expect("report");
        let name = single.col("Kernel name").expect("Kernel name");
        let mut distinct: Vec<&str> = single.rows.iter().map(|r| r[name].as_str()).collect();
        distinct.sort();
        distinct.dedup();
        if theirs.rows.len() > single.rows.len() {
            cross_joined += 1;
            assert!(
                ours.rows.len() <= single.rows.len(),
                "{}: {} rows",
                trace.display(),
                ours.rows.len()
            );
            assert!(ours.rows.len() >= distinct.len());
        }
    }
    // The bert and hta self pairs are the spec's examples of the cross join.
    assert!(
        cross_joined >= 2,
        "{cross_joined} self pairs cross-join in TraceLens's output"
    );
}

/// TraceDiff's files (`tracediff/` under `--tracelens-compat --out`) are
/// byte-identical to TraceLens's on every shared pair that has them.
#[test]
fn tracediff_files_match_every_shared_pair_byte_for_byte() {
    let Some(data) = super::shared_data_or_fixtures_only() else {
        return;
    };
    let with_tracediff: Vec<Pair> = pairs(&data)
        .into_iter()
        .filter(|p| p.dir.join("tracediff").is_dir())
        .collect();
    assert!(
        with_tracediff.len() >= 4,
        "{} pairs with tracediff/",
        with_tracediff.len()
    );
    let mut failures = Vec::new();
    let mut files = 0;
    for pair in &with_tracediff {
        let out = tempfile::tempdir().expect("temp dir");
        let traces = [trace_of(&pair.reports[0]), trace_of(&pair.reports[1])];
        let run = tracesql()
            .args(["--tracelens-compat", "--platform", "none", "compare"])
            .arg(&traces[0])
            .arg(&traces[1])
            .args([
                "--names",
                &pair.names[0],
                &pair.names[1],
                "--sheets",
                "gpu_timeline",
                "--out",
            ])
            .arg(out.path())
            .run();
        assert!(run.success(), "{}: {}", pair.dir.display(), run.stderr);
        let label = pair
            .dir
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        for reference in files_under(&pair.dir.join("tracediff")) {
            files += 1;
            let name = reference
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            let ours = std::fs::read(out.path().join("tracediff").join(&name));
            let theirs = std::fs::read(&reference).expect("reference");
            match ours {
                Ok(ours) if ours == theirs => {}
                Ok(ours) => {
                    let (a, b) = (
                        String::from_utf8_lossy(&ours),
                        String::from_utf8_lossy(&theirs),
                    );
                    let line = a
                        .lines()
                        .zip(b.lines())
                        .position(|(x, y)| x != y)
                        .unwrap_or(a.lines().count().min(b.lines().count()));
                    failures.push(format!("{label}/{name}: differs from line {}", line + 1));
                }
                Err(e) => failures.push(format!("{label}/{name}: not written ({e})")),
            }
        }
    }
    eprintln!(
        "tracediff: {} pairs, {files} reference files, all byte-identical",
        with_tracediff.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
