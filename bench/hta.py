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
ANALYSES = {
    "temporal_breakdown": "ta.get_temporal_breakdown(visualize=False)",
    "idle_time_breakdown": "ta.get_idle_time_breakdown(ranks=sorted(ta.t.traces), visualize=False)",
}

HTA_RUN = """
import logging, os, sys, time, json
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
start = time.perf_counter()
ta = TraceAnalysis(trace_dir=sys.argv[1])
loaded = time.perf_counter()
{call}
done = time.perf_counter()
print(json.dumps({{"load": loaded - start, "analysis": done - loaded}}))
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


def ours_once(binary: str, files, analysis: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [binary, "query", *map(str, files), "-f", str(ROOT / f"queries/hta/{analysis}.sql"), "--format", "csv"],
        check=True, capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--venv", type=Path, default=ROOT / "target/hta-refs/venv")
    args = parser.parse_args()
    python = args.venv / "bin" / "python"
    print("| input | analysis | HTA load + analysis, s (in-process) | tracesql command, s | ratio |")
    print("|---|---|---:|---:|---:|")
    for label, files in INPUTS.items():
        for analysis, call in ANALYSES.items():
            hta, ours = [], []
            for _ in range(args.runs):  # interleaved, so both see the same machine
                t = hta_once(python, files, call)
                hta.append(t["load"] + t["analysis"])
                ours.append(ours_once(args.bin, files, analysis))
            h, o = statistics.median(hta), statistics.median(ours)
            print(f"| {label} | {analysis} | {h:.3f} | {o:.3f} | {o / h:.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
