"""The package opens every format the CLI reads; each format's reports equal
the CLI's files."""

import pytest

import tracesql
from conftest import shared
from frames import assert_same_rows

CASES = [
    ("formats/rocprof/908_results/908_results.json.gz", "rocprofv3", ["gpu_timeline", "kernel_summary"]),
    ("formats/pftrace/tl_fixture_rich/tl_fixture_rich.json", "pftrace", ["api_kernel_summary", "category_summary"]),
    ("formats/jax/jax_conv_minimal_08/jax_conv_minimal_08.xplane.pb", "jax", ["xla_summary", "gpu_timeline"]),
]


@pytest.mark.parametrize("path,source_format,sheets", CASES, ids=[c[1] for c in CASES])
def test_each_format_opens_and_its_reports_equal_the_clis(cli, tmp_path, path, source_format, sheets):
    trace = shared(path)
    s = tracesql.open(trace)
    formats = s.sql("SELECT value FROM trace_meta WHERE key = 'source_format'").to_pylist()
    assert formats == [{"value": f'"{source_format}"'}]
    assert set(sheets) <= set(s.reports())
    assert "ops_unique_args" not in s.reports() or source_format == "kineto"
    for sheet in sheets:
        cli("report", trace, "--out", tmp_path / sheet, "--only", sheet)
        assert_same_rows(s.report(sheet).to_pandas(), tmp_path / sheet / f"{sheet}.csv")
