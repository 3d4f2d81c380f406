"""The Session API on traces: SQL, the catalog, reports equal to the CLI's
files, several traces at once, export and reopen."""

import pyarrow as pa
import pytest

import tracesql
from conftest import FIXTURES
from frames import assert_same_rows

BASIC = FIXTURES / "basic_linear.json"


def test_sql_returns_the_rows_the_cli_prints(cli):
    query = "SELECT op_name, name, class, dur FROM kernels ORDER BY dur DESC, name"
    s = tracesql.open(BASIC)
    frame = s.sql(query).to_pandas()
    printed = cli("query", BASIC, "-e", query, "--format", "csv").strip().splitlines()
    assert printed[0] == "op_name,name,class,dur"
    assert len(frame) == len(printed) - 1 == 5
    assert frame["op_name"].tolist()[0] == "aten::addmm"
    assert frame["dur"].tolist() == [float(line.rsplit(",", 1)[1]) for line in printed[1:]]


def test_a_result_knows_its_shape_and_prints_like_the_cli():
    s = tracesql.open(str(BASIC))
    r = s.sql("SELECT name, dur FROM kernels ORDER BY dur DESC")
    assert len(r) == r.num_rows == 5
    assert r.columns == ["name", "dur"]
    text = repr(r)
    assert text.splitlines()[1].count("name") == 1 and text.rstrip().endswith("5 rows")
    html = r._repr_html_()
    assert html.count("<tr>") == 6 and "5 rows" in html
    empty = s.sql("SELECT name FROM kernels WHERE dur < 0")
    assert len(empty) == 0 and empty.to_arrow().schema.names == ["name"]


def test_udfs_and_table_functions_work_in_sql():
    s = tracesql.open(BASIC)
    top = s.sql("SELECT uid FROM ops WHERE name = 'aten::addmm'").to_pylist()[0]["uid"]
    stack = s.sql(f"SELECT depth, name FROM call_stack({top}) ORDER BY depth").to_pandas()
    assert stack["name"].tolist()[-1] == "aten::addmm" and len(stack) >= 2
    kernels = s.sql(f"SELECT name FROM kernels_of({top})").to_pandas()
    assert len(kernels) == 1 and kernels["name"][0].startswith("sm90_xmma_gemm")
    s.sql("SET platform = 'MI300X'")
    chosen = s.sql("SELECT * FROM session_platform").to_pylist()
    assert chosen and chosen[0]["platform"] == "MI300X"


def test_the_catalog_lists_tables_columns_and_the_reports_of_the_format():
    s = tracesql.open(BASIC)
    tables = s.tables().to_pandas()
    kinds = dict(zip(tables["name"], tables["kind"]))
    assert kinds["kernels"] == "table" and kinds["analyze_ops"] == "view"
    assert kinds["binary_elementwise_ops"] == "category"
    columns = s.describe("kernels").to_pandas()
    assert "dur" in set(columns["column_name"])
    reports = s.reports()
    assert reports[:2] == ["gpu_timeline", "gpu_timeline_by_device"]
    assert "ops_summary" in reports and "api_kernel_summary" not in reports  # rocprofv3's
    with pytest.raises(ValueError, match="unknown table 'nope'"):
        s.describe("nope")


@pytest.mark.parametrize(
    "sheet",
    ["gpu_timeline", "ops_summary", "ops_summary_by_category", "kernel_summary", "unified_perf_summary", "GEMM"],
)
def test_a_report_equals_the_clis_csv(cli, tmp_path, bert_h100, sheet):
    s = tracesql.open(bert_h100)
    cli("report", bert_h100, "--out", tmp_path, "--only", sheet)
    assert_same_rows(s.report(sheet).to_pandas(), tmp_path / f"{sheet}.csv")


def test_reports_follow_the_platform_and_tracelens_compat(cli, tmp_path, bert_mi300):
    s = tracesql.open(bert_mi300, platform="MI325X", tracelens_compat=True)
    assert s.platform == "MI325X"
    cli("--tracelens-compat", "--platform", "MI325X", "report", bert_mi300, "--out", tmp_path,
        "--only", "unified_perf_summary")
    assert_same_rows(s.report("unified_perf_summary").to_pandas(), tmp_path / "unified_perf_summary.csv")


def test_several_traces_share_one_sql_session_and_report_one_at_a_time(bert_h100, bert_mi300):
    s = tracesql.open(bert_h100, bert_mi300, names=["h100", "mi300"])
    assert s.traces == ["h100", "mi300"]
    rows = s.sql("SELECT trace, count(*) AS n FROM kernels GROUP BY trace").to_pylist()
    counts = {row["trace"]: row["n"] for row in rows}
    alone = tracesql.open(bert_mi300)
    assert counts["mi300"] == len(alone.sql("SELECT * FROM kernels"))
    with pytest.raises(ValueError, match="several traces"):
        s.report("gpu_timeline")
    both = s.report("gpu_timeline", trace="mi300").to_pandas()
    assert both.equals(alone.report("gpu_timeline").to_pandas())
    with pytest.raises(ValueError, match="no trace named 'a100'"):
        s.report("gpu_timeline", trace="a100")


