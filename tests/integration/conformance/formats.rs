//! Conformance on the non-Kineto inputs: `tracesql report --tracelens-compat`
//! on each trace of `../shared/conformance/formats/<format>/<trace>/` against
//! TraceLens's sheets in `refs/<report>/` (see that folder's README).
//!
//! Sheets are compared as multisets of rows (several TraceLens sorts leave ties
//! unordered), cells by [`compare::cells_equal`] (numbers within 1e-6
//! relative, an integer never equal to a float). Every reference folder is
//! either checked here ([`CHECKED`]) or named in [`NOT_YET`] with the reason:
//! a new folder in the data fails the test until it is one or the other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::compare::{cells_equal, Table};
use super::data_dir;
use crate::util::tracesql;

/// The `--set` options that reproduce TraceLens's option variants
/// (conformance/formats/README.md says which options made each folder).
const HIP_API_ALL: &[&str] = &[
    "pftrace.include_nonlaunch_apis=true",
    "pftrace.allow_multi_kernel_per_api=true",
];
const ACTIVITY_VARIANT: &[&str] = &[
    "pftrace.merge_kernels=true",
    "pftrace.kernel_summary_group=name",
    "pftrace.kernel_summary_include_rccl=true",
    "pftrace.kernel_summary_baseline=compute",
    "pftrace.hip_summary_group=name+stream+op",
    // "low enough that no event of these traces is dropped": any value ≤ 2 µs.
    "pftrace.min_event_ns=1",
];

/// (format folder, report folder, `--set` options, the sheets that report writes).
type Checked = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

const CHECKED: &[Checked] = &[
    (
        "rocprof",
        "perf_report",
        &[],
        &[
            "gpu_timeline",
            "kernel_summary",
            "kernel_summary_by_category",
            "kernel_details",
            "short_kernels_summary",
            "short_kernel_histogram",
        ],
    ),
    ("pftrace", "hip_api", &[], &["api_kernel_summary"]),
    (
        "pftrace",
        "hip_api_all",
        HIP_API_ALL,
        &["api_kernel_summary"],
    ),
    (
        "pftrace",
        "activity",
        &[],
        &[
            "category_summary",
            "xla_top",
            "kernel_summary",
            "hip_summary",
        ],
    ),
    (
        "pftrace",
        "activity_variant",
        ACTIVITY_VARIANT,
        &[
            "category_summary",
            "xla_top",
            "kernel_summary",
            "hip_summary",
        ],
    ),
    (
        "pftrace",
        "memory_copy",
        &[],
        &["memory_copy_by_copy_bytes"],
    ),
    ("jax", "perf_report", &[], JAX_SHEETS),
    // TraceLens's own report aborts on jax_te_fused_attn (packed-QKV attention,
    // FAILED.txt); this folder holds the sheets it writes when each perf-model
    // category runs on its own. Ours writes them without help.
    ("jax", "perf_report_tolerant", &[], JAX_SHEETS),
    // TraceLens's JAX analysis report fails on every trace (refs/analysis/
    // FAILED.txt); this folder holds what it prints once the GPU metadata it
    // lacks is attached. Its files are named as [`RENAMED`] says.
    ("jax", "analysis_patched", &[], JAX_ANALYSIS_SHEETS),
];

/// The JAX analysis report's sheets (spec formats.md §C.8), as TraceLens's
/// file suffixes.
const JAX_ANALYSIS_SHEETS: &[&str] = &[
    "gpu_events_averages",
    "gpu_events_categorized_mean",
    "xla_grouped",
    "gemms",
    "gemms_detailed",
];

/// Reference folders whose files are not named after our sheets: (format
/// folder, report folder, reference file prefix, our sheet prefix). Sheet `x`
/// of such a [`CHECKED`] entry is `<reference prefix>x.csv` in the reference
/// folder and `<our prefix>x.csv` in our output.
const RENAMED: &[(&str, &str, &str, &str)] = &[(
    "jax",
    "analysis_patched",
    "trace_analysis_results_",
    "jax_analysis_",
)];

/// The (reference, ours) file name prefixes of a report folder's sheets.
fn sheet_prefixes(format: &str, report: &str) -> (&'static str, &'static str) {
    RENAMED
        .iter()
        .find(|(f, r, _, _)| *f == format && *r == report)
        .map_or(("", ""), |(_, _, theirs, ours)| (*theirs, *ours))
}

/// The JAX perf report's sheets (spec formats.md §C.7).
const JAX_SHEETS: &[&str] = &[
    "gpu_timeline",
    "gpu_events_averages",
    "kernel_launchers",
    "kernel_launchers_summary",
    "kernel_launchers_summary_by_category",
    "kernel_launchers_unique_args",
    "df_xla_perf",
    "xla_summary",
    "op_gemm",
    "op_conv",
];

