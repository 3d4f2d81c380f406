#!/usr/bin/env python3
"""tracesql benchmark: the multi-rank collective report over a synthetic run.

Cases (wall time median of --runs, peak RSS the largest):
  * `tracesql collectives DIR --out OUT`: every rank loaded, all sheets;
  * the same with `--analyze` (the run's rules, DIR/analysis/);
  * `tracesql --tracelens-compat collectives DIR --out OUT`;
against baselines measured in the same run on the same files:
  * Python's `json.load` of every rank file (what TraceLens, which parses
    each rank's whole file, pays before its first number);
  * with --tracelens PYTHON (a Python with TraceLens installed): TraceLens's
    multi-rank report on the same files (one run).

The run is made by bench/gen_ranks.py (default 64 ranks of the h100 Qwen
trace's size, 500 allreduces each) unless DIR is given.

Usage: bench/collectives.py [--bin target/release/tracesql] [--runs 3] [--ranks 64]
                            [--collectives 500] [--tracelens PY] [DIR]
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

from run import ROOT, measure

JSON_LOAD = """
import gzip, json, sys
for path in sys.argv[1:]:
    with gzip.open(path, "rt") as f:
        json.load(f)
"""

TRACELENS = """
import sys
from TraceLens.Reporting.generate_multi_rank_collective_report_pytorch import generate_collective_report
generate_collective_report(trace_pattern=sys.argv[1], world_size=int(sys.argv[2]), output_csvs_dir=sys.argv[3])
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?")
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tracesql"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--collectives", type=int, default=500)
    parser.add_argument("--tracelens", metavar="PYTHON")
    args = parser.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"binary not found: {args.bin} (run cargo build --release)")
    work = tempfile.mkdtemp(prefix="tracesql-coll-")
    run_dir = args.dir
    if run_dir is None:
        run_dir = os.path.join(work, "run")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_ranks.py"), run_dir,
                        "--ranks", str(args.ranks), "--collectives", str(args.collectives)],
                       check=True, stderr=subprocess.DEVNULL)
    files = sorted(glob.glob(os.path.join(run_dir, "rank*_trace.json.gz")))
    if not files:
        sys.exit(f"no rank*_trace.json.gz in {run_dir}")
    gz_mb = sum(os.path.getsize(f) for f in files) / 1e6
    out = os.path.join(work, "out")
    cases = [
        ("collectives --out", [args.bin, "collectives", run_dir, "--out", out]),
        ("collectives --analyze --out", [args.bin, "collectives", run_dir, "--analyze", "--out", out]),
        ("--tracelens-compat collectives --out",
         [args.bin, "--tracelens-compat", "collectives", run_dir, "--out", out]),
        ("baseline: python json.load of every rank", [sys.executable, "-c", JSON_LOAD] + files),
    ]
    rows = []
    for name, argv in cases:
        wall, rss = measure(argv, args.runs)
        rows.append((name, wall, rss))
    if args.tracelens:
        pattern = os.path.join(run_dir, "rank*_trace.json.gz")
        argv = [args.tracelens, "-c", TRACELENS, pattern, str(len(files)), os.path.join(work, "tl")]
        wall, rss = measure(argv, 1)
        rows.append(("baseline: TraceLens multi-rank report", wall, rss))
    base = next(w for n, w, _ in rows if n.startswith("baseline: python"))
    print(f"{len(files)} ranks, {gz_mb:.1f} MB gzipped, {args.runs} runs (median wall, peak RSS)\n")
    print("| case | wall s | vs json.load | peak RSS MB |")
    print("|---|---|---|---|")
    for name, wall, rss in rows:
        print(f"| {name} | {wall:.2f} | {wall / base:.2f}x | {rss / 1e6:.0f} |")


if __name__ == "__main__":
    main()
