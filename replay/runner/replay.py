#!/usr/bin/env python3
"""Replays profiled PyTorch ops from a tracesql replay IR and times them.

Written by `tracesql replay`; standalone (Python >= 3.9 and torch, nothing
else). Each IR entry names an op overload and its arguments as the trace
recorded them (shapes, strides, dtypes, scalar values). This script rebuilds
random inputs with those shapes and strides, calls the exact overload, and
reports min / median / p90 / mean time per call.

    python3 replay.py                      # every op of replay_ir.json, on cuda if present
    python3 replay.py --device cpu --iters 20
    python3 replay.py --dry-run            # meta device (cpu where an op has no meta kernel): binding only
    python3 replay.py --only aten::addmm --profile --json results.json

What it does not reproduce: tensor values (random here; data-dependent
kernels such as embedding lookups, sorting or MoE routing may differ), the
cache state left by the ops around it, and anything the IR's `assumptions`
list. Read them before trusting a speedup or a slowdown, and compare the
kernel names (`--profile`) with the traced ones first.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

CUDA_ONLY_PREFIXES = ("aten::cudnn_", "aten::miopen_", "aten::_cudnn_", "aten::_miopen_")
# GPU clock cycles the GPU sleeps before each timed call (~0.1 ms at 2 GHz):
# longer than Python takes to queue the events and the op.
QUEUE_AHEAD_CYCLES = 200_000


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ir", nargs="?", default=os.path.join(here, "replay_ir.json"),
                   help="IR file (default: replay_ir.json beside this script)")
    p.add_argument("--device", choices=["cuda", "cpu", "meta"], default=None,
                   help="where to run (default: cuda when available, else cpu)")
    p.add_argument("--dry-run", action="store_true",
                   help="bind and run each op once on meta (cpu where meta has no kernel), no timing")
    p.add_argument("--only", default=None, help="replay only entries whose op name or id equals this")
    p.add_argument("--limit", type=int, default=None, help="replay at most N entries")
    p.add_argument("--iters", type=int, default=None,
                   help="timed calls per op (default: the IR's run_defaults, else 100)")
    p.add_argument("--warmup", type=int, default=10, help="untimed calls first (default 10)")
    p.add_argument("--l2-flush", action="store_true", help="cuda: write a 256 MB buffer before each timed call")
    p.add_argument("--profile", action="store_true", help="list the kernels each op launches (torch.profiler)")
    p.add_argument("--list-dtype", default=None,
                   help="dtype for tensor lists, whose dtype the trace does not record (e.g. bfloat16)")
    p.add_argument("--json", dest="json_out", default=None, help="write the results to this JSON file")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def load_entries(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    entries = doc["entries"] if isinstance(doc, dict) else doc
    return doc if isinstance(doc, dict) else {}, [e for e in entries if "args" in e]


def as_float(v):
    # Strict JSON carries non-finite floats as strings ("-inf", "nan").
    return float(v) if isinstance(v, str) else v


def make_tensor(torch, spec, device, list_dtype=None):
    if spec.get("device") == "cpu" and device == "cuda":
        device = "cpu"  # a Python number PyTorch wrapped into a 0-dim CPU tensor
    name = spec["dtype"]
    if list_dtype and spec.get("assumed_dtype"):
        name = list_dtype
    dtype = getattr(torch, name)
    shape, strides = spec["shape"], spec["strides"]
    storage = int(spec["storage_numel"])
    init = spec["init"]
    if storage == 0:
        return torch.empty(shape, dtype=dtype, device=device)
    if init == "normal":
        fill_dtype = dtype if dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                        torch.complex64, torch.complex128) else torch.float32
        base = torch.randn(storage, dtype=fill_dtype, device=device).to(dtype)
    elif init.startswith("randint:"):
        base = torch.randint(0, int(init.split(":", 1)[1]), (storage,), dtype=dtype, device=device)
    elif init == "zeros":
        base = torch.zeros(storage, dtype=dtype, device=device)
    else:  # "empty": an output the op overwrites
        base = torch.empty(storage, dtype=dtype, device=device)
    # A view of a base of the recorded extent: stride-0 (broadcast) inputs
    # keep their strides and the base is never written through the view.
    return base.as_strided(shape, strides)


def build_value(torch, arg, device, list_dtype):
    kind = arg["kind"]
    if kind == "tensor":
        return make_tensor(torch, arg["tensor"], device)
    if kind == "tensor_list":
        return [make_tensor(torch, t, device, list_dtype) for t in arg["tensors"]]
    value = arg.get("value")
    if kind in ("dtype", "memory_format", "layout"):
        return getattr(torch, value)
    if kind == "device":
        return torch.device(device)
    if kind == "float":
        return as_float(value)
    if kind in ("scalar", "float_list", "scalar_list"):
        return [as_float(v) for v in value] if isinstance(value, list) else as_float(value)
    return value


def build_call(torch, entry, device, list_dtype, schema=None, warn=print):
    """Positional args, kwargs, and the tensors the op writes (alias '!').

    With `schema` (the running torch's schema of the op), the arguments are
    bound by name to it: an argument the IR has and this torch lacks is dropped
    (with a warning), one this torch has and the IR lacks keeps its default, and
    every argument after a skipped positional one is passed by name. That is
    how an IR built against one torch's registry runs on another (schema drift,
    e.g. an attention op that gained two optional inputs).
    """
    values, written = [], []
    for arg in entry["args"]:
        v = build_value(torch, arg, device, list_dtype)
        if arg["kind"] == "tensor" and "!" in arg["type"]:
            written.append(v)
        values.append((arg, v))
    args, kwargs = [], {}
    ir_names = [arg["name"] for arg, _ in values]
    if schema is None or [a.name for a in schema.arguments] == ir_names:
        for arg, v in values:
            if arg["kw_only"]:
                kwargs[arg["name"]] = v
            else:
                args.append(v)
        return args, kwargs, written
    by_name = {arg["name"]: v for arg, v in values}
    by_keyword = False
    for a in schema.arguments:
        if a.name not in by_name:
            by_keyword = True  # this torch's default; later ones go by name
            continue
        v = by_name.pop(a.name)
        if a.kwarg_only or by_keyword:
            kwargs[a.name] = v
        else:
            args.append(v)
    for name in by_name:
        warn(f"{entry['op_name']}: drops argument {name}: this torch's schema has none of that name")
    return args, kwargs, written


def resolve(torch, entry, warn):
    ns, _, name = entry["op_name"].partition("::")
    packet = getattr(getattr(torch.ops, ns), name)
    overload = entry.get("overload", "").rsplit(".", 1)[-1] or "default"
    op = getattr(packet, overload, None)
    if op is None:
        warn(f"{entry['op_name']}: this torch has no overload {overload}; calling the overload packet")
        return packet
    if str(op._schema) != entry.get("schema"):
        warn(f"{entry['op_name']}: schema differs from the one the IR was built against:\n"
             f"    IR:    {entry.get('schema')}\n    torch: {op._schema}")
    return op


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def time_op(torch, op, call, device, opts):
    args, kwargs, written = call
    # In-place ops keep mutating their inputs: restore them from a pristine
    # copy before each call, outside the timed region.
    pristine = [(t, t.clone()) for t in written]

    def restore():
        for target, copy in pristine:
            target.copy_(copy)

    for _ in range(opts.warmup):
        restore()
        op(*args, **kwargs)
    times = []
    sleep = None
    if device == "cuda":
        flush = torch.empty(64 * 1024 * 1024, dtype=torch.float32, device="cuda") if opts.l2_flush else None
        sleep = getattr(torch.cuda, "_sleep", None)
        torch.cuda.synchronize()
        for _ in range(opts.iters):
            restore()
            if flush is not None:
                flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            # The GPU sleeps while Python queues the events and the op, so the
            # interval is the op's device time, not the host's launch latency
            # (~15-20 us a call, more than most traced kernels).
            if sleep is not None:
                sleep(QUEUE_AHEAD_CYCLES)
            start.record()
            op(*args, **kwargs)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
    else:
        for _ in range(opts.iters):
            restore()
            t0 = time.perf_counter()
            op(*args, **kwargs)
            times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    return {
        "timing": ("cuda events, the op queued behind a GPU sleep" if device == "cuda" and sleep is not None
                   else "cuda events" if device == "cuda" else "wall clock"),
        "iters": len(times),
        "min_us": times[0],
        "median_us": statistics.median(times),
        "p90_us": percentile(times, 0.9),
        "mean_us": statistics.fmean(times),
    }


def kernels_of(torch, op, args, kwargs, device):
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof:
        for _ in range(3):
            op(*args, **kwargs)
        if device == "cuda":
            torch.cuda.synchronize()
    names = set()
    for evt in prof.events():
        if str(getattr(evt, "device_type", "")).endswith("CUDA"):
            names.add(evt.name)
    return sorted(names)


def run_entry(torch, entry, device, opts, warn):
    result = {"id": entry.get("id"), "op": entry["op_name"], "overload": entry.get("overload"),
              "device": device}
    op = resolve(torch, entry, warn)
    if opts.dry_run:
        tried = []
        for dev in ("meta", "cpu"):
            try:
                args, kwargs, _ = build_call(torch, entry, dev, opts.list_dtype,
                                             getattr(op, "_schema", None), warn)
                op(*args, **kwargs)
                result.update(status="ok", device=dev)
                return result
            except Exception as e:  # noqa: BLE001 - every failure is reported
                tried.append(f"{dev}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                if dev == "meta" and entry["op_name"].startswith(CUDA_ONLY_PREFIXES):
                    result.update(status="skipped", error="CUDA-only op without a meta kernel")
                    return result
        result.update(status="failed", error="; ".join(tried))
        return result
    call = build_call(torch, entry, device, opts.list_dtype, getattr(op, "_schema", None), warn)
    try:
        op(*call[0], **call[1])
    except NotImplementedError as e:
        # A kernel this backend lacks (flash attention on cpu): not a bad IR.
        if "backend" in str(e):
            result.update(status="skipped", error=f"no {device} kernel for this op")
            return result
        raise
    result.update(time_op(torch, op, call, device, opts))
    args, kwargs, _ = call
    traced = entry.get("traced") or {}
    if traced.get("kernel_us_median"):
        result["traced_median_us"] = traced["kernel_us_median"]
        result["ratio_to_traced"] = result["median_us"] / traced["kernel_us_median"]
    if opts.profile:
        result["kernels"] = kernels_of(torch, op, args, kwargs, device)
        if device == "cuda" and traced.get("kernel_names"):
            result["kernels_subset_of_traced"] = set(result["kernels"]) <= set(traced["kernel_names"])
    result["status"] = "ok"
    return result


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    header, entries = load_entries(opts.ir)
    defaults = header.get("run_defaults") or {}
    if opts.iters is None:
        opts.iters = int(defaults.get("iters", 100))
    if opts.device is None:
        opts.device = defaults.get("device")
    if opts.only:
        entries = [e for e in entries if opts.only in (e["op_name"], str(e.get("id")))]
    if opts.limit is not None:
        entries = entries[: opts.limit]
    import torch  # imported late: --help and IR errors need no torch

    torch.manual_seed(opts.seed)
    device = opts.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda but torch sees no GPU (use --device cpu or meta)", file=sys.stderr)
        return 2
    device_name = torch.cuda.get_device_name() if device == "cuda" else device
    warnings = []

    def warn(text):
        warnings.append(text)
        print(f"warning: {text}", file=sys.stderr)

    print(f"torch {torch.__version__} on {device_name}; IR from {header.get('schema_catalog', '?')}")
    results = []
    for k, entry in enumerate(entries, 1):
        label = f"[{k}/{len(entries)}] {entry['op_name']} ({entry.get('id', '?')})"
        try:
            with torch.no_grad():
                r = run_entry(torch, entry, device, opts, warn)
        except Exception as e:  # noqa: BLE001 - one op's failure must not stop the batch
            r = {"id": entry.get("id"), "op": entry["op_name"], "status": "failed",
                 "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
        results.append(r)
        if r["status"] != "ok" or opts.dry_run:
            print(f"{label}: {r['status']} {r.get('device', '')} {r.get('error', '')}".rstrip())
        else:
            extra = f" traced {r['traced_median_us']:.2f} us (x{r['ratio_to_traced']:.2f})" if "traced_median_us" in r else ""
            print(f"{label}: median {r['median_us']:.2f} us, min {r['min_us']:.2f}, "
                  f"p90 {r['p90_us']:.2f}, mean {r['mean_us']:.2f} over {r['iters']}{extra}")
            for name in r.get("kernels", []):
                print(f"    kernel: {name}")
        for assumption in entry.get("assumptions") or []:
            print(f"    assumes {assumption}")
    counts = {s: sum(r["status"] == s for r in results) for s in ("ok", "failed", "skipped")}
    print(f"attempted {len(results)}, ok {counts['ok']}, failed {counts['failed']}, skipped {counts['skipped']}")
    if opts.json_out:
        doc = {"torch_version": torch.__version__, "device": device, "device_name": device_name,
               "ir": os.path.basename(opts.ir), "results": results, "warnings": warnings}
        with open(opts.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
    return 0 if counts["failed"] == 0 and counts["ok"] + counts["skipped"] == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
