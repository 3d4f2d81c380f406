//! HTA's analyses (queries/hta/) against HTA's own outputs on the same traces.
//!
//! `tests/hta/refs.py` installs HTA from PyPI in a throwaway virtual
//! environment and writes its outputs for the shared traces, the shared
//! multi-rank sets and a few fixtures of ours, once, under target/hta-refs
//! (TRACESQL_HTA_REFS names another folder). Each analysis must equal HTA's
//! numbers under `--param hta.compat=true`, and by default too, except on
//! the sets DIFFERENCES.md lists (asserted to differ). Where HTA raises, our
//! answer is pinned.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::util::{package_path, tracesql};

/// Where our answer differs from HTA's (tests/conformance/DIFFERENCES.md,
/// "HTA"): the analysis, the set, whether it differs under `hta.compat` too
/// (an HTA bug compat cannot reproduce), and why.
const DIFFERS: &[(&str, &str, bool, &str)] = &[
    (
        "temporal_breakdown",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "HTA's whole-µs rounding gives 77 sub-µs kernels a negative length",
    ),
    (
        "temporal_breakdown",
        "fixtures/gpu_only",
        false,
        "ROCm's copy kernels are memory, not computation",
    ),
    (
        "temporal_breakdown",
        "fixtures/moe_step",
        false,
        "DeepEP's kernels are communication",
    ),
    (
        "temporal_breakdown",
        "fixtures/decode_step",
        false,
        "the custom all-reduce kernels are communication",
    ),
    (
        "idle_time_breakdown",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "a sub-µs kernel ends where it starts, not before: 30 µs of host wait",
    ),
    (
        "idle_time_breakdown",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        true,
        "HTA takes a launch outside the trace for the event in its row 0",
    ),
    (
        "idle_time_breakdown",
        "collectives/dlrm8_param",
        true,
        "HTA takes a launch outside the trace for the event in its row 0",
    ),
    (
        "gpu_kernel_breakdown",
        "fixtures/gpu_only",
        false,
        "ROCm's copy kernels are memory, not computation",
    ),
    (
        "gpu_kernel_breakdown",
        "fixtures/moe_step",
        false,
        "DeepEP's kernels are communication",
    ),
    (
        "gpu_kernel_breakdown",
        "fixtures/decode_step",
        false,
        "the custom all-reduce kernels are communication",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "fixtures/gpu_only",
        false,
        "ROCm's copy kernels are memory, not computation",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "fixtures/moe_step",
        false,
        "DeepEP's kernels are communication",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "fixtures/decode_step",
        false,
        "the custom all-reduce kernels are communication",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/h100/Falconsai_nsfw_image_detection__1016002",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/h100/gaunernst_bert-small-uncased__1016001",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/hta/ns_resolution_rank0",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/mi210/gpu_only_trace",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/mi300/facebook_timesformer-base-finetuned-k400__1016002",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/mi300/gaunernst_bert-small-uncased__1016001",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "collectives/dlrm8_param",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "sub-µs work ends where it starts, not before; and HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "sub-µs work ends where it starts, not before; and HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "gpu_kernel_breakdown_kernels",
        "traces/normalization/normalization_layer_test",
        false,
        "HTA's statistics of grouped kernels are over per-name totals",
    ),
    (
        "comm_comp_overlap",
        "fixtures/moe_step",
        false,
        "DeepEP's kernels are communication",
    ),
    (
        "cuda_kernel_launch_stats",
        "fixtures/gpu_only",
        false,
        "HTA counts no hip* launch: 4 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "fixtures/nccl_graph",
        false,
        "graph launches and cuLaunchKernel count: 7 rows vs 3",
    ),
    (
        "cuda_kernel_launch_stats",
        "fixtures/integer_times",
        false,
        "cuLaunchKernel counts: 16 rows vs 14",
    ),
    (
        "cuda_kernel_launch_stats",
        "fixtures/moe_step",
        false,
        "cuLaunchKernel counts: 7 rows vs 6",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/h100/Falconsai_nsfw_image_detection__1016002",
        false,
        "Triton's cuLaunchKernel counts: 156 rows vs 107",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "one cuLaunchKernel counts; 18 sub-µs memsets last 0 µs, not -1",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/h100/gaunernst_bert-small-uncased__1016001",
        false,
        "Triton's cuLaunchKernel counts: 61 rows vs 39",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "725 cuLaunchKernel launches count",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/mi210/gpu_only_trace",
        false,
        "HTA counts no hip* launch: 562 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/mi300/facebook_timesformer-base-finetuned-k400__1016002",
        false,
        "HTA counts no hip* launch: 449 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/mi300/gaunernst_bert-small-uncased__1016001",
        false,
        "HTA counts no hip* launch: 61 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/normalization/normalization_layer_test",
        false,
        "HTA counts no hip* launch: 173 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "traces/triton/trace",
        false,
        "HTA counts no hip* launch: 12 rows here, none in HTA",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_a2av_ep4",
        false,
        "NCCL's cuLaunchKernelEx counts: 16 rows vs 8",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_a2av_stream2",
        false,
        "NCCL's cuLaunchKernelEx counts: 8 rows vs 4",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_clock4",
        false,
        "NCCL's cuLaunchKernelEx counts: 32 rows vs 16",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_meta4",
        false,
        "NCCL's cuLaunchKernelEx counts: 96 rows vs 48",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_mismatch2",
        false,
        "NCCL's cuLaunchKernelEx counts: 14 rows vs 7",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_shifted2",
        false,
        "NCCL's cuLaunchKernelEx counts: 14 rows vs 7",
    ),
    (
        "cuda_kernel_launch_stats",
        "collectives/synth_spmg",
        false,
        "NCCL's cuLaunchKernelEx counts: 12 rows vs 6",
    ),
    (
        "aten_op_kernels_and_delay",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "3 launches whose op and inner op start in the same µs go to the inner op",
    ),
    (
        "queue_length_time_series",
        "fixtures/nccl_graph",
        false,
        "a graph launch queues each kernel it starts",
    ),
    (
        "queue_length_time_series",
        "traces/mi300/gaunernst_bert-small-uncased__1016001",
        false,
        "hipModuleLaunchKernel launches queue too",
    ),
    (
        "queue_length_time_series",
        "traces/triton/trace",
        false,
        "hipModuleLaunchKernel launches queue too",
    ),
    (
        "queue_length_time_series",
        "traces/normalization/normalization_layer_test",
        false,
        "synchronous hipMemset calls queue too",
    ),
    (
        "queue_length_time_series",
        "collectives/synth_spmg",
        false,
        "one queue per GPU and stream: two GPUs' stream 7 are two queues",
    ),
    (
        "queue_length_summary",
        "fixtures/nccl_graph",
        false,
        "a graph launch queues each kernel it starts",
    ),
    (
        "queue_length_summary",
        "traces/mi300/gaunernst_bert-small-uncased__1016001",
        false,
        "hipModuleLaunchKernel launches queue too",
    ),
    (
        "queue_length_summary",
        "traces/triton/trace",
        false,
        "hipModuleLaunchKernel launches queue too",
    ),
    (
        "queue_length_summary",
        "traces/normalization/normalization_layer_test",
        false,
        "synchronous hipMemset calls queue too",
    ),
    (
        "queue_length_summary",
        "collectives/synth_spmg",
        false,
        "one queue per GPU and stream: two GPUs' stream 7 are two queues",
    ),
    (
        "memory_bw_time_series",
        "fixtures/gpu_only",
        false,
        "ROCm's CopyDeviceToHost is a copy",
    ),
    (
        "memory_bw_time_series",
        "fixtures/integer_times",
        false,
        "a copy without the bandwidth argument gets bytes / duration",
    ),
    (
        "memory_bw_time_series",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "a sub-µs copy or set lasts 1 µs, not a negative length",
    ),
    (
        "memory_bw_time_series",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "a sub-µs copy or set lasts 1 µs, not a negative length",
    ),
    (
        "memory_bw_time_series",
        "traces/hta/ns_resolution_rank0",
        false,
        "at one µs an end comes before a start: back-to-back copies do not overlap",
    ),
    (
        "memory_bw_summary",
        "fixtures/gpu_only",
        false,
        "ROCm's CopyDeviceToHost is a copy",
    ),
    (
        "memory_bw_summary",
        "fixtures/integer_times",
        false,
        "a copy without the bandwidth argument gets bytes / duration",
    ),
    (
        "memory_bw_summary",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "a sub-µs copy or set lasts 1 µs, not a negative length",
    ),
    (
        "memory_bw_summary",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "a sub-µs copy or set lasts 1 µs, not a negative length",
    ),
    (
        "memory_bw_summary",
        "traces/hta/ns_resolution_rank0",
        false,
        "at one µs an end comes before a start: back-to-back copies do not overlap",
    ),
    (
        "comm_comp_overlap",
        "fixtures/decode_step",
        false,
        "the custom all-reduce kernels are communication",
    ),
    (
        "critical_path_summary",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "17 sub-µs kernels on the path last 0 µs, not HTA's -1 µs",
    ),
    (
        "critical_path_summary",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "17 sub-µs kernels on the path last 0 µs, not HTA's -1 µs",
    ),
    (
        "critical_path",
        "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
        false,
        "17 sub-µs kernels on the path last 0 µs, not HTA's -1 µs",
    ),
    (
        "critical_path",
        "traces/h100/google_owlv2-large-patch14-ensemble__1016001",
        false,
        "17 sub-µs kernels on the path last 0 µs, not HTA's -1 µs",
    ),
];

