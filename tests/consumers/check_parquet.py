#!/usr/bin/env python3
"""Proves that `tracesql export --parquet` output opens in DuckDB and pyarrow and
says what tracesql says.

For each trace given (and for all of them exported together, as Hive partitions):
  * every table's row count, read with DuckDB and with pyarrow, equals
    `tracesql query TRACE -e "SELECT count(*) FROM <table>"` on the trace itself;
  * sum(kernels.dur) and the gpu_timeline report's total_time agree likewise;
  * every file carries tracesql's key-value metadata.

Usage: check_parquet.py --bin target/debug/tracesql TRACE [TRACE...]
Needs: pip install duckdb pyarrow (.ci/run pins the versions).
"""

import argparse
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

import duckdb
import pyarrow
import pyarrow.dataset as ds
import pyarrow.parquet as pq

FAILURES = []


def check(ok, message):
    if not ok:
        FAILURES.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def tracesql(binary, *args):
    proc = subprocess.run([binary, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"tracesql {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def query_rows(binary, traces, sql):
    out = tracesql(binary, "query", *traces, "--format", "csv", "-e", sql)
    return list(csv.DictReader(io.StringIO(out)))


def glob_for(root, manifest):
    """The files of one table or report directory, partitioned or not."""
    return os.path.join(root, "*", "*.parquet") if manifest["partitioned"] else os.path.join(root, "*.parquet")


def check_export(binary, traces, export_dir):
    label = ", ".join(os.path.basename(t) for t in traces)
    tracesql(binary, "export", *traces, "--parquet", export_dir)
    with open(os.path.join(export_dir, "tracesql-export.json")) as f:
        manifest = json.load(f)
    con = duckdb.connect()
    partitioning = "hive" if manifest["partitioned"] else None
    tables = [t["name"] for t in manifest["traces"][0]["tables"]]
    counts_sql = " UNION ALL ".join(f"SELECT '{t}' AS t, count(*) AS n FROM {t}" for t in tables)
    counts = {r["t"]: int(r["n"]) for r in query_rows(binary, traces, counts_sql)}
    for table in tables:
        root = os.path.join(export_dir, "tables", table)
        expected = counts[table]
        files = glob_for(root, manifest)
        hive = "true" if manifest["partitioned"] else "false"
        duck = con.sql(f"SELECT count(*) FROM read_parquet('{files}', hive_partitioning={hive})").fetchone()[0]
        arrow = ds.dataset(root, format="parquet", partitioning=partitioning).count_rows()
        check(duck == expected, f"{label}: {table}: DuckDB reads {duck} rows, tracesql says {expected}")
        check(arrow == expected, f"{label}: {table}: pyarrow reads {arrow} rows, tracesql says {expected}")
        for path in [os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs]:
            meta = pq.read_metadata(path).metadata or {}
            for key in (b"tracesql.version", b"tracesql.schema_version", b"tracesql.source_sha256"):
                check(key in meta, f"{path}: no {key.decode()} metadata")

    # One aggregate per trace: GPU kernel time, both readers against tracesql.
    expected = {
        r["trace"]: float(r["us"] or 0)
        for r in query_rows(binary, traces, "SELECT trace, sum(dur) AS us FROM kernels GROUP BY trace")
    }
    kernels = os.path.join(export_dir, "tables", "kernels")
    hive = "true" if manifest["partitioned"] else "false"
    duck = dict(
        con.sql(
            f"SELECT trace, sum(dur) FROM read_parquet('{glob_for(kernels, manifest)}', hive_partitioning={hive}) GROUP BY trace"
        ).fetchall()
    )
    table = ds.dataset(kernels, format="parquet", partitioning=partitioning).to_table(columns=["trace", "dur"])
    arrow = {r["trace"]: r["dur_sum"] for r in table.group_by("trace").aggregate([("dur", "sum")]).to_pylist()}
    for trace, us in expected.items():
        check(close(duck.get(trace) or 0.0, us), f"{label}: {trace}: DuckDB sum(kernels.dur) {duck.get(trace)} != {us}")
        check(close(arrow.get(trace) or 0.0, us), f"{label}: {trace}: pyarrow sum(kernels.dur) {arrow.get(trace)} != {us}")

    # The gpu_timeline report's total, read from the export, against `tracesql report`.
    timeline = os.path.join(export_dir, "reports", "gpu_timeline")
    for entry in manifest["traces"]:
        name = entry["name"]
        source = entry["source"]
        out = tracesql(binary, "report", source, "--only", "gpu_timeline", "--format", "csv")
        lines = [l for l in out.splitlines() if l and not l.startswith("==")]
        report = {r["type"]: float(r["time ms"]) for r in csv.DictReader(io.StringIO("\n".join(lines)))}
        where = "WHERE type = 'total_time'" + (f" AND trace = '{name}'" if manifest["partitioned"] else "")
        total = con.sql(
            f"SELECT \"time ms\" FROM read_parquet('{glob_for(timeline, manifest)}', hive_partitioning={hive}) {where}"
        ).fetchone()[0]
        check(close(total, report["total_time"]), f"{label}: {name}: gpu_timeline total_time {total} != {report['total_time']}")
    print(f"ok: {label}: {len(tables)} tables, kernel time and gpu_timeline agree in DuckDB and pyarrow")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args()
    print(f"duckdb {duckdb.__version__}, pyarrow {pyarrow.__version__}")
    with tempfile.TemporaryDirectory(prefix="tracesql-consumers-") as tmp:
        for i, trace in enumerate(args.traces):
            check_export(args.bin, [trace], os.path.join(tmp, f"single{i}"))
        if len(args.traces) > 1:
            check_export(args.bin, args.traces, os.path.join(tmp, "partitioned"))
    if FAILURES:
        sys.exit(f"{len(FAILURES)} consumer check(s) failed")


if __name__ == "__main__":
    main()
