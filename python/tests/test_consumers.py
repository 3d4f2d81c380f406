"""Arrow consumers read a result through the PyCapsule interface."""

import duckdb
import polars as pl
import pyarrow as pa

import tracesql
from conftest import FIXTURES


def _result():
    s = tracesql.open(FIXTURES / "basic_linear.json")
    return s.sql("SELECT op_name, name, dur FROM kernels ORDER BY dur DESC")


def test_duckdb_queries_a_result_by_its_python_name():
    r = _result()
    rows = duckdb.sql("SELECT op_name, round(dur, 3) FROM r ORDER BY dur DESC LIMIT 2").fetchall()
    assert rows == [("aten::addmm", 41.216), ("aten::copy_", 12.864)]


def test_polars_and_pyarrow_take_the_stream():
    r = _result()
    frame = pl.DataFrame(r)
    assert frame.shape == (5, 3) and frame["dur"].sum() == sum(r.to_arrow()["dur"].to_pylist())
    assert r.to_polars().equals(frame)
    reader = pa.RecordBatchReader.from_stream(r)
    assert reader.schema.names == ["op_name", "name", "dur"]
    assert reader.read_all().num_rows == 5


def test_each_stream_is_new_and_the_schema_capsule_is_given():
    r = _result()
    assert pa.table(r).equals(pa.table(r))
    assert pa.schema(r).names == ["op_name", "name", "dur"]