/// The analyses compared (refs.py's ANALYSES).
const ANALYSES: &[&str] = &[
    "temporal_breakdown",
    "idle_time_breakdown",
    "gpu_kernel_breakdown",
    "gpu_kernel_breakdown_kernels",
    "comm_comp_overlap",
    "frequent_cuda_kernel_sequences",
    "cuda_kernel_launch_stats",
    "aten_op_kernels_and_delay",
    "queue_length_time_series",
    "queue_length_summary",
    "memory_bw_time_series",
    "memory_bw_summary",
    "critical_path_summary",
    "critical_path",
];

/// The columns of a report that HTA's reference has, where the report has
/// more (critical_path's uids and names are ours; HTA's edges are compared
/// by where they leave and reach, in HTA's time from its origin).
const COLUMNS: &[(&str, &str)] = &[(
    "critical_path",
    "rank, src_ts - t0 AS src_ts, src, dst_ts - t0 AS dst_ts, dst, duration, type, bound_by",
)];

/// Parameters an analysis runs with, in refs.py and here (HTA has no default
/// operator; ours is every top-level ATen op).
const PARAMS: &[(&str, &[&str])] = &[(
    "frequent_cuda_kernel_sequences",
    &["hta.operator_name=aten::linear", "hta.min_pattern_len=1"],
)];

/// HTA's outputs, generated on first use (and again when refs.py has
/// analyses the folder lacks).
fn refs() -> &'static Path {
    static REFS: OnceLock<PathBuf> = OnceLock::new();
    REFS.get_or_init(|| {
        let dir = std::env::var_os("TRACESQL_HTA_REFS")
            .map(PathBuf::from)
            .unwrap_or_else(|| package_path("target/hta-refs"));
        let done = std::fs::read_to_string(dir.join("done")).unwrap_or_default();
        let listed = done.lines().nth(1).unwrap_or_default();
        if !ANALYSES.iter().all(|a| listed.split(',').any(|l| l == *a)) {
            let mut script = std::process::Command::new("python3");
            script
                .arg(package_path("tests/hta/refs.py"))
                .arg("--out")
                .arg(&dir);
            if let Some(shared) = crate::util::conformance_dir() {
                script.arg("--shared").arg(shared);
            }
            let out = script.output().expect("python3 runs tests/hta/refs.py");
            assert!(
                out.status.success(),
                "tests/hta/refs.py (installs HTA from PyPI) failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        dir
    })
}

/// Each set's trace files, as refs.py listed them.
fn sets() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(refs().join("sets.json")).expect("sets.json");
    let sets: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).expect("sets.json parses");
    sets.into_iter()
        .map(|(name, files)| {
            let files = files
                .as_array()
                .expect("a list of files")
                .iter()
                .map(|f| f.as_str().expect("a path").to_string())
                .collect();
            (name, files)
        })
        .collect()
}

/// A CSV as its header and rows of cells.
type Table = (Vec<String>, Vec<Vec<String>>);

fn parse_csv(text: &str) -> Table {
    crate::util::csv_table(csv::Reader::from_reader(text.as_bytes()))
}

/// Our output of `analysis` (one of [`ANALYSES`]) over `files`, as CSV.
fn ours(analysis: &str, files: &[String], compat: bool) -> Table {
    let outputs = every_analysis(files, compat);
    let csv = outputs
        .get(analysis)
        .unwrap_or_else(|| panic!("{analysis} is not in ANALYSES"));
    parse_csv(csv)
}

/// The one cell of the statement before each analysis's: the CSV of a run
/// of [`ANALYSES`] splits at it back into each analysis's output.
const SECTION: &str = "tracesql_hta_section";

/// The CSV output of every analysis of [`ANALYSES`] over `files`, from one
/// run of tracesql, computed once per (files, compat) for all the tests.
/// A set's 14 analyses share one load of its traces: run one by one, the
/// debug build spent about a quarter of these tests loading the same files.
fn every_analysis(files: &[String], compat: bool) -> Arc<HashMap<String, String>> {
    type Runs = HashMap<(Vec<String>, bool), Arc<OnceLock<Arc<HashMap<String, String>>>>>;
    static RUNS: OnceLock<Mutex<Runs>> = OnceLock::new();
    let run = {
        let mut runs = RUNS.get_or_init(Default::default).lock().unwrap();
        runs.entry((files.to_vec(), compat)).or_default().clone()
    };
    // Other keys go on in parallel; a test after the same key waits here.
    run.get_or_init(|| Arc::new(run_every_analysis(files, compat)))
        .clone()
}

/// Runs [`ANALYSES`] over `files` as the statements of one `tracesql query`,
/// each after its marker, and splits the output back.
fn run_every_analysis(files: &[String], compat: bool) -> HashMap<String, String> {
    let sql = every_analysis_sql();
    let mut cmd = tracesql().arg("query").args(files).arg("-e").arg(sql);
    cmd = cmd.args(["--format", "csv"]);
    if compat {
        cmd = cmd.args(["--param", "hta.compat=true"]);
    }
    // Each analysis reads only its own parameters, so the run takes them all.
    for (_, params) in PARAMS {
        for p in *params {
            cmd = cmd.args(["--param", p]);
        }
    }
    split_sections(&cmd.ok())
}

/// The statements of [`run_every_analysis`], the same for every set: each
/// analysis's SQL (with its [`COLUMNS`]) after its marker statement.
fn every_analysis_sql() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| {
        let mut sql = String::new();
        for analysis in ANALYSES {
            let text = std::fs::read_to_string(package_path(format!("queries/hta/{analysis}.sql")))
                .unwrap();
            let text = text.trim_end().trim_end_matches(';');
            let statement = match COLUMNS.iter().find(|(a, _)| a == analysis) {
                Some((_, columns)) => {
                    format!("SELECT {columns} FROM ({text}\n) CROSS JOIN hta_origin")
                }
                None => format!("{text}\n"),
            };
            sql.push_str(&format!(
                "SELECT '{analysis}' AS {SECTION};\n{statement};\n"
            ));
        }
        sql
    })
}

/// The CSV of each analysis in a run's output, by the name its marker gives.
fn split_sections(output: &str) -> HashMap<String, String> {
    let mut sections = HashMap::new();
    let mut lines = output.lines();
    let mut current: Option<(String, String)> = None;
    while let Some(line) = lines.next() {
        if line == SECTION {
            let name = lines.next().expect("the section's name").to_string();
            sections.extend(current.replace((name, String::new())));
        } else if let Some((_, csv)) = current.as_mut() {
            csv.push_str(line);
            csv.push('\n');
        } else {
            panic!("output before the first section: {line}");
        }
    }
    sections.extend(current);
    assert_eq!(sections.len(), ANALYSES.len(), "{:?}", sections.keys());
    sections
}

/// `table` with its rows in order: HTA's row order is its dataframes', ours
/// the report's ORDER BY; the rows are what must agree.
fn sorted(mut table: Table) -> Table {
    table.1.sort();
    table
}

