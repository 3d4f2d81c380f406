//! `tracesql tables` counts each table's rows from the loaded traces (no SQL
//! session): the counts must be what SQL counts, `kernel_ancestors` (derived
//! when read) included, for one trace and for several.

use crate::util::{fixture, tracesql_ok};

/// `(table, rows)` from the `tables` listing (a box-drawn table).
fn listed_counts(traces: &[&str]) -> Vec<(String, u64)> {
    let mut args = vec!["tables"];
    args.extend_from_slice(traces);
    tracesql_ok(&args)
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .split('┆')
                .map(|c| c.trim_matches(['│', ' ']))
                .collect();
            Some((cells.first()?.to_string(), cells.get(1)?.parse().ok()?))
        })
        .collect()
}

fn sql_count(traces: &[&str], table: &str) -> u64 {
    let sql = format!("SELECT count(*) FROM {table}");
    let mut args = vec!["query"];
    args.extend_from_slice(traces);
    args.extend_from_slice(&["--format", "csv", "-e", &sql]);
    let out = tracesql_ok(&args);
    out.lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("a count")
}

#[test]
fn tables_lists_what_sql_counts() {
    let (one, two) = (fixture("nccl_graph.json"), fixture("basic_linear.json"));
    for traces in [vec![one.as_str()], vec![one.as_str(), two.as_str()]] {
        let listed = listed_counts(&traces);
        let all = tracesql::model::TABLES.len();
        assert_eq!(listed.len(), all, "every table is listed: {listed:?}");
        assert!(listed
            .iter()
            .any(|(t, n)| t == "kernel_ancestors" && *n > 0));
        for (table, rows) in listed {
            assert_eq!(rows, sql_count(&traces, &table), "{table} in {traces:?}");
        }
    }
}

/// CSV has no nested values: lists and structs are written as the table format
/// shows them, quoted where they hold a comma.
#[test]
fn csv_writes_nested_values_as_text() {
    let out = tracesql_ok(&[
        "query",
        &fixture("basic_linear.json"),
        "-e",
        "SELECT make_array(1, 2) AS l, named_struct('a', 1) AS s, 'x' AS t, \
         CAST(NULL AS BIGINT[]) AS n",
        "--format",
        "csv",
    ]);
    assert_eq!(out, "l,s,t,n\n\"[1, 2]\",{a: 1},x,\n");
}
