"""Comparing a tracesql result with the CSV file the CLI wrote for it."""

import math

import pandas as pd


def _cell(value):
    """A cell as comparable text or number: NULL, NaN and "" are one thing."""
    if value is None:
        return None
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # a list cell: numpy array
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value in ("True", "False"):  # TraceLens's spelling in the CSVs
        return value.lower()
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return float(value)
    text = str(value)
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def assert_same_rows(frame: pd.DataFrame, csv_path, rel=1e-9):
    """`frame` holds the rows, columns and values of the CSV file (numbers
    within `rel` relative; the CSV holds them as the CLI printed them)."""
    expected = pd.read_csv(csv_path, keep_default_na=False, dtype=str)
    assert list(frame.columns) == list(expected.columns), csv_path
    assert len(frame) == len(expected), f"{csv_path}: {len(frame)} rows vs {len(expected)}"
    for column in expected.columns:
        got = [_cell(v) for v in frame[column].tolist()]
        want = [_cell(v) for v in expected[column].tolist()]
        for row, (g, w) in enumerate(zip(got, want)):
            if isinstance(g, float) and isinstance(w, float):
                assert math.isclose(g, w, rel_tol=rel, abs_tol=1e-12), (
                    f"{csv_path}: row {row} column {column}: {g} vs {w}"
                )
            else:
                assert g == w, f"{csv_path}: row {row} column {column}: {g!r} vs {w!r}"
