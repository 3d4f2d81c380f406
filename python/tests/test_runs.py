"""analyze(), compare() and collectives() against the CLI's files."""

import json

import pytest

import tracesql
from conftest import FIXTURES, shared
from frames import assert_same_rows


def test_analyze_gives_the_clis_findings(cli, tmp_path, bert_h100):
    a = tracesql.open(bert_h100).analyze()
    cli("analyze", bert_h100, "--out", tmp_path)
    assert a.trace == "gaunernst_bert-small-uncased__1016001" and a.platform == "H100"
    assert_same_rows(a.findings.to_pandas(), tmp_path / "findings.csv")
    written = json.loads((tmp_path / "findings.json").read_text())
    assert len(a.recommendations) == len(written) > 0
    assert a.markdown.startswith("# Standalone analysis: gaunernst_bert-small-uncased__1016001")
    page = a.html()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert a._repr_html_() == page


def test_analyze_on_another_platform(bert_h100):
    s = tracesql.open(bert_h100)
    assert s.analyze(platform="B200").platform == "B200"
    assert s.platform == "H100"  # the session keeps its own


def test_compare_gives_the_clis_sheets(cli, tmp_path, bert_h100, bert_mi300):
    c = tracesql.compare(bert_h100, bert_mi300, names=("h100", "mi300"),
                         base_platform="H100", target_platform="MI300X")
    assert c.labels == ("h100", "mi300")
    cli("compare", bert_h100, bert_mi300, "--names", "h100", "mi300", "--base-platform", "H100",
        "--target-platform", "MI300X", "--out", tmp_path)
    written = sorted(p.stem for p in tmp_path.glob("*.csv"))
    assert sorted(c.sheets()) == written
    for sheet in ["compare_gpu_timeline", "compare_ops_summary"]:
        assert_same_rows(c.sheet(sheet).to_pandas(), tmp_path / f"{sheet}.csv")
    delta = c.sql("SELECT count(*) AS n FROM comparison").to_pylist()[0]["n"]
    assert delta > 0
    with pytest.raises(ValueError, match="no sheet named 'x'"):
        c.sheet("x")


def test_compare_takes_open_sessions():
    h100 = tracesql.open(FIXTURES / "recorded" / "h100_block.json.gz")
    h200 = tracesql.open(FIXTURES / "recorded" / "h200_block.json.gz")
    c = tracesql.compare(h100, h200)
    assert c.labels == ("h100_block", "h200_block")
    ops = c.sheet("compare_ops_summary").to_pandas()
    assert len(ops) > 0


def test_collectives_gives_the_clis_sheets(cli, tmp_path):
    run = shared("collectives/synth_clock4/traces")
    c = tracesql.collectives(run)
    assert c.ranks == 4
    cli("collectives", run, "--out", tmp_path)
    assert sorted(c.sheets()) == sorted(p.stem for p in tmp_path.glob("*.csv"))
    for sheet in c.sheets():
        assert_same_rows(c.sheet(sheet).to_pandas(), tmp_path / f"{sheet}.csv")
    ranks = c.sql("SELECT count(DISTINCT rank) AS n FROM collectives").to_pylist()[0]["n"]
    assert ranks == 4


def test_comparison_and_collectives_are_sheets():
    assert issubclass(tracesql.Comparison, tracesql.Sheets)
    assert issubclass(tracesql.Collectives, tracesql.Sheets)
    c = tracesql.compare(FIXTURES / "basic_linear.json", FIXTURES / "basic_linear.json", names=("a", "b"))
    assert repr(c).startswith("<tracesql.Comparison: a (base) vs b (target); ")
    assert "compare_gpu_timeline" in c.sheets()
