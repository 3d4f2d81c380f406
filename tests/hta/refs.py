#!/usr/bin/env python3
"""HTA's outputs for the shared traces: the references tracesql's HTA reports
are compared with (tests/integration/hta.rs).

Holistic Trace Analysis is installed from PyPI (`traceinsight`, pinned below)
into a throwaway virtual environment under OUT, then each trace set is analysed
and every analysis written as OUT/<set>/<analysis>.csv (pandas' to_csv, no
index), or OUT/<set>/<analysis>.error with the exception HTA raised. The time
HTA took per analysis goes to OUT/<set>/timings.json; OUT/sets.json lists each
set's trace files.

Sets: each single trace of SHARED/traces/<gpu>/<name>.json.gz (set
`traces/<gpu>/<name>`), and each multi-rank set SHARED/collectives/<set>/traces/
(set `collectives/<set>`), and a few traces of our own (FIXTURES, set
`fixtures/<name>`). OUT/done is written last, naming HTA's version and
the analyses: a reader that finds it finds every file.

    python3 tests/hta/refs.py --out target/hta-refs [--shared ../shared/conformance]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

HTA = "traceinsight==0.6.1"
# HTA 0.6.1 assigns into downcast integer columns, which pandas 3 refuses
# (TypeError on the triton and timesformer traces); its users run pandas 2.
PINS = ["pandas<3"]

# name in tracesql (HTA's function without get_) -> how to call HTA.
ANALYSES = {
    "temporal_breakdown": lambda ta: ta.get_temporal_breakdown(visualize=False),
    # Every rank (HTA's default is rank 0 alone), HTA's default threshold (30).
    "idle_time_breakdown": lambda ta: ta.get_idle_time_breakdown(
        ranks=sorted(ta.t.traces), visualize=False
    )[0],
    # HTA's defaults (duration_ratio 0.8, num_kernels 10, memory kernels
    # included): its two frames, kernel types and the top kernels per rank.
    "gpu_kernel_breakdown": lambda ta: once(ta, "gpu_kernel_breakdown")[0],
    "gpu_kernel_breakdown_kernels": lambda ta: once(ta, "gpu_kernel_breakdown")[1],
    "comm_comp_overlap": lambda ta: ta.get_comm_comp_overlap(visualize=False),
    # Every rank, HTA's defaults (its cut-offs only shape its plots).
    "cuda_kernel_launch_stats": lambda ta: per_rank(
        ta.get_cuda_kernel_launch_stats(ranks=ta.t.get_ranks(), visualize=False)
    ),
    # One call per rank: called with several ranks, HTA adds each rank's
    # launches to the next rank's frame.
    "aten_op_kernels_and_delay": lambda ta: pd().concat(
        [
            ta.get_aten_op_kernels_and_delay(ranks=[r])[r].assign(rank=r)
            for r in ta.t.get_ranks()
        ],
        ignore_index=True,
    ),
    "queue_length_time_series": lambda ta: per_rank(
        ta.get_queue_length_time_series(ranks=ta.t.get_ranks()),
        index=True,
        columns=["rank", "index", "ts", "pid", "tid", "stream", "queue_length"],
    ),
    "queue_length_summary": lambda ta: summary(
        ta.get_queue_length_summary(ranks=ta.t.get_ranks()), ["rank", "stream"]
    ),
    "memory_bw_time_series": lambda ta: per_rank(
        ta.get_memory_bw_time_series(ranks=ta.t.get_ranks()),
        columns=["rank", "ts", "pid", "name", "memory_bw_gbps"],
    ),
    "memory_bw_summary": lambda ta: summary(
        ta.get_memory_bw_summary(ranks=ta.t.get_ranks()), ["rank", "name"]
    ),
    # Every rank; the operator and pattern length the tests pass too
    # (tests/integration/hta.rs, PARAMS).
    "frequent_cuda_kernel_sequences": lambda ta: sequences(ta, "aten::linear", 1),
    # The counter events of HTA's augmented trace (generate_trace_with_counters,
    # every rank), one row each: what `tracesql export --counters` must add.
    "trace_counters": lambda ta: counter_events(ta),
    # Every rank: the first ProfilerStep (HTA's instance 0), summary() as a frame.
    "critical_path_summary": lambda ta: critical_path_summary(ta, "ProfilerStep", 0),
    # The same paths edge by edge: where each edge leaves and reaches, its
    # weight, type and bound.
    "critical_path": lambda ta: critical_path_edges(ta, "ProfilerStep", 0),
}

STATISTICS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def pd():
    """pandas, inside the venv (this file runs outside it first)."""
    import pandas

    return pandas


def per_rank(frames: dict, index: bool = False, columns=None):
    """HTA's {rank: frame} as one frame with a rank column (its index too,
    when it is the event's position in the trace)."""
    parts = [
        (f.reset_index() if index else f.reset_index(drop=True)).assign(rank=r)
        for r, f in sorted(frames.items())
    ]
    if not parts:
        return pd().DataFrame(columns=columns or ["rank"])
    frame = pd().concat(parts, ignore_index=True)
    return frame[columns] if columns else frame


