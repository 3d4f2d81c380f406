#!/usr/bin/env python3
"""HTA's analyses, side by side: HTA itself (load + analysis, timed inside its
own process, imports not counted) against the whole `tracesql query -f
queries/hta/<analysis>.sql` command (process start and trace load included).

Inputs: the largest shared trace (owlv2, H100) and the 8-rank dlrm8_param set.
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
# analysis -> (HTA's call, tracesql --param options)
ANALYSES = {
    "temporal_breakdown": ("ta.get_temporal_breakdown(visualize=False)", []),
    "idle_time_breakdown": (f"ta.get_idle_time_breakdown({RANKS}, visualize=False)", []),
    "gpu_kernel_breakdown": ("ta.get_gpu_kernel_breakdown(visualize=False)", []),
    "comm_comp_overlap": ("ta.get_comm_comp_overlap(visualize=False)", []),
    "cuda_kernel_launch_stats": (f"ta.get_cuda_kernel_launch_stats({RANKS}, visualize=False)", []),
    "aten_op_kernels_and_delay": (
        "[ta.get_aten_op_kernels_and_delay(ranks=[r]) for r in ta.t.get_ranks()]", []),
    "queue_length_summary": (f"ta.get_queue_length_summary({RANKS})", []),
    "memory_bw_summary": (f"ta.get_memory_bw_summary({RANKS})", []),
    "frequent_cuda_kernel_sequences": (
        "[ta.get_frequent_cuda_kernel_sequences('aten::linear', '/tmp', min_pattern_len=1, rank=r) "
        "for r in ta.t.get_ranks()]",
        ["hta.operator_name=aten::linear", "hta.min_pattern_len=1"]),
}

HTA_RUN = """
import logging, os, sys, time, json
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
start = time.perf_counter()
ta = TraceAnalysis(trace_dir=sys.argv[1])
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
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            (Path(tmp) / f.name).symlink_to(f.resolve())
        out = subprocess.run(
            [str(python), "-c", HTA_RUN.format(call=call), tmp],
            check=True, capture_output=True, text=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def ours_once(binary: str, files, analysis: str, params) -> float:
    start = time.perf_counter()
    options = [a for p in params for a in ("--param", p)]
    subprocess.run(
        [binary, "query", *map(str, files), "-f", str(ROOT / f"queries/hta/{analysis}.sql"),
         "--format", "csv", *options],
        check=True, capture_output=True,
    )
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
        for analysis, (call, params) in ANALYSES.items():
            if args.only and analysis != args.only:
                continue
            hta, ours, failed = [], [], None
            for _ in range(args.runs):  # interleaved, so both see the same machine
                t = hta_once(python, files, call)
                hta.append(t["load"] + t["analysis"])
                failed = t["failed"]
                ours.append(ours_once(args.bin, files, analysis, params))
            h, o = statistics.median(hta), statistics.median(ours)
            note = f" (HTA raised {failed})" if failed else ""
            print(f"| {label} | {analysis}{note} | {h:.3f} | {o:.3f} | {o / h:.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
