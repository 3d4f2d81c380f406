//! Conformance of `tracesql report` with TraceLens's reference CSVs.
//!
//! For every trace `traces/<platform>/<name>.json.gz` in the conformance data
//! (with `<name>_perf_report_csvs/` beside it) this runs
//! `tracesql report <trace> --out <dir>` once, then compares each sheet of
//! [`sheets::SHEETS`] with the reference CSV of the same name (see compare.rs for
//! the rules). Differences listed in differences.csv (see DIFFERENCES.md) are
//! expected; any other difference fails the test, and so does a listed one that
//! no longer occurs.
//!
//! Environment:
//! * `TRACESQL_CONFORMANCE`: the data directory (default
//!   `<CARGO_MANIFEST_DIR>/../shared/conformance`). When it is absent the test
//!   prints "skipped: …" and passes, unless `CI=true`.
//! * `TRACESQL_CONFORMANCE_SHEETS=a,b`: check only these sheets (any sheet with
//!   a spec in sheets.rs, listed in SHEETS or not).
//! * `TRACESQL_CONFORMANCE_TRACES=bert,mi210`: only traces whose id
//!   (`<platform>/<name>`) contains one of these substrings.
//! * `TRACESQL_CONFORMANCE_LENIENT=1`: a missing sheet, or a failing report
//!   command, is reported as "missing" instead of failing the test (for
//!   working on one sheet while another is broken).
//! * `TRACESQL_CONFORMANCE_OUT=dir`: write our CSVs to `dir/<platform>/<name>/`
//!   and keep them, instead of a temporary directory.
//! * `TRACESQL_CONFORMANCE_QUERIES=dir`: pass `--queries dir` (relative to the
//!   package root) to the report command.
//! * `TRACESQL_CONFORMANCE_JOBS=n`: report commands run at once (default 4).
//! * `TRACESQL_CONFORMANCE_VERBOSE=1`: list every unexpected difference (by
//!   default 20 per sheet, with 8 ready-made differences.csv lines).
//!
//! The result table is written straight to stderr, so it shows without
//! `--nocapture`.
//!
//! The harness runs both ways: `conformance` with the defaults (every difference
//! listed, cell by cell) and `tracelens_compat_matches_exactly` with
//! `--tracelens-compat`, where every sheet of every trace must match the
//! reference with no exception.

mod collectives;
pub mod compare;
mod compare_pairs;
mod differences;
mod formats;
mod pylit;
mod sheets;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use compare::{SheetResult, Table};
use differences::Expected;

use crate::util::{package_path, tracesql};

/// This harness's data (DIFFERENCES.md, differences.csv), from
/// the package root: kept at tests/conformance/, where the project's standards
/// name them, while the code is a module of the one integration-test binary.
const DIR: &str = "tests/conformance";

/// A file or folder of this harness.
fn own_path(name: &str) -> PathBuf {
    package_path(DIR).join(name)
}

/// A trace with reference CSVs.
#[derive(Debug, Clone)]
pub struct Trace {
    /// `<platform>/<name>`, e.g. `h100/gaunernst_bert-small-uncased__1016001`.
    pub id: String,
    pub json: PathBuf,
    pub csv_dir: PathBuf,
}

