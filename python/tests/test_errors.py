"""Bad input raises the CLI's one-line message as a Python exception; the
interpreter lives on."""

import gzip

import pytest

import tracesql
from conftest import FIXTURES


def test_an_unreadable_trace_is_a_trace_error_naming_the_file(tmp_path):
    truncated = tmp_path / "cut.json.gz"
    truncated.write_bytes(gzip.compress(b'{"traceEvents": [' + b'{"ph": "X"},' * 2000)[:200])
    with pytest.raises(tracesql.TraceError) as raised:
        tracesql.open(truncated)
    message = str(raised.value)
    assert "cut.json.gz" in message and "\n" not in message
    assert isinstance(raised.value, ValueError)

    malformed = tmp_path / "bad.json"
    malformed.write_text('{"traceEvents": [{"ph": "X", "ts": }]}')
    with pytest.raises(tracesql.TraceError, match=r"bad.json: event 0 at byte 35: malformed JSON"):
        tracesql.open(malformed)
    with pytest.raises(tracesql.TraceError, match="missing.json"):
        tracesql.open(tmp_path / "missing.json")


def test_bad_sql_is_a_query_error_and_the_session_goes_on():
    s = tracesql.open(FIXTURES / "basic_linear.json")
    with pytest.raises(tracesql.QueryError, match="no_such_table"):
        s.sql("SELECT * FROM no_such_table")
    with pytest.raises(tracesql.QueryError):
        s.sql("SELEC 1")
    assert len(s.sql("SELECT * FROM kernels")) == 5


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="unknown platform"):
        tracesql.open(FIXTURES / "basic_linear.json", platform="Z9000")
    with pytest.raises(ValueError, match="names= gives 2 names for 1 traces"):
        tracesql.open(FIXTURES / "basic_linear.json", names=["a", "b"])
    s = tracesql.open(FIXTURES / "basic_linear.json")
    with pytest.raises(ValueError, match="unknown report 'nope'; the reports: gpu_timeline"):
        s.report("nope")
    with pytest.raises(TypeError):
        tracesql.compare(1, 2)


def test_a_rust_panic_becomes_an_internal_error():
    from tracesql import _native

    with pytest.raises(tracesql.InternalError, match="tracesql panicked .*on purpose"):
        _native._panic_for_tests("on purpose")
    # The interpreter and the engine live on.
    assert len(tracesql.open(FIXTURES / "basic_linear.json").sql("SELECT 1 AS one")) == 1
