#!/usr/bin/env python3
"""tracesql benchmark: compare two traces end to end.

Cases (wall time median of --runs, peak RSS the largest):
  * `tracesql compare A B --out DIR`: both sides' reports, the comparison
    session and every comparison sheet;
  * `tracesql --tracelens-compat compare A B --out DIR`: the same plus
    TraceLens's compare_perf_reports files;
  * `tracesql analyze B --reference A --out DIR`: the comparative analysis;
against baselines measured in the same run on the same files:
  * Python's `json.load` of both traces (what any Python pipeline, TraceLens
    included, pays before its first report);
  * with --tracelens PYTHON (a Python with TraceLens installed): TraceLens's own
    path to the same files, both single-trace reports then
    compare_perf_reports (one run: it takes seconds).

Usage: bench/compare.py [--bin target/release/tracesql] [--runs 5] [--tracelens PY] [A B]
Default pair: the largest conformance trace against itself (h100 google_owlv2,
55 MB of JSON each), as issue 17 asks ("the owlv2 pair").
Build first: cargo build --release
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from run import DEFAULT_TRACE, ROOT, measure

TRACELENS_SCRIPT = """
import sys
from TraceLens.Reporting.generate_perf_report_pytorch import generate_perf_report_pytorch
from TraceLens.Reporting.compare_perf_reports_pytorch import generate_compare_perf_reports_pytorch
a, b, out = sys.argv[1], sys.argv[2], sys.argv[3]
dirs = []
for i, t in enumerate((a, b)):
    d = f"{out}/r{i}"
    generate_perf_report_pytorch(t, output_csvs_dir=d, kernel_summary=True)
    dirs.append(d)
generate_compare_perf_reports_pytorch(dirs, output=None, names=["a", "b"], sheets=["all"], output_csvs_dir=f"{out}/cmp")
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*", default=[DEFAULT_TRACE, DEFAULT_TRACE])
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tracesql"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tracelens", metavar="PYTHON",
                        help="a Python with TraceLens installed: time its compare path once")
    args = parser.parse_args()
    if len(args.traces) != 2:
        sys.exit("give two traces (or none for the default pair)")
    a, b = args.traces
    for path in (a, b, args.bin):
        if not os.path.exists(path):
            sys.exit(f"not found: {path}")
    work = tempfile.mkdtemp(prefix="tracesql-bench-compare-")
    try:
        out = os.path.join(work, "out")
        loader = "import gzip, json, sys\n" \
                 "for p in sys.argv[1:]:\n" \
                 "    json.load(gzip.open(p) if p.endswith('.gz') else open(p))\n"
        cases = [
            ("tracesql compare --out", [args.bin, "compare", a, b, "--out", out], args.runs),
            ("tracesql --tracelens-compat compare --out",
             [args.bin, "--tracelens-compat", "compare", a, b, "--names", "a", "b", "--out", out],
             args.runs),
            ("tracesql analyze --reference (comparative)",
             [args.bin, "analyze", b, "--reference", a, "--platform", "MI300X",
              "--reference-platform", "H100", "--out", out], args.runs),
            ("baseline: python json.load of both", [sys.executable, "-c", loader, a, b], args.runs),
        ]
        if args.tracelens:
            cases.append(("TraceLens: 2 reports + compare_perf_reports",
                          [args.tracelens, "-c", TRACELENS_SCRIPT, a, b, os.path.join(work, "tl")], 1))
        walls = {}
        print(f"A: {a}\nB: {b}\n")
        print(f"| case | runs | wall s | peak RSS MB |\n|---|---:|---:|---:|")
        for label, argv, runs in cases:
            wall, rss = measure(argv, runs)
            walls[label] = wall
            print(f"| {label} | {runs} | {wall:.3f} | {rss / 1e6:.1f} |", flush=True)
        ours = walls["tracesql compare --out"]
        print(f"\n`compare --out` is {walls['baseline: python json.load of both'] / ours:.2f}x "
              f"the speed of Python's json.load of the two traces alone")
        if args.tracelens:
            tl = walls["TraceLens: 2 reports + compare_perf_reports"]
            print(f"and {tl / ours:.1f}x the speed of TraceLens's path to its compare files")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