/// Where the conformance data is looked for.
fn data_dir_path() -> PathBuf {
    std::env::var_os("TRACESQL_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| package_path("../shared/conformance"))
}

/// The conformance data directory, if it exists.
pub fn data_dir() -> Option<PathBuf> {
    let dir = data_dir_path();
    dir.is_dir().then_some(dir)
}

/// Every `traces/**/<name>.json.gz` with a `<name>_perf_report_csvs/` beside it,
/// sorted by id (`<platform>/<name>`).
pub fn discover_traces(data: &Path) -> Vec<Trace> {
    discover_under(&data.join("traces"), "")
}

/// The project's own conformance fixtures: `fixtures/conformance/<name>.json`
/// with TraceLens's CSVs beside it (made by `make_reference.py` there), as
/// `fixtures/<name>`. They run in every checkout, with or without ../shared.
pub fn fixture_traces() -> Vec<Trace> {
    discover_under(&package_path("fixtures/conformance"), "fixtures/")
}

/// Every fixture trace, then every shared one when the data is there.
fn traces_to_check(data: Option<&Path>) -> Vec<Trace> {
    let mut traces = fixture_traces();
    traces.extend(data.map(discover_traces).unwrap_or_default());
    traces
}

/// Traces (`.json` or `.json.gz`) under `root` with reference CSVs beside them.
fn discover_under(root: &Path, id_prefix: &str) -> Vec<Trace> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name
                .strip_suffix(".json.gz")
                .or_else(|| name.strip_suffix(".json"))
            else {
                continue;
            };
            let csv_dir = path.with_file_name(format!("{stem}_perf_report_csvs"));
            if !csv_dir.is_dir() {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_file_name(stem);
            let id = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push(Trace {
                id: format!("{id_prefix}{id}"),
                json: path,
                csv_dir,
            });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

#[derive(Debug)]
enum Outcome {
    /// The reference has no such sheet (and ours is absent or has no rows).
    NotInReference,
    /// We wrote no such CSV.
    Missing,
    Compared(SheetResult),
    /// A CSV could not be read.
    Error(String),
}

struct TraceRun {
    trace: Trace,
    /// How long the report command took, or why it failed.
    report: Result<Duration, String>,
    sheets: Vec<(&'static str, Outcome)>,
}

fn env_list(name: &str) -> Option<Vec<String>> {
    let v = std::env::var(name).ok()?;
    let items: Vec<String> = v
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    (!items.is_empty()).then_some(items)
}

fn env_flag(name: &str) -> bool {
    matches!(std::env::var(name).as_deref(), Ok("1" | "true" | "yes"))
}

/// How the report command runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// tracesql's defaults (and `TRACESQL_CONFORMANCE_QUERIES`, if set).
    Default,
    /// `--tracelens-compat`: TraceLens's behaviour, bugs included.
    Compat,
}

/// Runs `tracesql report` for one trace into `out`.
fn run_report(trace: &Trace, out: &Path, mode: Mode) -> Result<Duration, String> {
    let start = Instant::now();
    let mut cmd = tracesql()
        .arg("report")
        .arg(&trace.json)
        .arg("--out")
        .arg(out)
        // The references were made without a GPU arch (spec §9): no roofline
        // columns, whatever GPU the trace's deviceProperties names.
        .arg("--platform")
        .arg("none");
    match mode {
        Mode::Compat => cmd = cmd.arg("--tracelens-compat"),
        Mode::Default => {
            if let Some(dir) = std::env::var_os("TRACESQL_CONFORMANCE_QUERIES") {
                cmd = cmd.arg("--queries").arg(package_path(dir));
            }
        }
    }
    let output = cmd.run();
    let elapsed = start.elapsed();
    if output.success() {
        return Ok(elapsed);
    }
    let first = output
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no stderr)");
    let ended = output.code.map_or("killed by a signal".to_string(), |c| {
        format!("exit code {c}")
    });
    Err(format!(
        "{ended} after {:.1}s: {first}",
        elapsed.as_secs_f64()
    ))
}

fn sheet_outcome(trace: &Trace, sheet: &'static str, out: &Path) -> Outcome {
    let spec = sheets::spec(sheet).expect("sheet names are validated");
    let ours_path = out.join(format!("{sheet}.csv"));
    let ref_path = trace.csv_dir.join(format!("{sheet}.csv"));
    let ours = ours_path.is_file().then(|| Table::read(&ours_path));
    if !ref_path.is_file() {
        // TraceLens omits empty sheets (§8): writing one with rows is a difference.
        return match ours {
            Some(Ok(t)) if !t.rows.is_empty() => Outcome::Compared(SheetResult {
                ref_rows: 0,
                our_rows: t.rows.len(),
                matched_rows: 0,
                mismatches: vec![compare::Mismatch {
                    row_key: compare::SHEET.into(),
                    column: compare::SHEET.into(),
                    ours: compare::PRESENT.into(),
                    reference: compare::ABSENT.into(),
                    detail: Some(format!(
                        "we wrote {} rows; TraceLens has no such sheet",
                        t.rows.len()
                    )),
                }],
            }),
            Some(Err(e)) => Outcome::Error(e),
            _ => Outcome::NotInReference,
        };
    }
    let ours = match ours {
        None => return Outcome::Missing,
        Some(Err(e)) => return Outcome::Error(e),
        Some(Ok(t)) => t,
    };
    match Table::read(&ref_path) {
        Ok(reference) => Outcome::Compared(compare::compare(&spec, &ours, &reference)),
        Err(e) => Outcome::Error(e),
    }
}

fn run_trace(
    trace: &Trace,
    selected: &[&'static str],
    keep: Option<&Path>,
    mode: Mode,
) -> TraceRun {
    let tmp;
    let out: PathBuf = match keep {
        Some(base) => {
            let dir = base.join(&trace.id);
            if dir.exists() {
                std::fs::remove_dir_all(&dir).expect("clear the output directory");
            }
            std::fs::create_dir_all(&dir).expect("create the output directory");
            dir
        }
        None => {
            tmp = tempfile::tempdir().expect("temporary directory");
            tmp.path().to_path_buf()
        }
    };
    let report = run_report(trace, &out, mode);
    let sheets = selected
        .iter()
        .map(|&s| (s, sheet_outcome(trace, s, &out)))
        .collect();
    TraceRun {
        trace: trace.clone(),
        report,
        sheets,
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// The shared conformance data; without it (a fresh clone) the harness checks
/// the fixtures only, unless CI=true, which requires the data.
fn shared_data_or_fixtures_only() -> Option<PathBuf> {
    let data = data_dir();
    if data.is_none() {
        let path = data_dir_path();
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!(
                "conformance data not found at {} (set TRACESQL_CONFORMANCE); CI=true requires it",
                path.display()
            );
        }
        eprintln!(
            "conformance data not found at {} (set TRACESQL_CONFORMANCE): checking fixtures/conformance only",
            path.display()
        );
    }
    data
}

#[test]
fn conformance() {
    let mut log = String::new();
    let data = shared_data_or_fixtures_only();

    // Which sheets and traces.
    let selected: Vec<&'static str> = match env_list("TRACESQL_CONFORMANCE_SHEETS") {
        Some(names) => names
            .iter()
            .map(|n| match sheets::spec(n) {
                Some(s) => s.name,
                None => panic!(
                    "TRACESQL_CONFORMANCE_SHEETS: unknown sheet {n:?}; known: {}",
                    sheets::SPECS
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect(),
        None => sheets::SHEETS.to_vec(),
    };
    let all_traces = traces_to_check(data.as_deref());
    if let Some(data) = &data {
        assert!(
            !discover_traces(data).is_empty(),
            "no traces with reference CSVs under {}",
            data.display()
        );
    }
    let traces: Vec<Trace> = match env_list("TRACESQL_CONFORMANCE_TRACES") {
        Some(filters) => all_traces
            .iter()
            .filter(|t| filters.iter().any(|f| t.id.contains(f.as_str())))
            .cloned()
            .collect(),
        None => all_traces.clone(),
    };
    assert!(
        !traces.is_empty(),
        "TRACESQL_CONFORMANCE_TRACES matches no trace"
    );
    // A sheet we do not write (a failing report command included) fails the
    // test unless asked otherwise, so that a broken report cannot pass as
    // "missing".
    let strict = !env_flag("TRACESQL_CONFORMANCE_LENIENT");
    let keep = std::env::var_os("TRACESQL_CONFORMANCE_OUT").map(PathBuf::from);
    let jobs = std::env::var("TRACESQL_CONFORMANCE_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or(4)
        .clamp(1, traces.len());

    let diff_path = own_path("differences.csv");
    let expected: Vec<Expected> = differences::load(&diff_path).unwrap_or_else(|e| panic!("{e}"));

    let runs = run_traces(&traces, &selected, keep.as_deref(), Mode::Default, jobs);

    // Split the differences into expected and unexpected.
    let mut failures: Vec<String> = Vec::new();
    let mut used = vec![false; expected.len()];
    let mut evaluated = vec![false; expected.len()];
    // (trace, sheet) → (unexpected, number of expected)
    let mut verdicts: BTreeMap<(String, &str), (Vec<compare::Mismatch>, usize)> = BTreeMap::new();
    for run in &runs {
        for (sheet, outcome) in &run.sheets {
            let Outcome::Compared(result) = outcome else {
                continue;
            };
            for (i, e) in expected.iter().enumerate() {
                evaluated[i] |= e.covers_sheet(&run.trace.id, sheet);
            }
            let mut unexpected = Vec::new();
            let mut known = 0;
            for m in &result.mismatches {
                let mut hit = false;
                for (i, e) in expected.iter().enumerate() {
                    if e.matches(&run.trace.id, sheet, m) {
                        used[i] = true;
                        hit = true;
                    }
                }
                if hit {
                    known += 1;
                } else {
                    unexpected.push(m.clone());
                }
            }
            verdicts.insert((run.trace.id.clone(), sheet), (unexpected, known));
        }
    }

    // The table: one row per sheet, one column per trace.
    let source = data.as_ref().map_or("fixtures only".to_string(), |d| {
        format!("fixtures/conformance and {}", d.display())
    });
    let _ = writeln!(log, "\nconformance with TraceLens ({source})");
    let mut header = vec!["sheet".to_string()];
    header.extend((1..=runs.len()).map(|i| format!("T{i}")));
    let mut grid = vec![header];
    let (mut n_ok, mut n_bad, mut n_missing, mut n_na) = (0, 0, 0, 0);
    for (s, &sheet) in selected.iter().enumerate() {
        let mut line = vec![sheet.to_string()];
        for run in &runs {
            let cell = match &run.sheets[s].1 {
                Outcome::NotInReference => {
                    n_na += 1;
                    "n/a".to_string()
                }
                Outcome::Missing => {
                    n_missing += 1;
                    "missing".to_string()
                }
                Outcome::Error(_) => {
                    n_bad += 1;
                    "error".to_string()
                }
                Outcome::Compared(r) => {
                    let (unexpected, known) = &verdicts[&(run.trace.id.clone(), sheet)];
                    if unexpected.is_empty() {
                        n_ok += 1;
                        let known = if *known > 0 {
                            format!(" +{known} known")
                        } else {
                            String::new()
                        };
                        format!("✓ {}/{}{known}", r.matched_rows, r.ref_rows)
                    } else {
                        n_bad += 1;
                        format!("✗ {}", unexpected.len())
                    }
                }
            };
            line.push(cell);
        }
        grid.push(line);
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| {
            grid.iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &grid {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
            .collect();
        let _ = writeln!(log, "  {}", cells.join("  ").trim_end());
    }
    let _ = writeln!(log);
    for (i, run) in runs.iter().enumerate() {
        let report = match &run.report {
            Ok(d) => format!("report {:.1}s", d.as_secs_f64()),
            Err(e) => format!("report failed: {}", truncate(e, 160)),
        };
        let _ = writeln!(log, "  T{:<3} {}  ({report})", i + 1, run.trace.id);
        if run.report.is_err() && strict {
            failures.push(format!("{}: the report command failed", run.trace.id));
        }
    }
    let _ = writeln!(
        log,
        "\n  {n_ok} sheets match, {n_bad} differ or failed, {n_missing} missing, {n_na} n/a ({} known differences in differences.csv)",
        expected.len()
    );

    // Reference sheets not checked in this run.
    let mut unchecked: BTreeMap<String, usize> = BTreeMap::new();
    for t in &traces {
        for entry in std::fs::read_dir(&t.csv_dir)
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(sheet) = name.strip_suffix(".csv") {
                if !selected.contains(&sheet) && !sheets::SHEETS.contains(&sheet) {
                    *unchecked.entry(sheet.to_string()).or_default() += 1;
                }
            }
        }
    }
    if !unchecked.is_empty() {
        let list: Vec<String> = unchecked
            .iter()
            .map(|(s, n)| format!("{s} ({n})"))
            .collect();
        let _ = writeln!(
            log,
            "  reference sheets not yet in SHEETS ({DIR}/sheets.rs): {}",
            list.join(", ")
        );
    }

    // Details.
    let verbose = env_flag("TRACESQL_CONFORMANCE_VERBOSE");
    let (shown, suggested) = if verbose {
        (usize::MAX, usize::MAX)
    } else {
        (20, 8)
    };
    for run in &runs {
        for (sheet, outcome) in &run.sheets {
            let id = &run.trace.id;
            match outcome {
                Outcome::Error(e) => {
                    let _ = writeln!(log, "\n✗ {id} {sheet}: {e}");
                    failures.push(format!("{id} {sheet}: {e}"));
                }
                Outcome::Missing if strict => failures.push(format!("{id} {sheet}: missing")),
                Outcome::Compared(r) => {
                    let (unexpected, _) = &verdicts[&(id.clone(), *sheet)];
                    if unexpected.is_empty() {
                        continue;
                    }
                    failures.push(format!(
                        "{id} {sheet}: {} unexpected differences",
                        unexpected.len()
                    ));
                    let _ = writeln!(
                        log,
                        "\n✗ {id} {sheet}: {} unexpected differences ({} rows ours, {} reference, {} matched)",
                        unexpected.len(),
                        r.our_rows,
                        r.ref_rows,
                        r.matched_rows
                    );
                    for m in unexpected.iter().take(shown) {
                        let detail = m
                            .detail
                            .as_deref()
                            .map(|d| format!("  — {}", truncate(d, 200)))
                            .unwrap_or_default();
                        let _ = writeln!(
                            log,
                            "    [{}] {}: ours {:?}, reference {:?}{detail}",
                            truncate(&m.row_key, 160),
                            m.column,
                            truncate(&m.ours, 120),
                            truncate(&m.reference, 120)
                        );
                    }
                    if unexpected.len() > shown {
                        let _ = writeln!(
                            log,
                            "    … and {} more (TRACESQL_CONFORMANCE_VERBOSE=1 shows all)",
                            unexpected.len() - shown
                        );
                    }
                    let _ = writeln!(
                        log,
                        "  if deliberate, explain in DIFFERENCES.md and add to differences.csv:"
                    );
                    for m in unexpected.iter().take(suggested) {
                        let _ = writeln!(log, "    {}", differences::csv_line(id, sheet, m));
                    }
                    if unexpected.len() > suggested {
                        let _ = writeln!(log, "    …");
                    }
                }
                _ => {}
            }
        }
    }

    // The list of expected differences must stay true.
    let trace_ids: Vec<&str> = all_traces.iter().map(|t| t.id.as_str()).collect();
    for (i, e) in expected.iter().enumerate() {
        let where_ = format!("differences.csv line {}", e.line);
        let shared_entry = !e.trace.starts_with("fixtures/");
        if e.trace != "*" && !trace_ids.contains(&e.trace.as_str()) {
            // Without the shared data only the fixtures' entries can be checked.
            if data.is_some() || !shared_entry {
                failures.push(format!("{where_}: no trace {:?}", e.trace));
            }
        } else if e.sheet != "*" && sheets::spec(&e.sheet).is_none() {
            failures.push(format!("{where_}: no sheet {:?}", e.sheet));
        } else if evaluated[i] && !used[i] {
            failures.push(format!(
                "{where_}: {} {} [{}] {} no longer differs; remove it (and its note in DIFFERENCES.md)",
                e.trace, e.sheet, e.row_key, e.column
            ));
        }
    }

    if !failures.is_empty() {
        let _ = writeln!(log, "\nconformance failures:");
        for f in &failures {
            let _ = writeln!(log, "  {f}");
        }
    }
    let _ = std::io::stderr().write_all(log.as_bytes());
    assert!(
        failures.is_empty(),
        "{} conformance failures (table above)",
        failures.len()
    );
}

/// Runs the report command per trace, `jobs` at a time; the runs in trace order.
fn run_traces(
    traces: &[Trace],
    selected: &[&'static str],
    keep: Option<&Path>,
    mode: Mode,
    jobs: usize,
) -> Vec<TraceRun> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<TraceRun>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, traces.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(trace) = traces.get(i) else { break };
                let run = run_trace(trace, selected, keep, mode);
                results.lock().unwrap().push(run);
            });
        }
    });
    let mut runs = results.into_inner().unwrap();
    runs.sort_by(|a, b| a.trace.id.cmp(&b.trace.id));
    runs
}

/// With `--tracelens-compat` every sheet of every trace matches TraceLens's
/// reference exactly: the differences DIFFERENCES.md lists are all switched off
/// by the one flag, and nothing else differs.
#[test]
fn tracelens_compat_matches_exactly() {
    let data = shared_data_or_fixtures_only();
    let traces = traces_to_check(data.as_deref());
    assert!(!traces.is_empty(), "no conformance traces");
    let runs = run_traces(&traces, sheets::SHEETS, None, Mode::Compat, 4);
    let mut failures = Vec::new();
    let mut compared = 0;
    for run in &runs {
        let id = &run.trace.id;
        if let Err(e) = &run.report {
            failures.push(format!("{id}: the report failed: {e}"));
            continue;
        }
        for (sheet, outcome) in &run.sheets {
            match outcome {
                Outcome::Compared(r) => {
                    compared += 1;
                    for m in r.mismatches.iter().take(3) {
                        failures.push(format!(
                            "{id} {sheet} [{}] {}: ours {:?}, reference {:?}",
                            truncate(&m.row_key, 120),
                            m.column,
                            truncate(&m.ours, 80),
                            truncate(&m.reference, 80)
                        ));
                    }
                }
                Outcome::NotInReference => {}
                Outcome::Missing => failures.push(format!("{id} {sheet}: missing")),
                Outcome::Error(e) => failures.push(format!("{id} {sheet}: {e}")),
            }
        }
    }
    eprintln!(
        "tracelens-compat: {compared} sheets of {} traces compared, {} differences",
        runs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "with --tracelens-compat:\n  {}",
        failures.join("\n  ")
    );
    // Guard against a vacuous pass: every trace has sheets to compare.
    assert!(
        compared >= runs.len() * 5,
        "only {compared} sheets compared"
    );
}