def sequences(ta, operator: str, min_pattern_len: int):
    """HTA's kernel sequences of `operator` on every rank (its overlay trace
    goes to a throwaway folder)."""
    parts = []
    with tempfile.TemporaryDirectory() as out:
        for r in ta.t.get_ranks():
            frame = ta.get_frequent_cuda_kernel_sequences(
                operator, out, min_pattern_len=min_pattern_len, rank=r
            )
            if not frame.empty:
                parts.append(frame.assign(rank=r))
    columns = ["pattern", "count", "GPU kernel duration (us)", "CPU op duration (us)", "rank"]
    return pd().concat(parts, ignore_index=True) if parts else pd().DataFrame(columns=columns)


def counter_events(ta):
    """The ph "C" events HTA writes into <trace>_with_counters.json, as rows
    (rank, name, pid, ts, id, arg, value); the file itself is removed."""
    import gzip

    rows = []
    ta.generate_trace_with_counters(ranks=ta.t.get_ranks())
    for rank, path in sorted(ta.t.trace_files.items()):
        written = Path(path.replace(".json", "_with_counters.json"))
        if not written.exists():
            continue
        with gzip.open(written, "rt") as f:
            events = json.load(f)["traceEvents"]
        written.unlink()
        for e in events:
            if e.get("ph") == "C":
                for arg, value in e["args"].items():
                    rows.append([rank, e["name"], e["pid"], e["ts"], e.get("id"), arg, value])
    return pd().DataFrame(rows, columns=["rank", "name", "pid", "ts", "id", "arg", "value"])


def critical_paths(ta, annotation: str, instance: int):
    """(rank, graph) of HTA's critical path on every rank that has the
    annotation (HTA returns None for one without)."""
    for r in ta.t.get_ranks():
        found = ta.critical_path_analysis(rank=r, annotation=annotation, instance_id=instance)
        if found is None:
            continue
        graph, ok = found
        if not ok:
            raise RuntimeError("HTA's critical path graph is not valid (a cycle, or a sync on one stream)")
        yield r, graph


def critical_path_summary(ta, annotation: str, instance: int):
    """HTA's critical path summary (bound_by -> % of the path) on every rank;
    no rows for a rank without the annotation."""
    import contextlib
    import io

    parts = []
    for r, graph in critical_paths(ta, annotation, instance):
        with contextlib.redirect_stdout(io.StringIO()):  # summary() prints a title
            shares = graph.summary()
        parts.append(
            pd().DataFrame({"rank": r, "bound_by": shares.index, "duration": shares.values})
        )
    columns = ["rank", "bound_by", "duration"]
    return pd().concat(parts, ignore_index=True) if parts else pd().DataFrame(columns=columns)


def critical_path_edges(ta, annotation: str, instance: int):
    """HTA's critical path on every rank, one row per edge: the times and
    ends (start / end of an event) of the nodes it joins, its weight, its
    type without HTA's `critical_path_` prefix and its bound (HTA's
    get_critical_path_breakdown, whose rows follow the same edge set)."""
    rows = []
    for r, graph in critical_paths(ta, annotation, instance):
        edges = list(graph.critical_path_edges_set)
        breakdown = graph.get_critical_path_breakdown()
        bounds = [] if breakdown is None else list(breakdown["bound_by"])
        assert len(bounds) == len(edges), "the breakdown has a row per path edge"
        for edge, bound in zip(edges, bounds):
            src, dst = graph.node_list[edge.begin], graph.node_list[edge.end]
            rows.append([
                r, src.ts, "start" if src.is_start else "end", dst.ts, "start" if dst.is_start else "end",
                edge.weight, edge.type.value.removeprefix("critical_path_"), bound,
            ])
    columns = ["rank", "src_ts", "src", "dst_ts", "dst", "duration", "type", "bound_by"]
    return pd().DataFrame(rows, columns=columns)


def summary(frame, keys):
    """HTA's describe() per key, flat: one column per statistic."""
    if frame is None or frame.empty:
        return pd().DataFrame(columns=keys + STATISTICS)
    return frame.droplevel(0, axis=1).reset_index()

