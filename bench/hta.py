#!/usr/bin/env python3
"""HTA's analyses, side by side: HTA itself (load + analysis, timed inside its
own process, imports not counted) against the whole `tracesql query -f
queries/hta/<analysis>.sql` command (process start and trace load included).

Inputs: the largest shared trace (owlv2, H100) and the 8-rank dlrm8_param set.
The trace-writing analyses (critical-path overlay, counter tracks) take one
rank's file on both sides.
HTA runs in the venv tests/hta/refs.py makes (target/hta-refs/venv by
default; run the HTA tests or refs.py first).

    python3 bench/hta.py --bin target/release/tracesql [--runs 5]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "conformance"
INPUTS = {
    "owlv2 (H100, 1 rank)": [SHARED / "traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz"],
    "dlrm8_param (8 ranks)": sorted((SHARED / "collectives/dlrm8_param/traces").glob("*.json.gz")),
}
RANKS = "ranks=ta.t.get_ranks()"
CP = "ta.critical_path_analysis(rank=r, annotation='ProfilerStep', instance_id=0)"
CP_PARAMS = ["hta.annotation=ProfilerStep", "hta.instance=0"]


def param_options(params):
    return [a for p in params for a in ("--param", p)]


def catalog(analysis: str, *params: str):
    """tracesql's side of an analysis: `tracesql query FILES -f queries/hta/<analysis>.sql`."""
    return lambda files, out: [
        "query", *files, "-f", str(ROOT / f"queries/hta/{analysis}.sql"), "--format", "csv",
        *param_options(params),
    ]


def export(flag: str, *params: str):
    """tracesql's side of an analysis that writes a trace: `tracesql export FILE FLAG OUT`."""
    return lambda files, out: ["export", *files, flag, str(Path(out) / "out.json"), *param_options(params)]


# analysis -> (HTA's call, tracesql's command). HTA's critical path is one
# rank at a time; its overlay and counters trace are written for one rank
# (the bench gives them the first), as tracesql's exports are for one file.
ANALYSES = {
    "temporal_breakdown": ("ta.get_temporal_breakdown(visualize=False)", catalog("temporal_breakdown")),
    "idle_time_breakdown": (
        f"ta.get_idle_time_breakdown({RANKS}, visualize=False)", catalog("idle_time_breakdown")),
    "gpu_kernel_breakdown": ("ta.get_gpu_kernel_breakdown(visualize=False)", catalog("gpu_kernel_breakdown")),
    "comm_comp_overlap": ("ta.get_comm_comp_overlap(visualize=False)", catalog("comm_comp_overlap")),
    "cuda_kernel_launch_stats": (
        f"ta.get_cuda_kernel_launch_stats({RANKS}, visualize=False)", catalog("cuda_kernel_launch_stats")),
    # HTA's outliers are the points of its stats plots: the same call, plots not drawn.
    "cuda_kernel_launch_outliers": (
        f"ta.get_cuda_kernel_launch_stats({RANKS}, visualize=False)", catalog("cuda_kernel_launch_outliers")),
    "aten_op_kernels_and_delay": (
        "[ta.get_aten_op_kernels_and_delay(ranks=[r]) for r in ta.t.get_ranks()]",
        catalog("aten_op_kernels_and_delay")),
    "queue_length_summary": (f"ta.get_queue_length_summary({RANKS})", catalog("queue_length_summary")),
    "queue_length_time_series": (
        f"ta.get_queue_length_time_series({RANKS})", catalog("queue_length_time_series")),
    "memory_bw_summary": (f"ta.get_memory_bw_summary({RANKS})", catalog("memory_bw_summary")),
    "memory_bw_time_series": (f"ta.get_memory_bw_time_series({RANKS})", catalog("memory_bw_time_series")),
    "frequent_cuda_kernel_sequences": (
        "[ta.get_frequent_cuda_kernel_sequences('aten::linear', '/tmp', min_pattern_len=1, rank=r) "
        "for r in ta.t.get_ranks()]",
        catalog("frequent_cuda_kernel_sequences", "hta.operator_name=aten::linear", "hta.min_pattern_len=1")),
    "critical_path": (f"[{CP} for r in ta.t.get_ranks()]", catalog("critical_path", *CP_PARAMS)),
    "critical_path_summary": (
        f"[(lambda g: g and g[0].summary())({CP}) for r in ta.t.get_ranks()]",
        catalog("critical_path_summary", *CP_PARAMS)),
    "export --critical-path (one rank)": (
        "r = ta.t.get_ranks()[0]; g = {cp}; "
        "ta.overlay_critical_path_analysis(r, g[0], output_dir=out, only_show_critical_events=False)"
        .format(cp=CP),
        export("--critical-path", *CP_PARAMS)),
    "export --counters (one rank)": (
        "ta.generate_trace_with_counters(time_series=None, ranks=[ta.t.get_ranks()[0]], output_suffix='_c')",
        export("--counters")),
    # HTA has no memory timeline: tracesql's time alone.
    "memory_timeline": (None, catalog("memory_timeline")),
}

HTA_RUN = """
import logging, os, sys, time, json
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
start = time.perf_counter()
ta = TraceAnalysis(trace_dir=sys.argv[1])
out = sys.argv[2]
loaded = time.perf_counter()
try:
    {call}
    failed = None
except Exception as e:  # HTA raises on some inputs: timed all the same
    failed = type(e).__name__
done = time.perf_counter()
print(json.dumps({{"load": loaded - start, "analysis": done - loaded, "failed": failed}}))
"""


def hta_once(python: Path, files, call: str) -> dict:
    with tempfile.TemporaryDirectory() as traces, tempfile.TemporaryDirectory() as out:
        for f in files:
            (Path(traces) / f.name).symlink_to(f.resolve())
        run = subprocess.run(
            [str(python), "-c", HTA_RUN.format(call=call), traces, out],
            check=True, capture_output=True, text=True,
        )
    return json.loads(run.stdout.strip().splitlines()[-1])


def ours_once(binary: str, files, command) -> float:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([binary, *command(list(map(str, files)), out)], check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--venv", type=Path, default=ROOT / "target/hta-refs/venv")
    parser.add_argument("--only", help="one analysis")
    args = parser.parse_args()
    python = args.venv / "bin" / "python"
    print("| input | analysis | HTA load + analysis, s (in-process) | tracesql command, s | ratio |")
    print("|---|---|---:|---:|---:|")
    for label, files in INPUTS.items():
        for analysis, (call, command) in ANALYSES.items():
            if args.only and analysis != args.only:
                continue
            inputs = files[:1] if analysis.endswith("(one rank)") else files  # both sides load one trace
            hta, ours, failed = [], [], None
            for _ in range(args.runs):  # interleaved, so both see the same machine
                if call is not None:
                    t = hta_once(python, inputs, call)
                    hta.append(t["load"] + t["analysis"])
                    failed = t["failed"]
                ours.append(ours_once(args.bin, inputs, command))
            o = statistics.median(ours)
            if not hta:
                print(f"| {label} | {analysis} (not in HTA) | — | {o:.3f} | — |", flush=True)
                continue
            h = statistics.median(hta)
            note = f" (HTA raised {failed})" if failed else ""
            print(f"| {label} | {analysis}{note} | {h:.3f} | {o:.3f} | {o / h:.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
