"""Writes the op-schema catalog of one torch build: `torch-<version>.tsv`.

The catalog is what `tracesql replay` matches a traced op against, so building
a replay IR needs no Python and no torch. Run once per torch version, with
that torch installed:

    python3 replay/catalog/generate.py replay/catalog/

Each line is `name TAB n_args TAB schema`, in `torch._C._jit_get_all_schemas()`
order (the order TraceLens tries overloads in; it is fixed for one torch build).
`n_args` is `len(schema.arguments)`, which the tests hold our parser to. The
header lines (`#`) record the torch version, the count and the sha256 of the
schema text, so a changed catalog is visible in review.
"""
import hashlib
import sys

import torch

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
schemas = torch._C._jit_get_all_schemas()
text = "\n".join(str(s) for s in schemas)
version = torch.__version__
lines = [
    f"# torch {version}",
    f"# schemas {len(schemas)}",
    f"# sha256 {hashlib.sha256(text.encode()).hexdigest()}",
]
for s in schemas:
    line = str(s)
    assert "\t" not in line and "\n" not in line, line
    lines.append(f"{s.name}\t{len(s.arguments)}\t{line}")
path = f"{out_dir.rstrip('/')}/torch-{version.split('+')[0]}.tsv"
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
print(f"{path}: {len(schemas)} schemas")