/// Where two tables differ (None: same header, same rows, numbers within 1e-6
/// relative).
fn difference(ours: &Table, theirs: &Table) -> Option<String> {
    if ours.0 != theirs.0 {
        return Some(format!("header {:?} vs {:?}", ours.0, theirs.0));
    }
    if ours.1.len() != theirs.1.len() {
        return Some(format!("{} rows vs {}", ours.1.len(), theirs.1.len()));
    }
    for (a, b) in ours.1.iter().zip(&theirs.1) {
        for ((x, y), column) in a.iter().zip(b).zip(&ours.0) {
            let same = match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1e-9),
                _ => x == y,
            };
            if !same {
                return Some(format!("{column}: {x} vs {y} (row {a:?})"));
            }
        }
    }
    None
}

/// Checks `analysis` on every set; returns (matched, differing as listed, HTA raised).
fn check(analysis: &str) -> (usize, usize, Vec<String>) {
    let (mut matched, mut listed, mut raised) = (0, 0, Vec::new());
    // Each analysis starts at its own set, so that tests running at once
    // mostly run tracesql on different sets (each run serves them all).
    let mut sets = sets();
    let at = ANALYSES.iter().position(|a| *a == analysis).unwrap_or(0);
    let start = at * sets.len() / ANALYSES.len();
    sets.rotate_left(start);
    for (set, files) in sets {
        let dir = refs().join(&set);
        let csv = dir.join(format!("{analysis}.csv"));
        if !csv.is_file() {
            assert!(
                dir.join(format!("{analysis}.error")).is_file(),
                "{set}: HTA wrote neither {analysis}.csv nor .error"
            );
            raised.push(set);
            continue;
        }
        let theirs = sorted(parse_csv(&std::fs::read_to_string(&csv).unwrap()));
        let listed_as = DIFFERS
            .iter()
            .find(|(a, s, _, _)| *a == analysis && *s == set);
        let compat = difference(&sorted(ours(analysis, &files, true)), &theirs);
        let default = difference(&sorted(ours(analysis, &files, false)), &theirs);
        match listed_as {
            Some((_, _, under_compat, why)) => {
                assert!(
                    default.is_some(),
                    "{set}: listed as differing ({why}), but equals HTA"
                );
                assert_eq!(
                    compat.is_some(),
                    *under_compat,
                    "{set}: {analysis} under hta.compat: {compat:?} ({why})"
                );
                listed += 1;
            }
            None => {
                if let Some(d) = compat {
                    panic!("{set}: {analysis} with hta.compat differs from HTA: {d}");
                }
                if let Some(d) = default {
                    panic!("{set}: {analysis} differs from HTA: {d}");
                }
                matched += 1;
            }
        }
    }
    raised.sort();
    (matched, listed, raised)
}

#[test]
fn idle_time_breakdown_matches_hta() {
    let (matched, listed, raised) = check("idle_time_breakdown");
    eprintln!("idle_time_breakdown: {matched} sets equal HTA's, {listed} differ as listed, HTA raised on {raised:?}");
    assert!(raised.is_empty(), "{raised:?}");
    assert!(matched + listed >= 6, "{matched} + {listed}");
    if crate::util::conformance_dir().is_some() {
        assert!(matched + listed >= 6 + 10 + 9, "{matched} + {listed}");
    }
}

#[test]
fn temporal_breakdown_matches_hta() {
    let (matched, listed, raised) = check("temporal_breakdown");
    eprintln!(
        "temporal_breakdown: {matched} sets equal HTA's, {listed} differ as DIFFERENCES.md says, HTA raised on {raised:?}"
    );
    // The fixtures always; with ../shared, its 10 single traces (HTA raises
    // on one) and 9 multi-rank sets more.
    assert!(matched + listed >= 6, "{matched} + {listed}");
    if crate::util::conformance_dir().is_some() {
        assert!(matched + listed >= 6 + 9 + 9, "{matched} + {listed}");
    }
}

/// HTA raises an AssertionError on the Qwen trace: with its whole-µs rounding,
/// computation covers 17 µs more than all GPU work. We answer, with sub-µs
/// kernels kept at zero length; under hta.compat, with HTA's arithmetic.
#[test]
fn temporal_breakdown_answers_where_hta_raises() {
    let Some(shared) = crate::util::conformance_dir() else {
        return;
    };
    let set = "traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005";
    assert!(refs().join(set).join("temporal_breakdown.error").is_file());
    let trace = shared.join("traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
    let files = [trace.to_string_lossy().into_owned()];
    let (header, rows) = ours("temporal_breakdown", &files, false);
    assert_eq!(rows.len(), 1);
    let value = |column: &str| crate::util::number(&header, &rows[0], column);
    let (idle, compute, other, span) = (
        value("idle_time(us)"),
        value("compute_time(us)"),
        value("non_compute_time(us)"),
        value("kernel_time(us)"),
    );
    assert_eq!(
        (idle, compute, other, span),
        (5666.0, 43981.0, 5.0, 49652.0)
    );
    assert_eq!(idle + compute + other, span);
    let (_, rows) = ours("temporal_breakdown", &files, true);
    assert_eq!(rows[0][3], "-17.0", "HTA's arithmetic: {:?}", rows[0]);
}

/// HTA's analyses run when named: a default `report` (TraceLens's sheets)
/// leaves them out, `--only` runs them, and `--param` is `--set`.
#[test]
fn hta_reports_run_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let trace = crate::util::fixture("basic_linear.json");
    let all = dir.path().join("all");
    tracesql().args(["report", &trace, "--out"]).arg(&all).ok();
    let names: Vec<String> = crate::util::files_under(&all)
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("kernel_summary")),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("temporal_breakdown")),
        "{names:?}"
    );
    let csv = tracesql()
        .args([
            "report",
            &trace,
            "--only",
            "temporal_breakdown",
            "--format",
            "csv",
        ])
        .args(["--param", "hta.compat=true"])
        .ok();
    let csv = csv
        .strip_prefix("== basic_linear: temporal_breakdown (1 rows)\n")
        .unwrap_or_else(|| panic!("{csv}"));
    let (header, rows) = parse_csv(csv.trim_end());
    assert_eq!(header[0], "rank");
    assert_eq!(rows.len(), 1, "{csv}");
    // An export stores the default reports; one on request is computed.
    let export = dir.path().join("export");
    tracesql()
        .args(["export", &trace, "--parquet"])
        .arg(&export)
        .ok();
    let from_export = tracesql()
        .args(["report"])
        .arg(&export)
        .args(["--only", "temporal_breakdown", "--format", "csv"])
        .args(["--param", "hta.compat=true"])
        .ok();
    assert!(
        from_export.trim_end().ends_with(csv.trim_end()),
        "{from_export}"
    );
    let unknown = tracesql()
        .args([
            "report",
            &trace,
            "--only",
            "temporal_breakdown",
            "--param",
            "hta.nope=1",
        ])
        .run();
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("hta.compat"), "{}", unknown.stderr);
}

/// Every HTA report gives over a dataset of several traces what it gives over
/// each trace file: the dataset's tables hold all the traces at once, and plans
/// over them differ (the critical path's did not pass DataFusion's plan check).
#[test]
fn hta_reports_agree_between_a_dataset_and_its_traces() {
    let reports: Vec<String> = std::fs::read_dir(package_path("queries/hta"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\n-- kind: report\n")
        })
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(reports.len() >= 15, "{reports:?}");
    let only = reports.join(",");
    let traces: Vec<String> = [
        "basic_linear.json",
        "critical_path.json",
        "nccl_graph.json",
        "memory_step.json",
    ]
    .iter()
    .map(|f| crate::util::fixture(f))
    .collect();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    tracesql()
        .args(["export", "--parquet"])
        .arg(&data)
        .args(&traces)
        .ok();
    let sections = |out: String| -> Vec<String> {
        let mut parts: Vec<String> = out
            .split("== ")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        parts.sort();
        parts
    };
    let mut direct = Vec::new();
    for trace in &traces {
        direct.extend(sections(
            tracesql()
                .args(["report", trace, "--only", &only, "--format", "csv"])
                .ok(),
        ));
    }
    direct.sort();
    let from_data = sections(
        tracesql()
            .arg("report")
            .arg(&data)
            .args(["--only", &only, "--format", "csv"])
            .ok(),
    );
    assert!(
        direct
            .iter()
            .any(|s| s.starts_with("critical_path: critical_path ")),
        "{direct:?}"
    );
    assert_eq!(direct.len(), from_data.len());
    for (a, b) in direct.iter().zip(&from_data) {
        assert_eq!(a, b);
    }
}