_ONCE = {}


def once(ta, analysis: str):
    """HTA's `get_<analysis>(visualize=False)` on `ta`, called once: an analysis
    that returns several frames is several references."""
    key = (id(ta), analysis)
    if key not in _ONCE:
        _ONCE.clear()
        _ONCE[key] = getattr(ta, f"get_{analysis}")(visualize=False)
    return _ONCE[key]


def ensure_venv(out: Path) -> Path:
    """OUT/venv with HTA installed; its python."""
    env = out / "venv"
    python = env / "bin" / "python"
    marker = env / "installed"
    wanted = " ".join([HTA, *PINS])
    if not marker.exists() or marker.read_text().strip() != wanted:
        venv.EnvBuilder(with_pip=True, clear=True).create(env)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", HTA, *PINS],
            check=True,
        )
        marker.write_text(wanted + "\n")
    return python


# Traces of our own (fixtures/), read by HTA as well: set `fixtures/<name>`.
FIXTURES = [
    "basic_linear.json",
    "gpu_only.json",
    "nccl_graph.json",
    "conformance/integer_times.json",
    "field/moe_step.json",
    "field/decode_step.json",
]


def sets(shared: Path):
    """(set name, [trace files]) for every shared trace set and our fixtures."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    for name in FIXTURES:
        if (fixtures / name).is_file():
            yield f"fixtures/{Path(name).stem}", [fixtures / name]
    for trace in sorted((shared / "traces").glob("*/*.json.gz")):
        name = trace.name[: -len(".json.gz")]
        yield f"traces/{trace.parent.name}/{name}", [trace]
    for folder in sorted((shared / "collectives").glob("*/traces")):
        files = sorted(p for p in folder.iterdir() if p.name.endswith((".json", ".json.gz")))
        if files:
            yield f"collectives/{folder.parent.name}", files


def stable_sorts() -> None:
    """pandas' sort_values stable unless a call asks otherwise. HTA sorts with
    the default quicksort, whose order among equal keys depends on the CPU
    (numpy's SIMD sorts): where events tie (a launch and a kernel start in the
    same µs, kernels of equal totals) HTA's output would change with the
    machine. Stable, it is the same everywhere: HTA's answer with its ties in
    row order, which tracesql's compat mode reproduces."""
    import pandas

    for cls in (pandas.DataFrame, pandas.Series):
        original = cls.sort_values

        def stable(self, *args, _original=original, **kwargs):
            kwargs.setdefault("kind", "stable")
            return _original(self, *args, **kwargs)

        cls.sort_values = stable


def run(out: Path, shared: Path) -> None:
    """Inside the venv: analyse every set."""
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    stable_sorts()
    from hta.trace_analysis import TraceAnalysis

    listed = {}
    for name, files in sets(shared):
        listed[name] = [str(f.resolve()) for f in files]
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        timings = {}
        with tempfile.TemporaryDirectory() as tmp:
            for f in files:
                os.symlink(f.resolve(), Path(tmp) / f.name)
            start = time.perf_counter()
            try:
                ta = TraceAnalysis(trace_dir=tmp)
            except Exception as e:  # HTA cannot read it: every analysis fails so
                for analysis in ANALYSES:
                    (target / f"{analysis}.error").write_text(f"{type(e).__name__}: {e}\n")
                continue
            timings["load"] = time.perf_counter() - start
            for analysis, call in ANALYSES.items():
                start = time.perf_counter()
                try:
                    frame = call(ta)
                except Exception as e:
                    (target / f"{analysis}.error").write_text(f"{type(e).__name__}: {e}\n")
                    continue
                timings[analysis] = time.perf_counter() - start
                frame.to_csv(target / f"{analysis}.csv", index=False)
        (target / "timings.json").write_text(json.dumps(timings, indent=1) + "\n")
        print(f"{name}: {', '.join(sorted(timings))}", file=sys.stderr)
    (out / "sets.json").write_text(json.dumps(listed, indent=1) + "\n")
    (out / "done").write_text(f"{HTA}\n{','.join(ANALYSES)}\n")


def main() -> None:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shared", type=Path, default=here.parents[1] / ".." / "shared" / "conformance")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out, shared = args.out.resolve(), args.shared.resolve()
    if args.inside:
        run(out, shared)
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / "done").unlink(missing_ok=True)
    python = ensure_venv(out)
    subprocess.run(
        [str(python), __file__, "--inside", "--out", str(out), "--shared", str(shared)],
        check=True,
    )


if __name__ == "__main__":
    main()