/// Columns left out of the comparison: TraceLens numbers events after xprof's
/// derived timeline lines, which we do not emulate, so UIDs agree on the first
/// GPU only (spec formats.md §C.5; the conformance README says to ignore them).
const IGNORED_COLUMNS: &[&str] = &["UID", "ex_UID", "UID_first"];

/// Reference folders not checked yet, and why.
const NOT_YET: &[(&str, &str, &str)] = &[
    (
        "jax",
        "analysis",
        "TraceLens's JAX analysis report fails on every trace (FAILED.txt only); analysis_patched is checked instead",
    ),
    (
        "jax",
        "xprof",
        "xprof's JSON export and HLO text, an intermediate: checked by jax.rs",
    ),
];

/// What `--format-hint` names each format folder (needed for an empty
/// Perfetto trace, which has no category to tell it by).
fn hint(format: &str) -> &'static str {
    match format {
        "rocprof" => "rocprofv3",
        "pftrace" => "pftrace",
        "jax" => "jax",
        _ => "kineto",
    }
}

/// One trace of the formats data: its input and its reference folders.
struct FormatTrace {
    format: String,
    name: String,
    input: PathBuf,
    reports: BTreeMap<String, PathBuf>,
}

fn discover(root: &Path) -> Vec<FormatTrace> {
    let mut out = Vec::new();
    let dirs = |p: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    for format_dir in dirs(root) {
        for trace_dir in dirs(&format_dir) {
            let name = file_name(&trace_dir);
            let input = std::fs::read_dir(&trace_dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .find(|p| p.is_file() && file_name(p).starts_with(&name));
            let Some(input) = input else { continue };
            let reports = dirs(&trace_dir.join("refs"))
                .into_iter()
                .map(|p| (file_name(&p), p))
                .collect();
            out.push(FormatTrace {
                format: file_name(&format_dir),
                name,
                input,
                reports,
            });
        }
    }
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}

/// Rows of `ours` and `reference` that have no equal row on the other side.
fn unmatched(ours: &[Vec<String>], reference: &[Vec<String>]) -> (Vec<usize>, Vec<usize>) {
    // Pair rows in a canonical order first (numbers by value): equal rows line
    // up, and only the few left over are matched pairwise.
    let key = |row: &Vec<String>| -> Vec<(u8, f64, String)> {
        row.iter()
            .map(|c| match c.parse::<f64>() {
                Ok(v) if !v.is_nan() => (0, v, String::new()),
                _ => (1, 0.0, c.clone()),
            })
            .collect()
    };
    let order = |rows: &[Vec<String>]| -> Vec<usize> {
        let keys: Vec<_> = rows.iter().map(key).collect();
        let mut idx: Vec<usize> = (0..rows.len()).collect();
        idx.sort_by(|&a, &b| {
            keys[a]
                .iter()
                .zip(&keys[b])
                .map(|(x, y)| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2)))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        idx
    };
    let same = |a: &Vec<String>, b: &Vec<String>| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| cells_equal(x, y))
    };
    let (ours_sorted, ref_sorted) = (order(ours), order(reference));
    let (mut left_ours, mut left_ref) = (Vec::new(), Vec::new());
    for (&o, &r) in ours_sorted.iter().zip(&ref_sorted) {
        if !same(&ours[o], &reference[r]) {
            left_ours.push(o);
            left_ref.push(r);
        }
    }
    left_ours.extend(ours_sorted.iter().skip(ref_sorted.len()));
    left_ref.extend(ref_sorted.iter().skip(ours_sorted.len()));
    // Pairwise among the rest.
    left_ref.retain(|&r| {
        match left_ours
            .iter()
            .position(|&o| same(&ours[o], &reference[r]))
        {
            Some(i) => {
                left_ours.remove(i);
                false
            }
            None => true,
        }
    });
    (left_ours, left_ref)
}

/// `table` without the [`IGNORED_COLUMNS`].
fn without_ignored(table: Table) -> Table {
    let keep: Vec<usize> = (0..table.header.len())
        .filter(|&i| !IGNORED_COLUMNS.contains(&table.header[i].as_str()))
        .collect();
    let pick = |row: &Vec<String>| keep.iter().map(|&i| row[i].clone()).collect();
    Table {
        header: pick(&table.header),
        rows: table.rows.iter().map(pick).collect(),
    }
}