/// HTA's consecutive-kernel threshold is a parameter: at 0 µs no gap is
/// kernel wait; the gaps move to other, and the stream's idle time is kept.
#[test]
fn the_kernel_wait_threshold_is_a_parameter() {
    let trace = crate::util::fixture("nccl_graph.json");
    let run = |delay: &str| {
        let sql = package_path("queries/hta/idle_time_breakdown.sql");
        let csv = tracesql()
            .args(["query", &trace, "--format", "csv", "-f"])
            .arg(sql)
            .args(["--param", &format!("hta.consecutive_kernel_delay={delay}")])
            .ok();
        parse_csv(&csv)
    };
    let idle = |(header, rows): &Table, category: &str| -> f64 {
        rows.iter()
            .filter(|r| r[2] == category)
            .map(|r| crate::util::number(header, r, "idle_time"))
            .sum()
    };
    let (default, none) = (run("30"), run("0"));
    assert!(idle(&default, "kernel_wait") > 0.0, "{default:?}");
    assert_eq!(idle(&none, "kernel_wait"), 0.0, "{none:?}");
    let total = |t: &Table| {
        ["host_wait", "kernel_wait", "other"]
            .iter()
            .map(|c| idle(t, c))
            .sum::<f64>()
    };
    assert_eq!(total(&default), total(&none));
    assert_eq!(
        idle(&none, "other"),
        idle(&default, "other") + idle(&default, "kernel_wait")
    );
}

/// `check` on `analysis`, asserting that every set was compared: the
/// fixtures always; with ../shared, its 10 single traces and 9 multi-rank
/// sets too (less the ones HTA raises on, which are returned).
fn check_all(analysis: &str) -> Vec<String> {
    let (matched, listed, raised) = check(analysis);
    eprintln!("{analysis}: {matched} sets equal HTA's, {listed} differ as listed, HTA raised on {raised:?}");
    assert!(matched + listed >= 6, "{matched} + {listed}");
    if crate::util::conformance_dir().is_some() {
        assert!(
            matched + listed + raised.len() >= 6 + 10 + 9,
            "{matched} + {listed} + {raised:?}"
        );
    }
    raised
}

#[test]
fn gpu_kernel_breakdown_matches_hta() {
    assert_eq!(check_all("gpu_kernel_breakdown"), Vec::<String>::new());
}

#[test]
fn gpu_kernel_breakdown_kernels_matches_hta() {
    assert_eq!(
        check_all("gpu_kernel_breakdown_kernels"),
        Vec::<String>::new()
    );
}

#[test]
fn comm_comp_overlap_matches_hta() {
    assert_eq!(check_all("comm_comp_overlap"), Vec::<String>::new());
}

/// Our output of `analysis` on a fixture with `params`.
fn on_fixture(analysis: &str, fixture: &str, params: &[&str]) -> Table {
    report_rows(analysis, &[crate::util::fixture(fixture)], params)
}

/// Once kernels are grouped (here: one kept per type), a kept kernel's
/// statistics are its own and "others" holds every other duration; HTA's
/// re-aggregation (compat) gives a kept kernel its total as max, min and
/// mean.
#[test]
fn grouped_kernels_keep_their_own_statistics() {
    let fixture = "nccl_graph.json";
    let all = on_fixture(
        "gpu_kernel_breakdown_kernels",
        fixture,
        &["hta.num_kernels=100"],
    );
    let one = on_fixture(
        "gpu_kernel_breakdown_kernels",
        fixture,
        &["hta.num_kernels=1"],
    );
    let compat = on_fixture(
        "gpu_kernel_breakdown_kernels",
        fixture,
        &["hta.num_kernels=1", "hta.compat=true"],
    );
    let n = |t: &Table, row: &Vec<String>, c: &str| crate::util::number(&t.0, row, c);
    let computation = |t: &Table| -> Vec<Vec<String>> {
        t.1.iter()
            .filter(|r| r[6] == "COMPUTATION")
            .cloned()
            .collect()
    };
    let (all_rows, one_rows) = (computation(&all), computation(&one));
    assert!(all_rows.len() > 2, "{all:?}");
    assert_eq!(one_rows.len(), 2, "{one:?}");
    let kept = one_rows.iter().find(|r| r[0] != "others").unwrap();
    let others = one_rows.iter().find(|r| r[0] == "others").unwrap();
    // The kept kernel is the largest total, with the statistics it has alone.
    let alone = all_rows.iter().find(|r| r[0] == kept[0]).unwrap();
    let largest = all_rows
        .iter()
        .map(|r| n(&all, r, "sum (us)"))
        .fold(0.0, f64::max);
    assert_eq!(n(&one, kept, "sum (us)"), largest);
    assert_eq!(kept, alone);
    assert!(
        n(&one, kept, "max (us)") < largest,
        "several instances: {kept:?}"
    );
    // others: every other duration.
    let rest: f64 = all_rows
        .iter()
        .filter(|r| r[0] != kept[0])
        .map(|r| n(&all, r, "sum (us)"))
        .sum();
    assert_eq!(n(&one, others, "sum (us)"), rest);
    let longest = all_rows
        .iter()
        .filter(|r| r[0] != kept[0])
        .map(|r| n(&all, r, "max (us)"))
        .fold(0.0, f64::max);
    assert_eq!(n(&one, others, "max (us)"), longest);
    // HTA: the kept kernel's max, min and mean are its total.
    let theirs = compat.1.iter().find(|r| r[0] == kept[0]).unwrap();
    for column in ["max (us)", "min (us)", "mean (us)"] {
        assert_eq!(n(&compat, theirs, column), largest, "{column}: {theirs:?}");
    }
    assert_eq!(n(&compat, theirs, "stddev"), 0.0);
}

/// Memory work leaves both breakdowns with include_memory_kernels=false.
#[test]
fn memory_kernels_can_be_left_out() {
    let fixture = "basic_linear.json";
    for analysis in ["gpu_kernel_breakdown", "gpu_kernel_breakdown_kernels"] {
        let column = if analysis == "gpu_kernel_breakdown" {
            0
        } else {
            6
        };
        let with = on_fixture(analysis, fixture, &[]);
        let without = on_fixture(analysis, fixture, &["hta.include_memory_kernels=false"]);
        assert!(
            with.1.iter().any(|r| r[column].contains("MEMORY")),
            "{with:?}"
        );
        assert!(
            !without.1.iter().any(|r| r[column].contains("MEMORY")),
            "{without:?}"
        );
        assert!(!without.1.is_empty());
    }
}

/// HTA types DeepEP's kernels as computation, so it finds no communication
/// on the MoE step and no overlap (NaN); they are communication here, and
/// three quarters of their time runs beside computation.
#[test]
fn comm_comp_overlap_counts_kernels_hta_does_not_know() {
    let (header, rows) = on_fixture("comm_comp_overlap", "field/moe_step.json", &[]);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        crate::util::number(&header, &rows[0], "comp_comm_overlap_pctg"),
        75.0
    );
    let (_, compat) = on_fixture(
        "comm_comp_overlap",
        "field/moe_step.json",
        &["hta.compat=true"],
    );
    assert_eq!(compat[0][1], "", "HTA's NaN: {compat:?}");
}

/// A report's rows over `traces`, as CSV (`query -f`).
fn report_rows(report: &str, traces: &[String], params: &[&str]) -> Table {
    let sql = package_path(format!("queries/hta/{report}.sql"));
    let mut cmd = tracesql()
        .arg("query")
        .args(traces)
        .args(["--format", "csv", "-f"])
        .arg(sql);
    for p in params {
        cmd = cmd.args(["--param", p]);
    }
    parse_csv(&cmd.ok())
}

