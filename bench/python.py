#!/usr/bin/env python3
"""tracesql benchmark: the Python package, against TraceLens's Python API and
against the CLI, in one run on one trace.

Each case runs in a fresh child interpreter whose imports (tracesql, pandas,
pyarrow; TraceLens) are done before the clock starts, so the numbers are the
work and not Python's start-up:
  * tracesql: `tracesql.open(TRACE).report("ops_summary").to_pandas()`;
  * TraceLens (with --tracelens PYTHON, a Python with TraceLens installed):
    `TreePerfAnalyzer.from_file(TRACE)`, `get_df_kernel_launchers()` and
    `get_df_kernel_launchers_summary()`: the same frame (its ops_summary sheet);
  * the Python path's overhead over the CLI: `tracesql.open(TRACE).report("ops_summary")`
    (Arrow, no pandas) against `tracesql report TRACE --only ops_summary --out DIR`
    (the whole process, which also writes the CSV);
  * to_pandas() of a result of a million rows (three columns: int64, float64,
    text): the peak memory it adds (VmHWM, reset before) against the Arrow size.

Usage: bench/python.py [--python PY] [--tracelens PY] [--bin target/release/tracesql] [--runs 5] [TRACE]
PY: a Python where tracesql is installed from a release build, e.g.
    python -m venv v && v/bin/pip install ./python   (maturin builds --release)
Default trace: the largest conformance trace (h100 google_owlv2).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from run import DEFAULT_TRACE, ROOT

TRACESQL_CASE = """
import json, sys, time
import pandas, pyarrow, tracesql
trace, runs, pandas_too = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
times = []
for _ in range(runs):
    start = time.perf_counter()
    r = tracesql.open(trace).report("ops_summary")
    frame = r.to_pandas() if pandas_too else r.to_arrow()
    times.append(time.perf_counter() - start)
print(json.dumps({"times": times, "rows": len(frame)}))
"""

TRACELENS_CASE = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import pandas
from TraceLens import TreePerfAnalyzer
trace, runs = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(runs):
    start = time.perf_counter()
    analyzer = TreePerfAnalyzer.from_file(trace)
    launchers = analyzer.get_df_kernel_launchers(include_kernel_details=True)
    frame = TreePerfAnalyzer.get_df_kernel_launchers_summary(launchers)
    times.append(time.perf_counter() - start)
print(json.dumps({"times": times, "rows": len(frame)}))
"""

MEMORY_CASE = """
import json, gc
import pandas, pyarrow, tracesql

def peak_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])

s = tracesql.open(__import__("sys").argv[1])
r = s.sql("SELECT value AS i, value * 1.5 AS x, concat('kernel_', value % 1000) AS name "
          "FROM generate_series(1, 1000000)")
arrow_bytes = r.to_arrow().nbytes
gc.collect()
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # resets VmHWM to the current RSS
before = peak_kib()
frame = r.to_pandas()
after = peak_kib()
print(json.dumps({"rows": len(frame), "arrow_bytes": arrow_bytes,
                  "peak_added_bytes": (after - before) * 1024,
                  "pandas_bytes": int(frame.memory_usage(deep=True).sum())}))
"""


def child(python, script, *args):
    done = subprocess.run([python, "-c", script, *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{python}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli_times(binary, trace, runs):
    times = []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([binary, "report", trace, "--only", "ops_summary", "--out", out],
                           check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=DEFAULT_TRACE)
    parser.add_argument("--python", default=sys.executable, help="a Python with tracesql installed")
    parser.add_argument("--tracelens", metavar="PYTHON", help="a Python with TraceLens installed")
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tracesql"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = os.path.getsize(args.trace) / 1e6
    print(f"trace: {args.trace} ({size:.1f} MB)")

    # Interleaved rounds, each case in a fresh interpreter, so that a change in
    # the machine's load hits every case alike.
    ours, arrow_only, cli, theirs = [], [], [], []
    rows = {}
    for _ in range(args.runs):
        got = child(args.python, TRACESQL_CASE, args.trace, 1, 1)
        ours += got["times"]
        rows["tracesql"] = got["rows"]
        arrow_only += child(args.python, TRACESQL_CASE, args.trace, 1, 0)["times"]
        cli += cli_times(args.bin, args.trace, 1)
        if args.tracelens:
            got = child(args.tracelens, TRACELENS_CASE, args.trace, 1)
            theirs += got["times"]
            rows["TraceLens"] = got["rows"]
    med = statistics.median
    print(f"rows of ops_summary: {rows}")
    print(f"tracesql open + ops_summary → pandas: median {med(ours):.3f} s  (runs: {', '.join(f'{t:.3f}' for t in ours)})")
    if theirs:
        print(f"TraceLens from_file + kernel launchers summary: median {med(theirs):.3f} s  "
              f"(runs: {', '.join(f'{t:.3f}' for t in theirs)})")
        print(f"  → tracesql is {med(theirs) / med(ours):.1f}x faster "
              f"({min(theirs) / max(ours):.1f}x between TraceLens's fastest and tracesql's slowest run)")
    print(f"Python open + ops_summary → Arrow: median {med(arrow_only):.3f} s; "
          f"CLI report --only ops_summary --out (whole process): median {med(cli):.3f} s")
    print(f"  → the Python path takes {100 * (med(arrow_only) / med(cli) - 1):+.1f}% against the CLI")
    memory = child(args.python, MEMORY_CASE, args.trace)
    print(f"to_pandas() of {memory['rows']:,} rows: Arrow {memory['arrow_bytes'] / 1e6:.1f} MB, "
          f"pandas frame {memory['pandas_bytes'] / 1e6:.1f} MB, peak memory added "
          f"{memory['peak_added_bytes'] / 1e6:.1f} MB "
          f"({memory['peak_added_bytes'] / memory['arrow_bytes']:.2f}x the Arrow size)")


if __name__ == "__main__":
    main()