/// Why one sheet differs from its reference; None when it matches.
fn sheet_problem(ours_path: &Path, ref_path: &Path) -> Option<String> {
    let reference = match Table::read(ref_path) {
        Ok(t) => t,
        Err(e) => return Some(format!("reference unreadable: {e}")),
    };
    let ref_text = std::fs::read_to_string(ref_path).unwrap_or_default();
    let ours_text = match std::fs::read_to_string(ours_path) {
        Ok(t) => t,
        Err(_) => return Some("we wrote no such sheet".into()),
    };
    // An empty sheet is a lone newline or a header: the file must match.
    if reference.rows.is_empty() && ref_text.trim().is_empty() != ours_text.trim().is_empty() {
        return Some(format!(
            "empty sheet written as {:?}, TraceLens writes {:?}",
            ours_text, ref_text
        ));
    }
    let ours = match Table::parse(&ours_text) {
        Ok(t) => without_ignored(t),
        Err(e) => return Some(format!("ours unreadable: {e}")),
    };
    let reference = without_ignored(reference);
    if ours.header != reference.header {
        return Some(format!(
            "header {:?}, TraceLens {:?}",
            ours.header, reference.header
        ));
    }
    let (extra, missing) = unmatched(&ours.rows, &reference.rows);
    if extra.is_empty() && missing.is_empty() {
        return None;
    }
    let show = |rows: &[Vec<String>], idx: &[usize]| -> String {
        idx.iter()
            .take(3)
            .map(|&i| rows[i].join(","))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    Some(format!(
        "{} rows only ours ({}), {} only TraceLens's ({})",
        extra.len(),
        show(&ours.rows, &extra),
        missing.len(),
        show(&reference.rows, &missing)
    ))
}

#[test]
fn formats_reference_folders_are_all_accounted_for() {
    let Some(data) = data_dir() else {
        eprintln!("skipped: no conformance data");
        return;
    };
    let traces = discover(&data.join("formats"));
    assert!(traces.len() >= 13, "found {} traces", traces.len());
    for trace in &traces {
        for report in trace.reports.keys() {
            let known = CHECKED
                .iter()
                .any(|(f, r, _, _)| *f == trace.format && r == report)
                || NOT_YET
                    .iter()
                    .any(|(f, r, _)| *f == trace.format && r == report);
            assert!(
                known,
                "{}/{}: reference folder {report} is neither checked nor listed in NOT_YET",
                trace.format, trace.name
            );
        }
    }
}

#[test]
fn formats_match_tracelens_under_compat() {
    let Some(data) = data_dir() else {
        eprintln!("skipped: no conformance data");
        return;
    };
    let mut problems = Vec::new();
    let mut matched = 0;
    for trace in discover(&data.join("formats")) {
        let checked: Vec<&Checked> = CHECKED
            .iter()
            .filter(|(f, r, _, _)| *f == trace.format && trace.reports.contains_key(*r))
            .collect();
        // One report run per set of options, checked against each folder made so.
        for (_, report, settings, sheets) in checked {
            let out = tempfile::tempdir().expect("temp dir");
            let mut cmd = tracesql().arg("--format-hint").arg(hint(&trace.format));
            for setting in *settings {
                cmd = cmd.arg("--set").arg(setting);
            }
            let run = cmd
                .arg("report")
                .arg(&trace.input)
                .arg("--tracelens-compat")
                .arg("--platform")
                .arg("none")
                .arg("--out")
                .arg(out.path())
                .run();
            if !run.success() {
                problems.push(format!(
                    "{}/{} {report}: report failed: {}",
                    trace.format, trace.name, run.stderr
                ));
                continue;
            }
            let refs = &trace.reports[*report];
            let (ref_prefix, our_prefix) = sheet_prefixes(&trace.format, report);
            for sheet in *sheets {
                let ref_path = refs.join(format!("{ref_prefix}{sheet}.csv"));
                if !ref_path.is_file() {
                    continue;
                }
                let ours = out.path().join(format!("{our_prefix}{sheet}.csv"));
                match sheet_problem(&ours, &ref_path) {
                    None => matched += 1,
                    Some(p) => problems.push(format!(
                        "{}/{} {report}/{sheet}: {p}",
                        trace.format, trace.name
                    )),
                }
            }
        }
    }
    eprintln!(
        "formats conformance: {matched} sheets match, {} differ",
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(matched >= 138, "only {matched} sheets compared");
}

#[test]
fn unmatched_rows_are_found_whatever_the_order() {
    let rows = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    };
    let ours = rows(&[&["a", "1.0"], &["b", "2"], &["a", "3.0000000001"]]);
    let reference = rows(&[&["a", "3.0"], &["a", "1.0"], &["c", "2"]]);
    let (extra, missing) = unmatched(&ours, &reference);
    assert_eq!(extra, vec![1]);
    assert_eq!(missing, vec![2]);
    let reference = rows(&[&["a", "3.0"], &["a", "1"], &["b", "2"]]);
    let (extra, missing) = unmatched(&ours, &reference);
    assert_eq!((extra, missing), (vec![0], vec![1]), "1.0 is not 1");
}