/// fixtures/memory_step.json, worked by hand (fixtures/README.md): a block
/// allocated in aten::empty belongs to the aten::addmm that called it; a
/// free of a block from before the trace lowers the total; the peak (1,027,672
/// bytes at 1310 µs) holds three blocks of the trace (28,672 bytes) and
/// 999,000 bytes from before it.
#[test]
fn memory_timeline_peak_and_live_blocks_on_a_fixture() {
    let trace = [crate::util::fixture("memory_step.json")];
    let (header, rows) = report_rows("memory_timeline", &trace, &[]);
    assert_eq!(rows.len(), 8, "{rows:?}");
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let first_cuda = rows
        .iter()
        .find(|r| r[column("device_type")] == "cuda")
        .unwrap();
    assert_eq!(
        (&*first_cuda[column("op")], &*first_cuda[column("top_op")]),
        ("aten::addmm", "aten::linear")
    );
    let outside = rows.iter().find(|r| r[column("bytes")] == "-1000").unwrap();
    assert_eq!(outside[column("op")], "", "no op runs at 1260 µs");

    let (header, rows) = report_rows("memory_peak", &trace, &[]);
    let cuda = rows.iter().find(|r| r[1] == "cuda").unwrap();
    let n = |c: &str| crate::util::number(&header, cuda, c);
    assert_eq!(n("peak_allocated_bytes"), 1_027_672.0);
    assert_eq!(n("peak_ts"), 1310.0);
    assert_eq!(n("live_at_peak_bytes"), 28_672.0);
    assert_eq!(n("untracked_bytes"), 999_000.0);
    assert_eq!((n("allocations"), n("frees")), (4.0, 3.0));
    let peak_op = header.iter().position(|h| h == "peak_op").unwrap();
    assert_eq!(cuda[peak_op], "aten::zeros");
    let cpu = rows.iter().find(|r| r[1] == "cpu").unwrap();
    assert_eq!(
        crate::util::number(&header, cpu, "peak_allocated_bytes"),
        64.0
    );

    let (header, rows) = report_rows("memory_live_at_peak", &trace, &[]);
    let live: Vec<(String, String, f64)> = rows
        .iter()
        .filter(|r| r[1] == "cuda")
        .map(|r| {
            (
                r[3].clone(),
                r[4].clone(),
                crate::util::number(&header, r, "bytes"),
            )
        })
        .collect();
    let expected = [
        ("aten::zeros", "aten::zeros", 16384.0),
        ("aten::relu", "aten::relu", 8192.0),
        ("aten::linear", "aten::addmm", 4096.0),
    ];
    let expected: Vec<(String, String, f64)> = expected
        .iter()
        .map(|(t, o, b)| (t.to_string(), o.to_string(), *b))
        .collect();
    assert_eq!(live, expected);
}

/// On real profile_memory traces (CUDA and ROCm): each event's change of the
/// device total is its own bytes (our order is the allocator's), and the
/// blocks live at the peak add up to memory_peak's figure, never above the peak.
#[test]
fn memory_reports_agree_with_the_allocator_on_real_traces() {
    let Some(shared) = crate::util::conformance_dir() else {
        return;
    };
    for name in [
        "traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
        "traces/mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
    ] {
        let trace = [shared.join(name).to_string_lossy().into_owned()];
        let (header, rows) = report_rows("memory_timeline", &trace, &[]);
        assert!(rows.len() > 200, "{name}: {}", rows.len());
        let col = |c: &str| header.iter().position(|h| h == c).unwrap();
        let mut checked = 0;
        for pair in rows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a[col("device_type")] != b[col("device_type")] {
                continue;
            }
            let total = |r: &Vec<String>| r[col("allocated_bytes")].parse::<i64>().unwrap();
            let bytes = b[col("bytes")].parse::<i64>().unwrap();
            assert_eq!(total(b) - total(a), bytes, "{name}: {a:?} -> {b:?}");
            checked += 1;
        }
        assert!(checked > 200, "{name}: {checked}");
        let (ph, peaks) = report_rows("memory_peak", &trace, &[]);
        let (lh, live) = report_rows("memory_live_at_peak", &trace, &[]);
        for peak in &peaks {
            let device = &peak[1];
            let listed: f64 = live
                .iter()
                .filter(|r| &r[1] == device)
                .map(|r| crate::util::number(&lh, r, "bytes"))
                .sum();
            let live_bytes = crate::util::number(&ph, peak, "live_at_peak_bytes");
            assert_eq!(listed, live_bytes, "{name} {device}");
            assert!(live_bytes <= crate::util::number(&ph, peak, "peak_allocated_bytes"));
            assert!(crate::util::number(&ph, peak, "untracked_bytes") >= 0.0);
        }
        assert!(
            peaks.iter().any(|p| p[1] == "cuda" || p[1] == "hip"),
            "{peaks:?}"
        );
    }
}

#[test]
fn frequent_cuda_kernel_sequences_matches_hta() {
    let raised = check_all("frequent_cuda_kernel_sequences");
    // HTA's "Unexpected case" on every shared trace with CPU threads but the
    // MI210 one (its call-stack sort meets a python frame its rounding gives
    // a negative length).
    if crate::util::conformance_dir().is_some() {
        assert_eq!(raised.len(), 9, "{raised:?}");
    }
}

/// Where HTA raises (BERT, H100), we answer: every one of the 26 aten::linear
/// calls is an instance (HTA would take only the one at the shallowest
/// depth), in 4 kernel patterns.
#[test]
fn frequent_cuda_kernel_sequences_answers_where_hta_raises() {
    let Some(shared) = crate::util::conformance_dir() else {
        return;
    };
    let set = "traces/h100/gaunernst_bert-small-uncased__1016001";
    let error = std::fs::read_to_string(
        refs()
            .join(set)
            .join("frequent_cuda_kernel_sequences.error"),
    )
    .unwrap();
    assert!(error.contains("Unexpected case"), "{error}");
    let trace = shared
        .join(format!("{set}.json.gz"))
        .to_string_lossy()
        .into_owned();
    let calls = tracesql()
        .args(["query", &trace, "--format", "csv", "-e"])
        .arg("SELECT count(*) AS n FROM events WHERE name = 'aten::linear'")
        .ok();
    let calls: f64 = calls.lines().nth(1).unwrap().parse().unwrap();
    let (header, rows) = ours("frequent_cuda_kernel_sequences", &[trace], false);
    let counts: Vec<f64> = rows
        .iter()
        .map(|r| crate::util::number(&header, r, "count"))
        .collect();
    assert_eq!(counts.iter().sum::<f64>(), calls);
    assert_eq!(counts, [17.0, 4.0, 4.0, 1.0], "{rows:?}");
    assert!(rows.iter().all(|r| r[0].starts_with("aten::linear|")));
}

#[test]
fn cuda_kernel_launch_stats_matches_hta() {
    assert_eq!(check_all("cuda_kernel_launch_stats"), Vec::<String>::new());
}

