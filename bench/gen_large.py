#!/usr/bin/env python3
"""Writes a large trace by repeating a real one N times, for the scale benchmarks.

Each copy is shifted in time past the end of the previous one, and every id that
ties events together is renumbered per copy (correlation, External id, flow ids,
Python ids, sequence numbers), so the copies link among themselves exactly as the
original does and never to each other. Metadata events (ph M) and top-level keys
are written once; the profiler's `Trace` span is stretched over all copies.

    python3 bench/gen_large.py TRACE.json.gz --copies 28 --out /tmp/large.json

The default trace and 28 copies give about 1 GB of JSON (events are written
compactly, ~270 bytes each): the 1 GB case of bench/README.md. Integers stay
integers and floats floats, as in the source.
"""

import argparse
import gzip
import json
import os
import sys

# args keys holding ids that tie events together, renumbered per copy.
ARG_IDS = ["correlation", "External id", "Python id", "Python parent id",
           "Sequence number", "Fwd thread id", "Record function id", "Ev Idx"]
# Of those, the ones that are thread ids, not counters: kept as they are.
KEEP = {"Fwd thread id", "Record function id"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    return None


def strides(events):
    """One past the largest value of each renumbered id in the source."""
    top = {key: 0 for key in ARG_IDS if key not in KEEP}
    top["id"] = 0
    for e in events:
        v = as_int(e.get("id"))
        if v is not None:
            top["id"] = max(top["id"], v)
        args = e.get("args")
        if isinstance(args, dict):
            for key in top:
                v = as_int(args.get(key))
                if v is not None:
                    top[key] = max(top[key], v)
    return {key: v + 1 for key, v in top.items()}


def shifted(value, by):
    # Keep the source's number type: an integer trace stays integer.
    return value + (int(by) if isinstance(value, int) else by)


def copy_event(e, k, shift, stride):
    e = dict(e)
    if k and isinstance(e.get("ts"), (int, float)):
        e["ts"] = shifted(e["ts"], k * shift)
    if k and as_int(e.get("id")) is not None:
        e["id"] = as_int(e["id"]) + k * stride["id"]
    args = e.get("args")
    if k and isinstance(args, dict):
        args = dict(args)
        for key, step in stride.items():
            v = as_int(args.get(key))
            if key != "id" and v is not None and v >= 0:
                args[key] = v + k * step
        e["args"] = args
    return e


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--copies", type=int, default=28)
    parser.add_argument("--out", required=True)
    a = parser.parse_args()
    doc = load(a.trace)
    events = doc.pop("traceEvents")
    timed = [e for e in events if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M"]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    shift = int(end - start) + 1000  # µs between copies, a whole number
    stride = strides(events)
    tmp = a.out + ".tmp"
    written = 0
    with open(tmp, "w") as out:
        out.write("{")
        for key, value in doc.items():
            out.write(json.dumps(key) + ": " + json.dumps(value) + ",\n")
        out.write('"traceEvents": [\n')
        first = True
        for k in range(a.copies):
            for e in events:
                if e.get("ph") == "M" and k:
                    continue
                if e.get("cat") == "Trace":
                    if k:
                        continue
                    e = dict(e)
                    e["dur"] = shifted(e.get("dur") or 0, (a.copies - 1) * shift)
                else:
                    e = copy_event(e, k, shift, stride)
                out.write(("" if first else ",\n") + json.dumps(e))
                first = False
                written += 1
        out.write("\n]}\n")
    os.replace(tmp, a.out)
    size = os.path.getsize(a.out)
    print(f"{a.out}: {written} events, {size / 1e6:.0f} MB ({a.copies} copies of "
          f"{len(events)} events, {shift} µs apart)", file=sys.stderr)


if __name__ == "__main__":
    main()
