"""tracesql: GPU profiler traces as SQL tables, in Python.

Open traces once, ask anything in SQL, get the answer as Arrow, pandas or
Polars (handed over without a copy)::

    import tracesql
    s = tracesql.open("trace.json.gz")          # a Session
    s.report("ops_summary").to_pandas()         # TraceLens's sheet, as a DataFrame
    s.sql("SELECT name, sum(dur) AS us FROM kernels GROUP BY 1 ORDER BY 2 DESC").to_polars()
    s.analyze().recommendations                 # prioritized findings
    tracesql.compare("h100.json.gz", "mi300x.json.gz").sheet("compare_ops_summary")

The engine is the `tracesql` command line's (Rust, Apache DataFusion): the
same tables, views, UDFs, reports and analyses, the same numbers.
Everything here releases the GIL while it works, and Ctrl-C stops it.
"""

import os as _os

from tracesql import _native
from tracesql._native import (
    Analysis,
    Collectives,
    Comparison,
    InternalError,
    QueryError,
    Result,
    Session,
    Sheets,
    TraceError,
    __version__,
    collectives,
    compare,
    open,
)

# A child made by fork() must not inherit the engine's threads mid-way through
# anything: they are stopped before each fork (when no call is under way) and
# started again at the next call. See blocking::before_fork in python/src.
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(before=_native._before_fork)

__all__ = [
    "open",
    "compare",
    "collectives",
    "Session",
    "Result",
    "Analysis",
    "Comparison",
    "Collectives",
    "Sheets",
    "TraceError",
    "QueryError",
    "InternalError",
    "__version__",
]