/// The outliers are the launch statistics' rows that pass HTA's cut-offs,
/// each kind worst first, with the kernel and the call named; the cut-offs
/// are parameters.
#[test]
fn cuda_kernel_launch_outliers_are_the_stats_past_the_cutoffs() {
    let traces: Vec<String> = [
        "basic_linear.json",
        "nccl_graph.json",
        "conformance/integer_times.json",
    ]
    .iter()
    .map(|f| crate::util::fixture(f))
    .collect();
    let num = |s: &str| s.parse::<f64>().unwrap_or_else(|_| panic!("{s}"));
    for (runtime, delay) in [(50.0, 100.0), (15.0, 5.0)] {
        let params = [
            format!("hta.runtime_cutoff={runtime}"),
            format!("hta.launch_delay_cutoff={delay}"),
        ];
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        for trace in &traces {
            let one = [trace.clone()];
            let (_, stats) = report_rows("cuda_kernel_launch_stats", &one, &[]);
            // correlation, cpu_duration, gpu_duration, launch_delay, rank
            let mut expected = Vec::new();
            for r in &stats {
                let (cpu, gpu, wait) = (num(&r[1]), num(&r[2]), num(&r[3]));
                let row = |kind: &str| {
                    vec![
                        r[4].clone(),
                        kind.to_string(),
                        r[0].clone(),
                        r[1].clone(),
                        r[2].clone(),
                        r[3].clone(),
                    ]
                };
                if cpu <= runtime && gpu < cpu {
                    expected.push(row("short_kernel"));
                }
                if cpu > runtime {
                    expected.push(row("runtime_outlier"));
                }
                if wait > delay {
                    expected.push(row("launch_delay_outlier"));
                }
            }
            let (header, rows) = report_rows("cuda_kernel_launch_outliers", &one, &params);
            assert_eq!(
                header,
                [
                    "rank",
                    "kind",
                    "correlation",
                    "launch",
                    "kernel",
                    "cpu_duration",
                    "gpu_duration",
                    "launch_delay"
                ]
            );
            let mut got: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r[0].clone(),
                        r[1].clone(),
                        r[2].clone(),
                        r[5].clone(),
                        r[6].clone(),
                        r[7].clone(),
                    ]
                })
                .collect();
            for r in &rows {
                assert!(!r[3].is_empty() && !r[4].is_empty(), "unnamed: {r:?}");
            }
            // Worst first within a kind.
            let badness = |r: &Vec<String>| match r[1].as_str() {
                "short_kernel" => num(&r[5]) - num(&r[6]),
                "runtime_outlier" => num(&r[5]),
                _ => num(&r[7]),
            };
            for w in rows.windows(2) {
                if w[0][1] == w[1][1] {
                    assert!(badness(&w[0]) >= badness(&w[1]), "{w:?}");
                }
            }
            got.sort();
            expected.sort();
            assert_eq!(got, expected, "{trace} at {runtime}/{delay}");
            if runtime == 15.0 && !trace.contains("integer_times") {
                for kind in ["short_kernel", "runtime_outlier", "launch_delay_outlier"] {
                    assert!(
                        got.iter().any(|r| r[1] == kind),
                        "{trace}: no {kind} at {runtime}/{delay}: {stats:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn aten_op_kernels_and_delay_matches_hta() {
    let raised = check_all("aten_op_kernels_and_delay");
    // HTA raises KeyError 'thread_id' where no CUDA launch sits under an
    // aten op: the ROCm traces (hip* launches) and the GPU-only ones.
    let rocm = raised
        .iter()
        .filter(|s| {
            s.contains("gpu_only")
                || s.contains("mi300")
                || s.contains("normalization")
                || s.contains("triton")
        })
        .count();
    assert_eq!(rocm, raised.len(), "{raised:?}");
    if crate::util::conformance_dir().is_some() {
        assert_eq!(raised.len(), 6, "{raised:?}");
    }
}

/// Where HTA raises (BERT on MI300: hipLaunchKernel is not on its list), we
/// answer: layer norm's kernel, launched 10 times, 10 µs into its op and
/// starting 18.5 µs after its launch on average.
#[test]
fn aten_op_kernels_and_delay_answers_on_rocm() {
    let Some(shared) = crate::util::conformance_dir() else {
        return;
    };
    let set = "traces/mi300/gaunernst_bert-small-uncased__1016001";
    let error =
        std::fs::read_to_string(refs().join(set).join("aten_op_kernels_and_delay.error")).unwrap();
    assert!(error.contains("thread_id"), "{error}");
    let trace = shared
        .join(format!("{set}.json.gz"))
        .to_string_lossy()
        .into_owned();
    let (header, rows) = ours("aten_op_kernels_and_delay", &[trace], false);
    assert_eq!(rows.len(), 12);
    let layer_norm = rows
        .iter()
        .find(|r| r[0] == "aten::native_layer_norm")
        .unwrap_or_else(|| panic!("{rows:?}"));
    let n = |c: &str| crate::util::number(&header, layer_norm, c);
    assert_eq!(
        (
            n("occurrence_count"),
            n("avg_aten_op_launch_delay"),
            n("avg_runtime_delay")
        ),
        (10.0, 10.0, 18.5)
    );
}

#[test]
fn queue_length_time_series_matches_hta() {
    assert_eq!(check_all("queue_length_time_series"), Vec::<String>::new());
}

#[test]
fn queue_length_summary_matches_hta() {
    assert_eq!(check_all("queue_length_summary"), Vec::<String>::new());
}

#[test]
fn memory_bw_time_series_matches_hta() {
    assert_eq!(check_all("memory_bw_time_series"), Vec::<String>::new());
}

#[test]
fn memory_bw_summary_matches_hta() {
    assert_eq!(check_all("memory_bw_summary"), Vec::<String>::new());
}

/// The counter events (ph "C") of a written trace, as sorted rows of (name,
/// pid, ts, id, arg, value) text, numbers normalised.
fn counter_rows(events: &[serde_json::Value]) -> Vec<Vec<String>> {
    let number = |v: &serde_json::Value| match v.as_f64() {
        Some(x) => format!("{x}"),
        None => v.as_str().unwrap_or_default().to_string(),
    };
    let mut rows: Vec<Vec<String>> = events
        .iter()
        .filter(|e| e["ph"] == "C")
        .flat_map(|e| {
            let args = e["args"].as_object().expect("counter args");
            args.iter()
                .map(|(arg, value)| {
                    vec![
                        e["name"].as_str().unwrap_or_default().to_string(),
                        number(&e["pid"]),
                        number(&e["ts"]),
                        e.get("id").map(number).unwrap_or_default(),
                        arg.clone(),
                        number(value),
                    ]
                })
                .collect::<Vec<_>>()
        })
        .collect();
    rows.sort();
    rows
}

/// The events of a trace file we wrote (gzip when its name ends in .gz).
fn written_events(path: &Path) -> Vec<serde_json::Value> {
    let bytes = std::fs::read(path).unwrap();
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut s)
            .unwrap();
        s
    } else {
        String::from_utf8(bytes).unwrap()
    };
    let doc: serde_json::Value = serde_json::from_str(&text).expect("the written trace parses");
    doc["traceEvents"].as_array().expect("traceEvents").clone()
}

/// `export --counters` adds HTA's counter tracks: under hta.compat, exactly the
/// counter events HTA's generate_trace_with_counters writes, on every single
/// trace where HTA answers; the trace's own events are kept as they were.
#[test]
fn export_counters_writes_htas_counter_tracks() {
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (set, files) in sets() {
        let [trace] = files.as_slice() else {
            continue;
        };
        let csv = refs().join(&set).join("trace_counters.csv");
        let (_, theirs) = parse_csv(&std::fs::read_to_string(&csv).unwrap());
        let mut theirs: Vec<Vec<String>> = theirs
            .into_iter()
            .map(|r| {
                let n = |x: &str| x.parse::<f64>().map(|v| format!("{v}")).unwrap_or_default();
                vec![
                    r[1].clone(),
                    n(&r[2]),
                    n(&r[3]),
                    n(&r[4]),
                    r[5].clone(),
                    n(&r[6]),
                ]
            })
            .collect();
        theirs.sort();
        let out = dir.path().join(format!("{compared}.json.gz"));
        tracesql()
            .args(["export", trace, "--counters"])
            .arg(&out)
            .args(["--param", "hta.compat=true"])
            .ok();
        let events = written_events(&out);
        let ours = counter_rows(&events);
        assert_eq!(ours.len(), theirs.len(), "{set}");
        for (a, b) in ours.iter().zip(&theirs) {
            let same = a
                .iter()
                .zip(b)
                .all(|(x, y)| match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                    _ => x == y,
                });
            assert!(same, "{set}: {a:?} vs HTA's {b:?}");
        }
        compared += 1;
    }
    assert!(compared >= 6, "{compared}");
    if crate::util::conformance_dir().is_some() {
        assert!(compared >= 16, "{compared}");
    }
}

