#!/usr/bin/env python3
"""A fleet of rank traces as a dataset: export throughput and cross-rank queries.

For each N of --ranks, makes N rank traces of a real trace's size with
bench/gen_ranks.py (cached under --work), then measures:

- export: `tracesql export --append --jobs J` of the N traces into a new dataset:
  wall time, peak RSS, MB of trace JSON per second per core, dataset size;
- the same N traces appended again (every one skipped by its SHA-256);
- a cross-rank query over the dataset read in place (per-rank kernel count, time
  and busy time) and a one-rank query (`WHERE rank = 7`), medians of --repeat;
- with --cluster: the same two queries on a local Ballista cluster (a scheduler
  and two executors on 127.0.0.1, the same binary built with --features cluster).

Timings are wall-clock medians on this machine; compare rows of one run only.

Usage: bench/fleet.py --bin target/release/tracesql --ranks 64,256 [--cluster]
       [--work /tmp/fleet] [--out bench/results/DATE-fleet.md]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CROSS_RANK = ("SELECT rank, count(*) AS kernels, sum(dur) AS kernel_us, "
              "busy_time(ts, t_end) AS busy_us FROM kernels GROUP BY rank ORDER BY rank")
ONE_RANK = "SELECT name, count(*) AS n, sum(dur) AS us FROM kernels WHERE rank = 7 GROUP BY name ORDER BY us DESC LIMIT 10"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def timed(cmd):
    """Wall seconds and peak RSS (MB) of cmd, through /usr/bin/time."""
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])}...: {out.stderr[-2000:]}")
    rss_kb = int(out.stderr.strip().splitlines()[-1])
    return wall, rss_kb / 1024


def median_time(cmd, repeat):
    return statistics.median(timed(cmd)[0] for _ in range(repeat))


def traces_for(work, n):
    folder = os.path.join(work, f"ranks{n}")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder)) if os.path.isdir(folder) else []
    if len(files) != n:
        run([sys.executable, os.path.join(HERE, "gen_ranks.py"), folder, "--ranks", str(n),
             "--collectives", "100"])
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    return files


def json_bytes(files):
    import gzip
    total = 0
    for f in files:
        with gzip.open(f, "rb") as g:
            while chunk := g.read(1 << 20):
                total += len(chunk)
    return total


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, binary):
        port = free_port()
        self.url = f"df://127.0.0.1:{port}"
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs = [subprocess.Popen([binary, "cluster", "scheduler", "--port", str(port),
                                        "--max-lifetime", "3600"], **quiet)]
        time.sleep(1)
        for _ in range(2):
            self.procs.append(subprocess.Popen(
                [binary, "cluster", "executor", "--scheduler", self.url, "--port", str(free_port()),
                 "--grpc-port", str(free_port()), "--max-lifetime", "3600"], **quiet))
        time.sleep(3)

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "tracesql"))
    ap.add_argument("--ranks", default="64,256")
    ap.add_argument("--work", default="/tmp/tracesql-fleet")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cluster", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    rows = []
    cluster = Cluster(args.bin) if args.cluster else None
    try:
        for n in [int(x) for x in args.ranks.split(",")]:
            files = traces_for(args.work, n)
            data = os.path.join(args.work, f"dataset{n}")
            subprocess.run(["rm", "-rf", data], check=True)
            export = [args.bin, "export", "--append", "--run", "bench", "--jobs", str(args.jobs),
                      "--parquet", data] + files
            wall, rss = timed(export)
            again, _ = timed(export)
            mb = json_bytes(files) / 1e6
            row = {
                "ranks": n,
                "json_mb": mb,
                "gz_mb": sum(os.path.getsize(f) for f in files) / 1e6,
                "dataset_mb": dir_bytes(data) / 1e6,
                "export_s": wall,
                "export_rss_mb": rss,
                "mb_s_core": mb / wall / min(args.jobs, cores),
                "reappend_s": again,
                "cross_local_s": median_time([args.bin, "query", data, "-e", CROSS_RANK], args.repeat),
                "one_local_s": median_time([args.bin, "query", data, "-e", ONE_RANK], args.repeat),
            }
            _, row["cross_local_rss_mb"] = timed([args.bin, "query", data, "-e", CROSS_RANK])
            if cluster:
                remote = [args.bin, "--cluster", cluster.url, "query", data, "-e"]
                row["cross_cluster_s"] = median_time(remote + [CROSS_RANK], args.repeat)
                row["one_cluster_s"] = median_time(remote + [ONE_RANK], args.repeat)
            rows.append(row)
            print(row, flush=True)
    finally:
        if cluster:
            cluster.stop()
    lines = [
        "| ranks | JSON MB | .gz MB | dataset MB | export s | export peak MB | MB/s/core | re-append s"
        " | cross-rank local s | one rank local s | cross-rank peak MB | cross-rank cluster s | one rank cluster s |",
        "|" + "---|" * 13,
    ]
    for r in rows:
        lines.append(
            f"| {r['ranks']} | {r['json_mb']:.0f} | {r['gz_mb']:.0f} | {r['dataset_mb']:.0f} | {r['export_s']:.1f}"
            f" | {r['export_rss_mb']:.0f} | {r['mb_s_core']:.1f} | {r['reappend_s']:.1f} | {r['cross_local_s']:.2f}"
            f" | {r['one_local_s']:.2f} | {r['cross_local_rss_mb']:.0f}"
            f" | {r.get('cross_cluster_s', float('nan')):.2f} | {r.get('one_cluster_s', float('nan')):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
