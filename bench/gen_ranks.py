#!/usr/bin/env python3
"""Make a synthetic distributed run: N rank traces, each a real trace's size.

Every rank is a copy of a real single-GPU trace (default: the h100 Qwen
conformance trace, 8.6 MB of JSON) with `--collectives K` allreduces added the
way PyTorch 2.x records them: record_param_comms (with Seq) → launch → ac2g
flow → an NCCL kernel carrying the collective metadata. Arrivals jitter per
rank (seeded), one rank (`--straggler`) arrives late at every collective, the
kernels of one instance end together, and each node of `--gpus-per-node` ranks
gets its own clock offset (`--node-offset-us` per node) so that clock alignment
has work to do. distributedInfo names the rank and world size.

Usage: bench/gen_ranks.py OUT_DIR [--ranks 64] [--collectives 500] [--base TRACE]
Writes OUT_DIR/rank<r>_trace.json.gz. Deterministic for given arguments.
"""

import argparse
import gzip
import io
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_BASE = os.path.join(
    os.environ.get("TRACESQL_CONFORMANCE", os.path.join(ROOT, "..", "shared", "conformance")),
    "traces", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def span_of(events):
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    start = min(e["ts"] for e in gpu)
    end = max(e["ts"] + e["dur"] for e in gpu)
    host = next(e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op")
    device = gpu[0].get("args", {}).get("device", 0)
    return start, end, host["pid"], host["tid"], device


def collective_events(k, arrival, dur, seq, world, ids, where):
    pid, tid, device, gpu_pid = where
    correlation, external = ids
    meta = {
        "Collective name": "allreduce", "In msg nelems": 4194304, "Out msg nelems": 4194304,
        "Group size": world, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]",
        "Process Group Name": "0", "Process Group Description": "default_pg",
        "Process Group Ranks": "[" + ", ".join(str(r) for r in range(world)) + "]",
    }
    record = {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": tid,
              "ts": arrival - 30.0, "dur": 20.0,
              "args": dict(meta, **{"External id": external, "Seq": seq, "Rank": 0})}
    launch = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
              "ts": arrival - 25.0, "dur": 5.0,
              "args": {"External id": external, "correlation": correlation}}
    kernel = {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
              "pid": gpu_pid, "tid": 99, "ts": arrival, "dur": dur,
              "args": dict(meta, **{"External id": external, "correlation": correlation,
                                    "device": device, "stream": 99})}
    flow = [{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": correlation, "pid": pid, "tid": tid,
             "ts": arrival - 25.0},
            {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": correlation, "pid": gpu_pid, "tid": 99,
             "ts": arrival, "bp": "e"}]
    return [record, launch, kernel] + flow


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--collectives", type=int, default=500)
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--straggler", type=int, default=5)
    parser.add_argument("--node-offset-us", type=float, default=700.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.path.exists(args.base):
        sys.exit(f"base trace not found: {args.base}")
    base = load(args.base)
    events = base["traceEvents"]
    start, end, pid, tid, device = span_of(events)
    gpu_pid = next(e["pid"] for e in events if e.get("cat") == "kernel")
    step = (end - start) / args.collectives
    rng = random.Random(args.seed)
    # Per instance: each rank's arrival lateness; the kernels end together.
    arrivals = [[rng.uniform(0.0, 40.0) + (150.0 if r == args.straggler else 0.0)
                 for r in range(args.ranks)] for _ in range(args.collectives)]
    os.makedirs(args.out, exist_ok=True)
    for r in range(args.ranks):
        node_offset = (r // args.gpus_per_node) * args.node_offset_us
        added = []
        for k in range(args.collectives):
            t0 = start + (k + 0.5) * step
            last = max(arrivals[k])
            arrival = t0 + arrivals[k][r]
            dur = (t0 + last + 60.0) - arrival  # 60 µs of transfer after the last arrival
            ids = (900_000_000 + k, 800_000_000 + k)
            added += collective_events(k, arrival + node_offset, dur, k, args.ranks, ids,
                                       (pid, tid, device, gpu_pid))
        trace = {key: value for key, value in base.items() if key != "traceEvents"}
        trace["distributedInfo"] = {"backend": "nccl", "rank": r, "world_size": args.ranks}
        trace["traceEvents"] = events + added
        path = os.path.join(args.out, f"rank{r}_trace.json.gz")
        with gzip.GzipFile(path, "wb", compresslevel=1, mtime=0) as raw:
            with io.TextIOWrapper(raw, encoding="utf-8") as f:
                json.dump(trace, f)
        print(f"{path}: {len(trace['traceEvents'])} events", file=sys.stderr)


if __name__ == "__main__":
    main()
