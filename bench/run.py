#!/usr/bin/env python3
"""tracesql benchmark: load a trace, and write every report, end to end.

Reports wall time, MB/s of uncompressed JSON and peak RSS for
  * `tracesql tables TRACE`: decompress + parse + link + Arrow tables,
  * `tracesql query TRACE -e 'SELECT count(*) FROM events'`: the load plus a
    SQL session (DataFusion's setup pages in ~15 MB of code) and one query,
  * `tracesql report TRACE --out DIR`: the same plus every report as CSV,
  * `tracesql export TRACE --parquet DIR`: every table and report as Parquet,
  * `tracesql tables EXPORT` / `tracesql report EXPORT --out DIR`: reopening that
    export (the reports it stores while current, else Parquet straight into Arrow,
    no JSON parse, no linking); target for reopen + report on the default trace:
    under 0.3 s; `--recompute` runs the reports over the exported tables,
against baselines measured in the same run on the same file:
  * `gzip -dc` alone (the floor: decompression without any parsing),
  * Python's `json.load` of the same file (what any Python pipeline, TraceLens
    included, pays before its first report).

Usage: bench/run.py [--bin target/release/tracesql] [--runs 5] [--only-load] [TRACE]
--only-load: just `tables TRACE` and the two baselines (no reports, no export).
Default TRACE: the largest conformance trace (h100 google_owlv2, 55 MB of JSON).
Build first: cargo build --release
"""

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONFORMANCE = os.environ.get(
    "TRACESQL_CONFORMANCE", os.path.join(ROOT, "..", "shared", "conformance")
)
DEFAULT_TRACE = os.path.join(
    CONFORMANCE, "traces", "h100", "google_owlv2-large-patch14-ensemble__1016001.json.gz"
)


def run_once(argv):
    """Wall seconds and peak RSS (bytes) of one run of argv."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"benchmark command failed: {' '.join(argv)}\n{stderr}")
    return wall, usage.ru_maxrss * 1024


def measure(argv, runs):
    results = [run_once(argv) for _ in range(runs)]
    return statistics.median(w for w, _ in results), max(r for _, r in results)


def uncompressed_size(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=DEFAULT_TRACE)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tracesql"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only-load", action="store_true",
                        help="time only `tables TRACE` against the baselines")
    args = parser.parse_args()
    if not os.path.exists(args.trace):
        sys.exit(f"trace not found: {args.trace}")
    if not os.path.exists(args.bin):
        sys.exit(f"binary not found: {args.bin} (run cargo build --release)")

    json_bytes = uncompressed_size(args.trace)
    mb = json_bytes / 1e6
    py_load = (
        "import gzip,json,sys; p=sys.argv[1]; "
        "json.load(gzip.open(p) if p.endswith('.gz') else open(p,'rb'))"
    )
    out_dir = tempfile.mkdtemp(prefix="tracesql-bench-")
    export_dir = os.path.join(tempfile.mkdtemp(prefix="tracesql-bench-export-"), "export")
    # The reopen cases read the export the export case writes; write it once first.
    if not args.only_load:
        subprocess.run([args.bin, "export", args.trace, "--parquet", export_dir], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cases = [
        ("tracesql tables (decompress+parse+link+Arrow)", [args.bin, "tables", args.trace]),
        ("tracesql report --out (all reports as CSV)", [args.bin, "report", args.trace, "--out", out_dir]),
        ("tracesql query count(*) (load + SQL session)",
         [args.bin, "query", args.trace, "-e", "SELECT count(*) FROM events"]),
        ("tracesql export --parquet (tables+reports)", [args.bin, "export", args.trace, "--parquet", export_dir]),
        ("tracesql tables EXPORT (reopen Parquet)", [args.bin, "tables", export_dir]),
        ("tracesql report EXPORT --out (reopen+report)", [args.bin, "report", export_dir, "--out", out_dir]),
        ("tracesql report EXPORT --recompute --out", [args.bin, "report", export_dir, "--recompute", "--out", out_dir]),
        ("baseline: gzip -dc > /dev/null", ["gzip", "-dc", args.trace]),
        ("baseline: python json.load", [sys.executable, "-c", py_load, args.trace]),
    ]
    if args.only_load:
        cases = [c for c in cases
                 if c[0].startswith(("tracesql tables (", "tracesql query", "baseline:"))]
    if not args.trace.endswith(".gz"):
        cases = [c for c in cases if not c[0].startswith("baseline: gzip")]
    print(f"trace: {args.trace}")
    print(f"uncompressed JSON: {mb:.1f} MB, runs per case: {args.runs} (median wall time)")
    print(f"{'case':<48} {'wall s':>8} {'MB/s':>8} {'peak RSS MB':>12} {'RSS/JSON':>9}")
    measured = []
    for label, argv in cases:
        wall, rss = measure(argv, args.runs)
        measured.append((label, wall))
        print(f"{label:<48} {wall:>8.3f} {mb / wall:>8.1f} {rss / 1e6:>12.1f} {rss / json_bytes:>9.2f}")
    walls = dict(measured)
    baselines = [(label, wall) for label, wall in measured if label.startswith("baseline:")]
    ours_labels = [cases[0][0]] if args.only_load else [cases[0][0], cases[1][0]]
    for ours_label in ours_labels:
        ours = walls[ours_label]
        for label, wall in baselines:
            name = label.split(": ", 1)[1]
            print(f"{ours_label.split(' (')[0]}: {wall / ours:.2f}x the speed of {name}")
    if args.only_load:
        return
    reopen = walls["tracesql report EXPORT --out (reopen+report)"]
    print(f"reopen + report from the export: {reopen:.3f} s "
          f"({'within' if reopen < 0.3 else 'over'} the 0.3 s target), "
          f"{walls[cases[1][0]] / reopen:.1f}x faster than from the JSON")


if __name__ == "__main__":
    main()
