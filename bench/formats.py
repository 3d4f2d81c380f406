#!/usr/bin/env python3
"""tracesql benchmark: the non-Kineto readers, per byte, against the Kineto reader.

Cases (wall time median of --runs, peak RSS the largest), for each input:
  * `tracesql tables FILE`: the load alone (decompress, parse, link, tables);
  * `tracesql report FILE --out DIR`: the load plus the format's report sheets;
  * baseline: Python's `json.load` of the same file;
  * with --tracelens PYTHON: TraceLens's own report for that format (one run).
Inputs:
  * rocprofv3 JSON: ../shared/conformance/formats/rocprof/908_results (real,
    37 MB, 43,915 dispatches);
  * Perfetto-style JSON: generated here (--perfetto-launches launches, each an
    X hip_api slice and a b/e kernel pair, as traceconv exports rocprofv3);
  * JAX XPlane: generated here (--xplane-kernels kernels on one GPU stream,
    each launched from the host plane, with the stats JAX writes: hlo_op,
    hlo_module, program_id, kernel_details, correlation_id);
  * Kineto JSON: the default trace of bench/run.py (owlv2, 55.6 MB), the
    per-byte yardstick: each reader should load at least as many MB/s.

Usage: bench/formats.py [--bin target/release/tracesql] [--runs 5] [--tracelens PY]
Build first: cargo build --release
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile

from run import DEFAULT_TRACE, ROOT, measure, uncompressed_size

CONFORMANCE = os.environ.get("TRACESQL_CONFORMANCE", os.path.join(ROOT, "..", "shared", "conformance"))
ROCPROF = os.path.join(CONFORMANCE, "formats", "rocprof", "908_results", "908_results.json.gz")

TRACELENS = {
    "rocprofv3": (
        "import sys\n"
        "from TraceLens.Reporting.generate_perf_report_rocprof import generate_perf_report_rocprof\n"
        "generate_perf_report_rocprof(sys.argv[1], output_csvs_dir=sys.argv[2], kernel_details=True, short_kernel_study=True)\n"
    ),
    "pftrace": (
        "import sys\n"
        "from TraceLens.Reporting.generate_perf_report_pftrace_hip_api import generate_perf_report_pftrace_hip_api\n"
        "from TraceLens.Reporting.generate_perf_report_pftrace_hip_activity import generate_perf_report_pftrace_hip_activity\n"
        "from TraceLens.Reporting.generate_perf_report_pftrace_memory_copy import generate_perf_report_pftrace_memory_copy\n"
        "t, out = sys.argv[1], sys.argv[2]\n"
        "generate_perf_report_pftrace_hip_api(t, output_csvs_dir=out + '/a')\n"
        "generate_perf_report_pftrace_hip_activity(t, output_csvs_dir=out + '/b')\n"
        "generate_perf_report_pftrace_memory_copy(t, output_csvs_dir=out + '/c')\n"
    ),
}


def write_perfetto(path, launches):
    """A rocprofv3-shaped Perfetto JSON export with `launches` kernel launches."""
    rng = random.Random(7)
    names = ["Cijk_Ailk_Bljk_BBS_BH_MT256x128x64.kd",
             "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >() [clone .kd]",
             "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>) [clone .kd]",
             "loop_add_fusion_%d", "__amd_rocclr_fillBufferAligned.kd"]
    t = 9_000_000_000_000
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write(json.dumps({"ph": "M", "cat": "__metadata", "name": "process_name", "pid": 7000, "tid": 0,
                            "ts": 0, "args": {"name": "python3"}}))
        for i in range(1, launches + 1):
            name = rng.choice(names)
            if "%d" in name:
                name = name % rng.randrange(40)
            agent = "Agent-%d" % (2 + i % 8)
            t += rng.randrange(2_000, 9_000)
            api = {"ph": "X", "cat": "hip_api", "name": "hipLaunchKernel", "pid": 7000, "tid": 7000,
                   "ts": t // 1000, "dur": 4,
                   "args": {"begin_ns": t, "end_ns": t + 4_000, "delta_ns": 4_000, "tid": 7000, "kind": 5,
                            "operation": 1, "corr_id": i, "ancestor_id": 0}}
            b = t + rng.randrange(1_000, 20_000)
            d = rng.randrange(2_000, 400_000)
            kb = {"ph": "b", "cat": "kernel_dispatch", "name": name, "pid": 7000, "tid": 7000, "ts": b // 1000,
                  "id2": {"local": "0x200b"},
                  "args": {"begin_ns": b, "end_ns": b + d, "delta_ns": d, "kind": 11, "agent": agent,
                           "agent_type": "GPU", "corr_id": i, "queue": 11, "tid": 7000, "kernel_id": 3,
                           "private_segment_size": 0, "group_segment_size": 16384, "workgroup_size": 256,
                           "grid_size": 65536}}
            ke = {"ph": "e", "cat": "kernel_dispatch", "name": name, "pid": 7000, "tid": 7000,
                  "ts": (b + d) // 1000, "id2": {"local": "0x200b"}, "args": {}}
            for e in (api, kb, ke):
                f.write(",\n")
                f.write(json.dumps(e, separators=(",", ":")))
        f.write("\n]}\n")


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(tag, value):
    """One protobuf field: ints as varints, str/bytes length-delimited."""
    if isinstance(value, int):
        return _varint(tag << 3) + _varint(value)
    if isinstance(value, str):
        value = value.encode()
    return _varint(tag << 3 | 2) + _varint(len(value)) + value


def _message(*fields):
    return b"".join(_field(tag, value) for tag, value in fields)


def write_xplane(path, kernels):
    """A JAX-shaped XSpace: a host plane launching `kernels` kernels on a GPU stream."""
    rng = random.Random(11)
    stat_names = {1: "correlation_id", 2: "hlo_op", 3: "hlo_module", 4: "program_id", 5: "kernel_details"}
    stat_meta = [(5, _message((1, k), (2, _message((1, k), (2, v))))) for k, v in stat_names.items()]
    ops = ["fusion.%d" % i for i in range(40)] + ["cudnn-conv.1", "custom-call.3", "copy.7"]
    gpu_meta = [(4, _message((1, i + 1), (2, _message((1, i + 1), (2, name)))))
                for i, name in enumerate(ops)]
    host_meta = [(4, _message((1, 1), (2, _message((1, 1), (2, "ThunkExecutor::Execute")))))]
    gpu_events, host_events = [], []
    t = 0
    for corr in range(1, kernels + 1):
        op = rng.randrange(len(ops))
        t += rng.randrange(2_000_000, 9_000_000)
        dur = rng.randrange(1_000_000, 400_000_000)
        details = "grid:%d,1,1 block:256,1,1 private_mem:0 group_mem:%d occ_pct:50" % (
            rng.randrange(1, 4096), rng.choice([0, 16384, 49280]))
        stats = [(4, _message((1, 1), (4, corr))), (4, _message((1, 2), (5, ops[op]))),
                 (4, _message((1, 3), (5, "jit_train_step"))), (4, _message((1, 4), (4, 7))),
                 (4, _message((1, 5), (5, details)))]
        gpu_events.append((4, _message((1, op + 1), (2, t + 3_000_000), (3, dur), *stats)))
        host_events.append((4, _message((1, 1), (2, t), (3, 4_000_000),
                                        (4, _message((1, 1), (4, corr))))))
    gpu_line = _message((1, 7), (2, "Stream #7(compute)"), (3, 1_000_000), *gpu_events)
    host_line = _message((1, 4242), (2, "python3"), (3, 1_000_000), *host_events)
    gpu = _message((1, 1), (2, "/device:GPU:0"), (3, gpu_line), *gpu_meta, *stat_meta)
    host = _message((1, 2), (2, "/host:CPU"), (3, host_line), *host_meta, *stat_meta)
    with open(path, "wb") as f:
        f.write(_message((1, gpu), (1, host)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tracesql"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--perfetto-launches", type=int, default=60_000)
    parser.add_argument("--xplane-kernels", type=int, default=100_000)
    parser.add_argument("--tracelens", metavar="PYTHON",
                        help="a Python with TraceLens installed: time its report once per format")
    args = parser.parse_args()
    for path in (args.bin, ROCPROF, DEFAULT_TRACE):
        if not os.path.exists(path):
            sys.exit(f"not found: {path}")
    work = tempfile.mkdtemp(prefix="tracesql-bench-formats-")
    try:
        perfetto = os.path.join(work, "perfetto_rocprofv3_like.json")
        write_perfetto(perfetto, args.perfetto_launches)
        xplane = os.path.join(work, "jax_like.xplane.pb")
        write_xplane(xplane, args.xplane_kernels)
        inputs = [("kineto", DEFAULT_TRACE), ("rocprofv3", ROCPROF), ("pftrace", perfetto),
                  ("jax", xplane)]
        out = os.path.join(work, "out")
        py_load = ("import gzip,json,sys; p=sys.argv[1]; "
                   "json.load(gzip.open(p) if p.endswith('.gz') else open(p,'rb'))")
        rows = []
        load_rate = {}
        for fmt, path in inputs:
            mb = uncompressed_size(path) / 1e6
            cases = [
                ("tables", [args.bin, "tables", path], args.runs),
                ("report --out", [args.bin, "report", path, "--platform", "none", "--out", out], args.runs),
            ]
            if fmt != "jax":  # a protobuf: no JSON parse to compare with
                cases.append(("python json.load", [sys.executable, "-c", py_load, path], args.runs))
            if args.tracelens and fmt in TRACELENS:
                cases.append(("TraceLens report", [args.tracelens, "-c", TRACELENS[fmt], path,
                                                    os.path.join(work, "tl")], 1))
            for label, argv, runs in cases:
                wall, rss = measure(argv, runs)
                shutil.rmtree(out, ignore_errors=True)
                rows.append((fmt, label, mb, wall, rss))
                if label == "tables":
                    load_rate[fmt] = mb / wall
        print(f"{'input':10} {'case':18} {'MB':>7} {'wall s':>8} {'MB/s':>8} {'peak RSS MB':>12}")
        for fmt, label, mb, wall, rss in rows:
            print(f"{fmt:10} {label:18} {mb:7.1f} {wall:8.3f} {mb / wall:8.1f} {rss / 1e6:12.1f}")
        print()
        for fmt in ("rocprofv3", "pftrace", "jax"):
            ratio = load_rate[fmt] / load_rate["kineto"]
            print(f"{fmt} reader: {ratio:.2f}x the Kineto reader's MB/s (tables, same run)")
        for fmt, label, mb, wall, _ in rows:
            if label == "python json.load":
                ours = next(w for f, l, _, w, _ in rows if f == fmt and l == "report --out")
                print(f"{fmt}: report --out takes {ours / wall:.2f}x the time of json.load alone")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