/// The written trace is the input plus the counters (plain JSON here), the
/// input's events first and unchanged; one trace at a time; a trace that
/// cannot be read leaves no file.
#[test]
fn export_counters_keeps_the_trace_and_writes_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let trace = crate::util::fixture("basic_linear.json");
    let out = dir.path().join("with_counters.json");
    tracesql()
        .args(["export", &trace, "--counters"])
        .arg(&out)
        .ok();
    let events = written_events(&out);
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let original = original["traceEvents"].as_array().unwrap();
    assert_eq!(&events[..original.len()], &original[..]);
    let added = &events[original.len()..];
    assert!(added.iter().all(|e| e["ph"] == "C"));
    let queue: Vec<&serde_json::Value> = added
        .iter()
        .filter(|e| e["name"] == "Queue Length")
        .collect();
    // Five launches, each +1 at the call and -1 at the GPU start.
    assert_eq!(queue.len(), 10, "{added:?}");
    assert!(queue
        .iter()
        .all(|e| e["id"].is_i64() && e["args"]["Queue Length"].is_i64()));
    assert!(added
        .iter()
        .any(|e| e["name"] == "Memcpy HtoD" && e["args"]["Memcpy BW"].is_number()));

    let two = tracesql()
        .args([
            "export",
            &trace,
            &crate::util::fixture("gpu_only.json"),
            "--counters",
        ])
        .arg(dir.path().join("two.json"))
        .run();
    assert_eq!(two.code, Some(2), "{}", two.stderr);
    assert!(two.stderr.contains("one trace"), "{}", two.stderr);

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"traceEvents\": [{\"ph\": \"X\", ").unwrap();
    let failed_out = dir.path().join("never.json");
    let failed = tracesql()
        .args(["export"])
        .arg(&broken)
        .arg("--counters")
        .arg(&failed_out)
        .run();
    assert_ne!(failed.code, Some(0));
    assert_eq!(failed.stderr.trim().lines().count(), 1, "{}", failed.stderr);
    assert!(failed.stderr.contains("broken.json"), "{}", failed.stderr);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("never"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `tracesql schema REPORT` documents every column of every HTA report (and
/// the memory ones): typed by planning the report, each with its note from the
/// report's `Columns:` block.
#[test]
fn every_hta_report_is_documented_in_schema() {
    let mut checked = 0;
    for entry in std::fs::read_dir(package_path("queries/hta")).unwrap() {
        let path = entry.unwrap().path();
        let sql = std::fs::read_to_string(&path).unwrap();
        if !sql.contains("-- kind: report") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let listing = tracesql().args(["schema", &name]).ok();
        let rows: Vec<Vec<String>> = listing
            .lines()
            .filter(|l| l.contains('┆'))
            .map(|l| {
                l.trim_matches(|c| c == '│' || c == ' ')
                    .split('┆')
                    .map(|c| c.trim().to_string())
                    .collect()
            })
            .filter(|cells: &Vec<String>| cells[0] == name)
            .collect();
        assert!(rows.len() >= 2, "{name}: {listing}");
        for row in &rows {
            assert!(
                !row[2].is_empty() && !row[3].is_empty(),
                "{name}: undocumented column {row:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}

/// A report's rows on one fixture, with the trace's path (its `trace` column
/// names it) and `params`.
fn critical_path(fixture: &str, params: &[&str]) -> (Table, Table) {
    let trace = [crate::util::fixture(fixture)];
    (
        report_rows("critical_path", &trace, params),
        report_rows("critical_path_summary", &trace, params),
    )
}

#[test]
fn critical_path_summary_matches_hta() {
    assert_eq!(check_all("critical_path_summary"), Vec::<String>::new());
}

/// The paths themselves, edge by edge: the same edges between the same
/// event ends, with the same weights, types and bounds, on every set.
#[test]
fn critical_path_matches_hta() {
    assert_eq!(check_all("critical_path"), Vec::<String>::new());
}

/// fixtures/critical_path.json, worked by hand (fixtures/README.md): the
/// path runs from aten::linear's start through the first launch (20 µs of
/// launch delay: the stream was idle), the GEMM kernel (50), the gap to the
/// next kernel on the stream (5: it was launched while the GEMM ran), that
/// kernel (10), the Stream Sync that cudaStreamSynchronize waited for, and
/// aten::add with its launch; 125 µs, HTA's path and shares.
#[test]
fn critical_path_on_a_fixture_worked_by_hand() {
    let ((header, rows), (_, summary)) = critical_path("critical_path.json", &[]);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let steps: Vec<(String, String, f64, String)> = rows
        .iter()
        .map(|r| {
            (
                r[column("type")].clone(),
                r[column("name")].clone(),
                crate::util::number(&header, r, "duration"),
                r[column("bound_by")].clone(),
            )
        })
        .collect();
    let expected = [
        ("operator", "aten::linear", 5.0, "cpu_bound"),
        ("operator", "aten::addmm", 5.0, "cpu_bound"),
        (
            "kernel_launch_delay",
            "",
            20.0,
            "gpu_kernel_launch_overhead",
        ),
        ("operator", "fixture_gemm_kernel", 50.0, "gpu_compute_bound"),
        (
            "kernel_kernel_delay",
            "fixture_gemm_kernel",
            5.0,
            "gpu_kernel_kernel_overhead",
        ),
        ("operator", "fixture_relu_kernel", 10.0, "gpu_compute_bound"),
        ("sync_dependency", "", 0.0, ""),
        ("dependency", "", 0.0, ""),
        ("operator", "aten::add", 5.0, "cpu_bound"),
        ("operator", "cudaLaunchKernel", 5.0, "cpu_bound"),
        ("operator", "aten::add", 20.0, "cpu_bound"),
    ];
    let expected: Vec<(String, String, f64, String)> = expected
        .iter()
        .map(|(t, n, d, b)| (t.to_string(), n.to_string(), *d, b.to_string()))
        .collect();
    assert_eq!(steps, expected);
    // The path is connected: each edge leaves where the previous one arrived.
    for pair in rows.windows(2) {
        assert_eq!(
            (&pair[0][column("dst_uid")], &pair[0][column("dst")]),
            (&pair[1][column("src_uid")], &pair[1][column("src")])
        );
    }
    let shares: Vec<(String, String)> = summary
        .iter()
        .map(|r| (r[1].clone(), r[2].clone()))
        .collect();
    let expected = [
        ("", "0.0"),
        ("cpu_bound", "32.0"),
        ("gpu_compute_bound", "48.0"),
        ("gpu_kernel_kernel_overhead", "4.0"),
        ("gpu_kernel_launch_overhead", "16.0"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(b, d)| (b.to_string(), d.to_string()))
        .collect();
    assert_eq!(shares, expected);
}

/// fixtures/critical_path_waits.json, worked by hand (fixtures/README.md):
/// the add kernel waits for the GEMM through a CUDA event (cudaEventRecord,
/// then cudaStreamWaitEvent on its stream), and the host for the add kernel
/// (cudaEventSynchronize): the path goes GEMM, wait, add kernel, wait, and
/// on to the mul; 153 µs, HTA's path and shares (`hta.cuda_event_waits=true`,
/// or `hta.compat=true`). Without the waits (the default: their args are a
/// second pass over the file) the add kernel's 80 µs launch delay is on the
/// path instead.
#[test]
fn critical_path_follows_cuda_event_waits() {
    let ((header, rows), (_, summary)) =
        critical_path("critical_path_waits.json", &["hta.cuda_event_waits=true"]);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let steps: Vec<(&str, &str, f64)> = rows
        .iter()
        .map(|r| {
            (
                r[column("type")].as_str(),
                r[column("name")].as_str(),
                crate::util::number(&header, r, "duration"),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("operator", "aten::mm", 3.0),
            ("kernel_launch_delay", "", 15.0),
            ("operator", "fixture_gemm_kernel", 100.0),
            ("sync_dependency", "", 0.0),
            ("operator", "fixture_add_kernel", 10.0),
            ("sync_dependency", "", 0.0),
            ("dependency", "", 0.0),
            ("operator", "aten::mul", 5.0),
            ("kernel_launch_delay", "", 10.0),
            ("operator", "fixture_mul_kernel", 10.0),
        ]
    );
    let shares = |summary: &[Vec<String>]| -> Vec<(String, f64)> {
        summary
            .iter()
            .map(|r| (r[1].clone(), r[2].parse().unwrap()))
            .collect()
    };
    let expected = [
        ("", 0.0),
        ("cpu_bound", 8.0 / 153.0 * 100.0),
        ("gpu_compute_bound", 120.0 / 153.0 * 100.0),
        ("gpu_kernel_launch_overhead", 25.0 / 153.0 * 100.0),
    ];
    for ((bound, share), (theirs, expected)) in shares(&summary).iter().zip(expected) {
        assert_eq!(bound, theirs);
        assert!((share - expected).abs() < 1e-9, "{bound}: {share}");
    }
    let (_, (_, compat)) = critical_path("critical_path_waits.json", &["hta.compat=true"]);
    assert_eq!(shares(&compat), shares(&summary));
    let (_, (_, without)) = critical_path("critical_path_waits.json", &[]);
    let launch = shares(&without)
        .into_iter()
        .find(|(b, _)| b == "gpu_kernel_launch_overhead")
        .unwrap();
    assert!(
        (launch.1 - 80.0 / 123.0 * 100.0).abs() < 1e-9,
        "{without:?}"
    );
}

/// HTA raises on a trace without GPU work ("Queue length time series is
/// required"): the path is then the CPU's, the fixture's top-level operators
/// one after another (3 dependencies of 0 µs between them).
#[test]
fn critical_path_answers_where_hta_raises() {
    let ((header, rows), (_, summary)) = critical_path("memory_step.json", &[]);
    let total: f64 = rows
        .iter()
        .map(|r| crate::util::number(&header, r, "duration"))
        .sum();
    assert_eq!((rows.len(), total), (11, 220.0));
    let shares: Vec<(&str, &str)> = summary
        .iter()
        .map(|r| (r[1].as_str(), r[2].as_str()))
        .collect();
    assert_eq!(shares, [("", "0.0"), ("cpu_bound", "100.0")]);
}

/// The instance is a parameter: BERT's second ProfilerStep event is the
/// GPU's annotation of the step (HTA's numbers for instance 1); the range
/// 0:1 spans both, as the CPU step alone does; an instance past the last
/// gives no rows (HTA raises), and so does an annotation no event has.
#[test]
fn critical_path_instance_is_a_parameter() {
    let Some(shared) = crate::util::conformance_dir() else {
        return;
    };
    let trace = [shared
        .join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz")
        .to_string_lossy()
        .into_owned()];
    let summary = |params: &[&str]| -> Vec<(String, f64)> {
        let (header, rows) = report_rows("critical_path_summary", &trace, params);
        rows.iter()
            .map(|r| (r[1].clone(), crate::util::number(&header, r, "duration")))
            .collect()
    };
    let second = summary(&["hta.instance=1"]);
    let hta = [
        ("", 0.0),
        ("cpu_bound", 97.59344598054275),
        ("gpu_compute_bound", 2.048131080389145),
        ("gpu_kernel_launch_overhead", 0.35842293906810035),
    ];
    assert_eq!(second.len(), hta.len(), "{second:?}");
    for ((bound, share), (theirs, expected)) in second.iter().zip(hta) {
        assert_eq!(bound, theirs);
        assert!(
            (share - expected).abs() < 1e-9,
            "{bound}: {share} vs {expected}"
        );
    }
    assert_eq!(
        summary(&["hta.instance=0:1"]),
        summary(&["hta.annotation=ProfilerStep", "hta.instance=0"])
    );
    assert!(summary(&["hta.instance=2"]).is_empty());
    assert!(summary(&["hta.annotation=NoSuchAnnotation"]).is_empty());
    // As the issue writes them: the names without their `hta.` prefix.
    assert_eq!(summary(&["annotation=ProfilerStep", "instance=1"]), second);
}

/// Report options by their short names (`instance` for `hta.instance`) on the
/// command line, `SET` in the REPL for the session and `.run NAME KEY=VALUE`
/// for one run: each changes what the next report gives, so the views
/// computed under the old values are computed again.
#[test]
fn report_options_take_short_names_and_are_set_in_the_repl() {
    let trace = crate::util::fixture("basic_linear.json");
    let traces = std::slice::from_ref(&trace);
    let full = report_rows(
        "critical_path_summary",
        traces,
        &["hta.annotation=ProfilerStep#3", "hta.instance=0"],
    );
    assert!(!full.1.is_empty(), "{full:?}");
    let short = report_rows(
        "critical_path_summary",
        traces,
        &["annotation=ProfilerStep#3", "instance=0"],
    );
    assert_eq!(short, full);
    assert!(
        report_rows("critical_path_summary", traces, &["annotation=NoSuch"])
            .1
            .is_empty()
    );
    let unknown = tracesql()
        .args(["report", &trace, "--only", "critical_path_summary"])
        .args(["--param", "stance=1"])
        .run();
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("unknown setting 'stance'")
            && unknown.stderr.contains("hta.instance"),
        "{}",
        unknown.stderr
    );

    let script = "SET annotation = 'NoSuch';\n\
                  .run critical_path_summary\n\
                  SET hta.annotation TO 'ProfilerStep';\n\
                  .run critical_path_summary\n\
                  .run critical_path_summary annotation=NoSuch\n\
                  .run critical_path_summary\n\
                  SET hta.nosuch = 1;\n";
    let (out, err, code) = crate::util::repl_piped(&[&trace], script);
    assert_eq!(code, 1, "the last SET fails: {err}");
    let counts: Vec<&str> = out
        .lines()
        .filter(|l| l.ends_with(" rows") || l.ends_with(" row"))
        .collect();
    let rows = format!("{} rows", full.1.len());
    assert_eq!(counts, ["0 rows", &rows, "0 rows", &rows], "{out}");
    assert!(out.contains("hta.annotation = NoSuch\n"), "{out}");
    assert!(out.contains("hta.annotation = ProfilerStep\n"), "{out}");
    assert!(
        err.contains("unknown setting 'hta.nosuch'") && err.contains("hta.instance"),
        "{err}"
    );
}

/// `export --critical-path`: the trace with the path's events marked
/// `args.critical = 1` (exactly the events critical_path's edges leave or
/// reach), its launch delay, sync and dependency as flow arrows, the events
/// off the path left out but for the annotation; written whole or not at all.
#[test]
fn critical_path_overlay_marks_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let trace = crate::util::fixture("critical_path.json");
    let (header, rows) = report_rows("critical_path", std::slice::from_ref(&trace), &[]);
    let mut on_path: Vec<i64> = rows
        .iter()
        .flat_map(|r| ["src_uid", "dst_uid"].map(|c| crate::util::number(&header, r, c) as i64))
        .collect();
    on_path.sort();
    on_path.dedup();
    for name in ["overlay.json", "overlay.json.gz"] {
        let out = dir.path().join(name);
        tracesql()
            .args(["export", &trace, "--critical-path"])
            .arg(&out)
            .ok();
        let bytes = std::fs::read(&out).unwrap();
        let text = if name.ends_with(".gz") {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
                .unwrap();
            text
        } else {
            String::from_utf8(bytes).unwrap()
        };
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        let original: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
        let original = original["traceEvents"].as_array().unwrap();
        // The marked events are the path's, as the file has them but for args.critical.
        let marked: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| e["args"]["critical"] == 1)
            .collect();
        assert_eq!(marked.len(), on_path.len(), "{on_path:?}");
        for (event, uid) in marked.iter().zip(&on_path) {
            let mut expected = original[*uid as usize].clone();
            expected["args"]["critical"] = serde_json::json!(1);
            assert_eq!(*event, &expected);
        }
        let flows: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| e["cat"] == "critical_path")
            .collect();
        let types: Vec<&str> = flows
            .iter()
            .filter(|f| f["ph"] == "s")
            .map(|f| f["args"]["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                "critical_path_kernel_launch_delay",
                "critical_path_sync_dependency",
                "critical_path_dependency"
            ]
        );
        assert_eq!(flows.len(), 6);
        // aten::relu is off the path: left out; the step's annotation stays.
        let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
        assert!(!names.contains(&"aten::relu"), "{names:?}");
        assert!(names.contains(&"ProfilerStep#1"), "{names:?}");
    }
    // Written under a temporary name: nothing else is left in the folder, and
    // a folder that does not exist gets no file.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["overlay.json", "overlay.json.gz"]);
    let missing = dir.path().join("no/such/folder/overlay.json");
    let failed = tracesql()
        .args(["export", &trace, "--critical-path"])
        .arg(&missing)
        .run();
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(!missing.exists());
    // One trace file only.
    let two = tracesql()
        .args(["export", &trace, &trace, "--critical-path"])
        .arg(dir.path().join("two.json"))
        .run();
    assert_eq!(two.code, Some(2), "{}", two.stderr);
}