def test_a_repeated_trace_gets_a_numbered_name():
    s = tracesql.open(BASIC, BASIC)
    assert s.traces == ["basic_linear", "basic_linear#2"]
    rows = s.sql("SELECT trace, count(*) AS n FROM kernels GROUP BY trace ORDER BY trace").to_pylist()
    assert rows == [{"trace": "basic_linear", "n": 5}, {"trace": "basic_linear#2", "n": 5}]


def test_export_writes_a_dataset_that_opens_again(cli, tmp_path):
    s = tracesql.open(BASIC, FIXTURES / "gpu_only.json")
    manifest = s.export(tmp_path / "ds")
    assert [t["name"] for t in manifest["traces"]] == ["basic_linear", "gpu_only"]
    assert manifest["traces"][0]["source"] == str(BASIC) and len(manifest["traces"][0]["source_sha256"]) == 64
    again = tracesql.open(tmp_path / "ds")
    query = "SELECT trace, count(*) AS n, sum(dur) AS d FROM kernels GROUP BY trace ORDER BY trace"
    assert again.sql(query).to_pylist() == s.sql(query).to_pylist()
    printed = cli("query", tmp_path / "ds", "-e", "SELECT count(*) AS n FROM kernels", "--format", "csv")
    assert printed.split() == ["n", str(len(s.sql("SELECT * FROM kernels")))]
    # Exported again from the export, the traces keep their provenance.
    again_manifest = again.export(tmp_path / "ds2")
    first, second = manifest["traces"][0], again_manifest["traces"][0]
    assert (second["source"], second["source_sha256"]) == (first["source"], first["source_sha256"])
    with pytest.raises(ValueError):
        s.export(FIXTURES)  # not an export: refused, nothing written


def test_results_are_arrow_batches_handed_over_not_copied():
    s = tracesql.open(BASIC)
    r = s.sql("SELECT uid, dur FROM kernels ORDER BY uid")
    first, second = pa.table(r), r.to_arrow()
    # Both tables read the very buffers the engine produced.
    address = lambda t: t.column("dur").chunks[0].buffers()[1].address
    assert address(first) == address(second)
    assert first.equals(second) and first.schema.field("uid").type == pa.int64()


def test_help_shows_signatures_and_docstrings():
    import inspect

    assert list(inspect.signature(tracesql.open).parameters) == [
        "traces", "names", "platform", "tracelens_compat", "platforms_file", "queries"]
    assert tracesql.open.__doc__.startswith("Opens a session over one or many traces.")
    assert "TraceError" in tracesql.open.__doc__
    assert "PyCapsule" in tracesql.Result.__doc__
    assert tracesql.Session.report.__doc__.startswith("One report of one trace")
    assert tracesql.__version__ == "0.1.0"


def test_the_type_stubs_name_what_the_module_has():
    import ast
    from pathlib import Path

    from tracesql import _native

    stubs = Path(tracesql.__file__).with_name("_native.pyi")
    tree = ast.parse(stubs.read_text())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    public = {name for name in dir(_native) if not name.startswith("_")}
    assert stubbed == public
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in ("Session", "Result", "Sheets", "Analysis"):
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            cls = getattr(_native, node.name)
            assert methods <= set(dir(cls)), node.name
            public_methods = {m for m in dir(cls) if not m.startswith("_")}
            assert public_methods <= methods, (node.name, public_methods - methods)


def test_the_udfs_compute_what_the_cli_computes(cli, tmp_path, bert_h100):
    query = (
        "SELECT name, family, pass, \"GFLOPS\", \"TFLOPS/s\", \"Pct Roofline\", "
        "roofline_efficiency(\"GFLOPS\" * 1e9, \"Data Moved (MB)\" * 1e6, kernel_time, 'H100', 'matrix_bf16') AS eff, "
        "tflops_per_s(\"GFLOPS\" * 1e9, kernel_time) AS tflops "
        "FROM perf_metrics ORDER BY uid, pass"
    )
    s = tracesql.open(bert_h100)
    (tmp_path / "q.csv").write_text(cli("query", bert_h100, "-e", query, "--format", "csv"))
    ours = s.sql(query).to_pandas()
    assert len(ours) > 10 and ours["GFLOPS"].notna().any()
    assert_same_rows(ours, tmp_path / "q.csv")
    functions = set(s.sql("SELECT name FROM tracesql_functions").to_pandas()["name"])
    listed = cli("query", bert_h100, "-e", "SELECT name FROM tracesql_functions", "--format", "csv")
    import csv
    import io

    assert functions == {row["name"] for row in csv.DictReader(io.StringIO(listed))}
