#!/usr/bin/env python3
"""Writes the generated seeds of the perfetto_reader and xplane_reader fuzz
targets (python3 fuzz/format_seeds.py), with bench/formats.py's writers at a
few events each, so that the seeds are the benchmark's shapes in small. The
other seeds of these targets are our fixture fixtures/formats/pftrace_small.json
(copied) and the XPlane unit tests' space (`write_xplane_fuzz_seed`, an
ignored test in src/ingest/xplane/tests.rs).
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import formats  # noqa: E402  (bench/formats.py)

CORPUS = os.path.join(HERE, "corpus")


def main():
    perfetto = os.path.join(CORPUS, "perfetto_reader")
    xplane = os.path.join(CORPUS, "xplane_reader")
    os.makedirs(perfetto, exist_ok=True)
    os.makedirs(xplane, exist_ok=True)
    formats.write_perfetto(os.path.join(perfetto, "seed-bench-export"), 4)
    shutil.copyfile(os.path.join(HERE, "..", "fixtures", "formats", "pftrace_small.json"),
                    os.path.join(perfetto, "seed-fixture-pftrace-small"))
    formats.write_xplane(os.path.join(xplane, "seed-bench-space"), 3)


if __name__ == "__main__":
    main()
