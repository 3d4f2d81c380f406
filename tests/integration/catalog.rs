//! The query catalog: shipped files are valid and run, user files extend and
//! override them, and `report --out` writes complete files or none.

use tracesql::catalog::{expanded_notes, Catalog, QueryKind};
use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{fixture, rows, tracesql};

async fn engine_with_views(paths: &[&str]) -> Engine {
    let mut engine = Engine::new();
    for path in paths {
        engine
            .add(load_trace(path).expect("fixture loads"))
            .expect("registers");
    }
    engine
        .register_views()
        .await
        .expect("shipped views register");
    engine
}

#[test]
fn every_shipped_query_has_a_complete_header() {
    let catalog = Catalog::builtin().expect("shipped queries parse");
    let kinds: Vec<QueryKind> = catalog.iter().map(|q| q.kind).collect();
    for kind in [QueryKind::View, QueryKind::Category, QueryKind::Report] {
        assert!(kinds.contains(&kind), "no shipped {kind:?}");
    }
    for q in catalog.iter() {
        assert!(q.version >= 1, "{}: version", q.name);
        assert!(
            q.description.len() > 20,
            "{}: description too short",
            q.name
        );
        assert!(q.sql.starts_with("-- name: "), "{}: header first", q.name);
    }
}

/// A cluster's plans travel as protobuf, which drops a window function's
/// IGNORE NULLS: the query would run there and give other rows. Only a view
/// computed in the client (`-- cluster: in process`) may use it.
#[test]
fn shipped_queries_use_ignore_nulls_only_in_process() {
    let catalog = Catalog::builtin().expect("shipped queries parse");
    let mut users = Vec::new();
    for q in catalog.iter() {
        let code: String = q
            .sql
            .lines()
            .map(|l| l.split("--").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
            .to_ascii_uppercase();
        if code.contains("IGNORE NULLS") {
            users.push(q.name.clone());
            assert_eq!(
                q.extra.get("cluster").map(String::as_str),
                Some("in process"),
                "{} uses IGNORE NULLS",
                q.name
            );
        }
    }
    assert_eq!(users, ["critical_path_waits"]);
}

#[tokio::test]
async fn every_shipped_query_runs_on_fixtures() {
    for fixture_file in ["basic_linear.json", "nccl_graph.json", "gpu_only.json"] {
        let engine = engine_with_views(&[&fixture(fixture_file)]).await;
        for q in engine.catalog().iter() {
            if q.kind == QueryKind::Comparison {
                continue; // over two sides' reports: compare::every_comparison_view_documents_its_columns
            }
            let sql = if q.kind.is_view() {
                format!("SELECT * FROM {}", q.name)
            } else {
                q.sql.clone()
            };
            if let Err(e) = engine.run_sql(&sql).await {
                panic!("{fixture_file}: {} ({}) fails: {e}", q.name, q.origin);
            }
        }
    }
}

/// Every report and view says what each of its columns is: its `Columns:` block
/// names exactly the columns it returns, in order (planned over a fixture).
#[tokio::test]
async fn every_report_and_view_documents_its_columns() {
    let engine = engine_with_views(&[&fixture("basic_linear.json")]).await;
    let catalog = engine.catalog();
    let mut checked = 0;
    for q in catalog.iter() {
        let sql = match q.kind {
            QueryKind::View => format!("SELECT * FROM {}", q.name),
            QueryKind::Report | QueryKind::Collective => q.sql.clone(),
            QueryKind::Category | QueryKind::Rule => continue,
            // Planned in a comparison session: compare::every_comparison_view_documents_its_columns.
            QueryKind::Comparison => continue,
        };
        let frame = engine
            .context()
            .sql(&sql)
            .await
            .unwrap_or_else(|e| panic!("{} ({}) does not plan: {e}", q.name, q.origin));
        let returned: Vec<String> = frame
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        match q.column_notes() {
            None => panic!("{}: the header has no `-- Columns:` block", q.origin),
            Some(Err(e)) => panic!("{}: {e}", q.origin),
            Some(Ok(_)) => {}
        }
        let documented: Vec<String> = expanded_notes(q, &returned, catalog)
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(
            documented, returned,
            "{}: the `Columns:` block does not name the columns it returns",
            q.origin
        );
        checked += 1;
    }
    assert!(checked > 30, "{checked} reports and views");
}

#[tokio::test]
async fn category_views_select_their_ops() {
    let engine = engine_with_views(&[&fixture("basic_linear.json")]).await;
    let gemm = rows(&engine, "SELECT uid, name FROM gemm_ops").await;
    assert_eq!(gemm, vec![vec!["6".to_string(), "aten::addmm".to_string()]]);
    let categories = rows(
        &engine,
        "SELECT name, op_category FROM launchers ORDER BY uid",
    )
    .await;
    let expected = [
        ("aten::addmm", "GEMM"),
        ("aten::relu", "elementwise"),
        ("aten::copy_", "elementwise"),
        ("aten::_foreach_add_", "multi_tensor_apply"),
        // Its only kernel is a memset, not an ATen kernel: no fallback applies.
        ("aten::fill_", "other"),
    ];
    let expected: Vec<Vec<String>> = expected
        .iter()
        .map(|(n, c)| vec![n.to_string(), c.to_string()])
        .collect();
    assert_eq!(categories, expected);
    let memcpy = rows(&engine, "SELECT uid FROM memcpy_kernels").await;
    assert_eq!(memcpy, vec![vec!["35".to_string()]]);
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).expect("write test file");
}

#[test]
fn user_queries_add_and_override() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(
        &dir.path().join("mine.sql"),
        "-- name: ops_summary\n-- version: 7\n-- kind: report\n\
         -- description: My own replacement of the shipped ops summary.\n\
         SELECT count(*) AS launchers FROM launchers\n",
    );
    write(
        &dir.path().join("big.sql"),
        "-- name: big_kernels\n-- version: 1\n-- kind: category\n\
         -- description: Kernels of 5 µs or more, a user-defined category.\n\
         SELECT * FROM kernels WHERE dur >= 5\n",
    );
    let queries = dir.path().to_str().expect("utf-8 path");
    let listed = tracesql().args(&["--queries", queries, "queries"]).run();
    let listing = &listed.stdout;
    assert!(listed.success());
    assert!(
        listing.contains("big_kernels") && listing.contains("My own replacement"),
        "{listing}"
    );

    let trace = fixture("basic_linear.json");
    let report = tracesql()
        .args(&[
            "--queries",
            queries,
            "report",
            &trace,
            "--only",
            "ops_summary",
            "--format",
            "csv",
        ])
        .run();
    let out = &report.stdout;
    assert!(
        out.contains("launchers\n5\n"),
        "user report replaced ours: {out}"
    );

    let query = tracesql()
        .args(&[
            "--queries",
            queries,
            "query",
            &trace,
            "-e",
            "SELECT count(*) AS n FROM big_kernels",
            "--format",
            "csv",
        ])
        .run();
    let expected = tracesql()
        .args(&[
            "query",
            &trace,
            "-e",
            "SELECT count(*) AS n FROM kernels WHERE dur >= 5",
            "--format",
            "csv",
        ])
        .run();
    assert!(query.success(), "{}", query.stderr);
    assert_eq!(query.stdout, expected.stdout);
}

#[test]
fn bad_user_queries_are_reported_with_their_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("broken.sql");
    write(
        &file,
        "-- name: broken\n-- version: x\n-- kind: report\n-- description: d\nSELECT 1\n",
    );
    let out = tracesql()
        .args(&["--queries", dir.path().to_str().expect("utf-8"), "queries"])
        .run();
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(2));
    assert!(
        stderr.contains("broken.sql") && stderr.contains("whole number"),
        "{stderr}"
    );
}

#[test]
fn report_out_writes_every_sheet_and_nothing_on_failure() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("csvs");
    let trace = fixture("basic_linear.json");
    let ok = tracesql()
        .args(&["report", &trace, "--out", out_dir.to_str().expect("utf-8")])
        .run();
    assert!(ok.success(), "{}", ok.stderr);
    let mut written: Vec<String> = std::fs::read_dir(&out_dir)
        .expect("out dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "GEMM.csv",
            "UnaryElementwise.csv",
            "gpu_timeline.csv",
            "kernel_summary.csv",
            "ops_summary.csv",
            "ops_summary_by_category.csv",
            "ops_unique_args.csv",
            "short_kernel_histogram.csv",
            "short_kernels_summary.csv",
            "unified_perf_summary.csv",
        ]
    );
    let timeline = std::fs::read_to_string(out_dir.join("gpu_timeline.csv")).expect("timeline");
    assert!(
        timeline.starts_with("type,time ms,percent\ncomputation_time,"),
        "{timeline}"
    );

    // A report that fails part way (a user report whose SQL is wrong) leaves the
    // earlier output exactly as it was and no temporary files behind.
    let queries = dir.path().join("queries");
    std::fs::create_dir(&queries).expect("queries dir");
    write(
        &queries.join("zz_broken.sql"),
        "-- name: zz_broken\n-- version: 1\n-- kind: report\n\
         -- description: A report that fails at run time, after the others ran.\n\
         SELECT no_such_column FROM kernels\n",
    );
    let before = std::fs::read(out_dir.join("gpu_timeline.csv")).expect("read");
    let failed = tracesql()
        .args(&[
            "--queries",
            queries.to_str().expect("utf-8"),
            "report",
            &trace,
            "--out",
            out_dir.to_str().expect("utf-8"),
        ])
        .run();
    assert_eq!(failed.code, Some(1));
    assert!(failed.stderr.contains("zz_broken"));
    assert_eq!(
        std::fs::read(out_dir.join("gpu_timeline.csv")).expect("read"),
        before
    );
    let leftovers = std::fs::read_dir(&out_dir)
        .expect("out dir")
        .filter(|e| {
            e.as_ref()
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn report_without_out_prints_timeline_and_top_ops() {
    let out = tracesql()
        .args(&["report", &fixture("basic_linear.json")])
        .run();
    let text = &out.stdout;
    assert!(out.success());
    assert!(
        text.contains("gpu_timeline (8 rows)") && text.contains("computation_time"),
        "{text}"
    );
    assert!(
        text.contains("ops_summary (5 rows)") && text.contains("aten::addmm"),
        "{text}"
    );
}

/// A user catalog: the shipped queries plus `(file name, SQL with header)` files.
fn catalog_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        write(&dir.path().join(name), text);
    }
    let catalog = Catalog::with_user_dir(dir.path()).expect("user queries parse");
    (dir, catalog)
}

fn view_file(name: &str, sql: &str) -> String {
    format!(
        "-- name: {name}\n-- version: 1\n-- kind: view\n-- description: test view {name}\n{sql}\n"
    )
}

/// Views are computed once and kept, but a table registered later (another
/// trace added) makes every view reading it, also through another view, compute
/// again: no stale rows.
#[tokio::test]
async fn views_follow_the_tables_they_read() {
    let count = view_file("kernel_count", "SELECT count(*) AS n FROM kernels");
    let twice = view_file("kernel_count_twice", "SELECT 2 * n AS n2 FROM kernel_count");
    let (_dir, catalog) = catalog_with(&[("a.sql", &count), ("b.sql", &twice)]);
    let mut engine = Engine::with_catalog(catalog);
    let first = load_trace(&fixture("basic_linear.json")).expect("fixture");
    engine.add(first).expect("add");
    engine.register_views().await.expect("views");
    let one = kernel_rows(&engine).await;
    let twice_one = rows(&engine, "SELECT n2 FROM kernel_count_twice").await;
    assert_eq!(twice_one, vec![vec![(2 * one).to_string()]]);

    let second = load_trace(&fixture("gpu_only.json")).expect("fixture");
    engine.add(second).expect("add");
    let both = kernel_rows(&engine).await;
    assert!(both > one);
    let twice_both = rows(&engine, "SELECT n2 FROM kernel_count_twice").await;
    assert_eq!(twice_both, vec![vec![(2 * both).to_string()]]);
    let direct = rows(&engine, "SELECT n FROM kernel_count").await;
    assert_eq!(direct, vec![vec![both.to_string()]]);
}

/// basic_linear.json with two test views: `kernel_count` (n) and
/// `kernel_count_twice` (n2), which reads the first.
async fn engine_with_count_views() -> (tempfile::TempDir, Engine) {
    let count = view_file("kernel_count", "SELECT count(*) AS n FROM kernels");
    let twice = view_file("kernel_count_twice", "SELECT 2 * n AS n2 FROM kernel_count");
    let (dir, catalog) = catalog_with(&[("a.sql", &count), ("b.sql", &twice)]);
    let mut engine = Engine::with_catalog(catalog);
    engine
        .add(load_trace(&fixture("basic_linear.json")).expect("fixture"))
        .expect("add");
    engine.register_views().await.expect("views");
    (dir, engine)
}

/// Queries running side by side (as `run_reports` runs the reports) that name
/// the same views, before any of them is planned, all get their rows: a view
/// being planned by one task is waited for, not taken for a cycle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_planned_by_tasks_side_by_side() {
    let (_dir, engine) = engine_with_count_views().await;
    let expected = 2 * kernel_rows(&engine).await;
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let runner = engine.runner();
            let sql = if i % 2 == 0 {
                "SELECT n2 FROM kernel_count_twice"
            } else {
                "SELECT 2 * n FROM kernel_count"
            };
            tokio::spawn(async move { runner.run_sql(sql).await })
        })
        .collect();
    for task in tasks {
        let results = task.await.expect("task ran").expect("the views plan");
        let batch = &results[0][0];
        let value = datafusion::arrow::util::display::array_value_to_string(batch.column(0), 0)
            .expect("a value");
        assert_eq!(value, expected.to_string());
    }
}

/// `report` forgets a computed view once no report still to finish needs it:
/// one a pending text names is kept, and so is one a pending text needs through
/// a view not computed yet; a view only a comment names is released; a
/// released view read again is computed anew, with the same rows.
#[tokio::test]
async fn views_no_pending_query_needs_are_released() {
    let (_dir, engine) = engine_with_count_views().await;
    let n = kernel_rows(&engine).await;
    assert!(n > 0);

    // Only kernel_count computed: a text naming kernel_count_twice (not
    // computed) still needs kernel_count.
    assert_eq!(
        rows(&engine, "SELECT n FROM kernel_count").await,
        [[n.to_string()]]
    );
    let named = engine.views_named_in("SELECT n2 FROM kernel_count_twice");
    assert_eq!(named, ["kernel_count_twice"]);
    let named: Vec<&str> = named.iter().map(String::as_str).collect();
    let released = engine.release_views_except(&named);
    assert!(released.is_empty(), "released {released:?}");

    // Both computed: kernel_count_twice no longer needs kernel_count.
    let twice_rows = rows(&engine, "SELECT n2 FROM kernel_count_twice").await;
    assert_eq!(twice_rows, [[(2 * n).to_string()]]);
    let released = engine.release_views_except(&named);
    assert_eq!(released, ["kernel_count"]);

    // A name in a comment keeps nothing.
    assert!(engine
        .views_named_in("-- kernel_count_twice\nSELECT 1")
        .is_empty());
    let released = engine.release_views_except(&[]);
    assert_eq!(released, ["kernel_count_twice"]);
    assert!(engine.release_views_except(&[]).is_empty());

    // Read again: computed anew, same rows.
    assert_eq!(
        rows(&engine, "SELECT n2 FROM kernel_count_twice").await,
        twice_rows
    );
    assert_eq!(
        rows(&engine, "SELECT n FROM kernel_count").await,
        [[n.to_string()]]
    );
}

async fn kernel_rows(engine: &Engine) -> i64 {
    let n = rows(engine, "SELECT count(*) FROM kernels").await;
    n[0][0].parse().expect("a count")
}

/// A view that names itself (directly or through another) is an error naming
/// it, not a hang; a view that does not plan fails the queries using it with its
/// file named, and `check_views` finds it without a query.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_views_fail_with_their_file() {
    let looped = view_file("loop_a", "SELECT * FROM loop_b");
    let other = view_file("loop_b", "SELECT * FROM loop_a");
    let broken = view_file("broken_view", "SELECT no_such_column FROM kernels");
    let (_dir, catalog) = catalog_with(&[
        ("loop_a.sql", &looped),
        ("loop_b.sql", &other),
        ("broken_view.sql", &broken),
    ]);
    let mut engine = Engine::with_catalog(catalog);
    engine
        .add(load_trace(&fixture("basic_linear.json")).expect("fixture"))
        .expect("add");
    engine
        .register_views()
        .await
        .expect("nothing is planned yet");
    let e = engine
        .run_sql("SELECT * FROM loop_a")
        .await
        .expect_err("a cycle");
    assert!(e.to_string().contains("refers to itself"), "{e}");
    // Two tasks entering the cycle at different views at once (as reports run)
    // both fail; neither waits for the other's planning.
    let (runner_a, runner_b) = (engine.runner(), engine.runner());
    let a = tokio::spawn(async move { runner_a.run_sql("SELECT * FROM loop_a").await });
    let b = tokio::spawn(async move { runner_b.run_sql("SELECT * FROM loop_b").await });
    let both = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        (a.await, b.await)
    })
    .await
    .expect("no deadlock");
    for joined in [both.0, both.1] {
        let e = joined.expect("task ran").expect_err("a cycle");
        assert!(e.to_string().contains("refers to itself"), "{e}");
    }
    let e = engine
        .run_sql("SELECT count(*) FROM broken_view")
        .await
        .expect_err("a bad column");
    let message = e.to_string();
    assert!(
        message.contains("broken_view.sql") && message.contains("no_such_column"),
        "{message}"
    );
    // Unrelated queries and views still work.
    assert_eq!(
        rows(&engine, "SELECT count(*) FROM gemm_ops").await[0][0],
        "1"
    );
    let e = engine.check_views().await.expect_err("two broken views");
    assert!(e.to_string().contains(".sql"), "{e}");
}

/// The session's own catalog as SQL: the tables' row counts are the tables'
/// counts, every catalog query is listed once, a view's columns carry the notes
/// of its `Columns:` block, the functions tracesql adds are listed, and a view
/// the user creates appears.
#[tokio::test]
async fn the_session_catalog_is_queryable() {
    let engine = engine_with_views(&[&fixture("basic_linear.json")]).await;
    let listed = rows(
        &engine,
        "SELECT name, rows FROM tracesql_tables WHERE kind = 'table' ORDER BY name",
    )
    .await;
    assert_eq!(listed.len(), tracesql::model::TABLES.len(), "{listed:?}");
    assert_eq!(listed.len(), 14, "{listed:?}");
    for row in &listed {
        let counted = rows(&engine, &format!("SELECT count(*) FROM {}", row[0])).await;
        assert_eq!(row[1], counted[0][0], "{}", row[0]);
    }
    let queries = rows(
        &engine,
        "SELECT count(*), count(DISTINCT name) FROM tracesql_queries",
    )
    .await;
    let catalog = engine.catalog().iter().count().to_string();
    assert_eq!(queries[0], [catalog.clone(), catalog]);
    let note = rows(
        &engine,
        "SELECT description FROM tracesql_columns WHERE table_name = 'gpu_time_totals' AND column_name = 'idle_time'",
    )
    .await;
    let file = engine
        .catalog()
        .get("gpu_time_totals")
        .expect("shipped view");
    let documented = file
        .column_notes()
        .expect("a Columns: block")
        .expect("parses")
        .into_iter()
        .find(|n| n.name == "idle_time")
        .expect("idle_time documented");
    assert_eq!(note, [[documented.doc]]);
    let functions = rows(
        &engine,
        "SELECT name, kind FROM tracesql_functions WHERE name IN ('busy_time', 'perf_op_registry', 'roofline_bound') OR name LIKE 'call_stack%' ORDER BY name",
    )
    .await;
    assert_eq!(
        functions,
        [
            ["busy_time", "aggregate"],
            ["call_stack(uid [, trace])", "table function"],
            ["perf_op_registry", "table function"],
            ["roofline_bound", "scalar"],
        ]
    );
    engine
        .run_sql("CREATE VIEW my_kernels AS SELECT name, dur FROM kernels")
        .await
        .expect("a user view");
    let mine = rows(
        &engine,
        "SELECT t.kind, c.column_name FROM tracesql_tables t JOIN tracesql_columns c ON c.table_name = t.name WHERE t.name = 'my_kernels' ORDER BY c.column_name",
    )
    .await;
    assert_eq!(mine, [["user", "dur"], ["user", "name"]]);
}

/// The SQL of `sql` at parenthesis depth 0, outside comments and string
/// literals, upper-cased: what the outermost SELECT itself says.
fn top_level(sql: &str) -> String {
    let mut out = String::new();
    let (mut depth, mut chars) = (0usize, sql.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                out.push(' ');
            }
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c.to_ascii_uppercase()),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Two runs write the same rows in the same order only if every output query
/// orders its rows itself: each report, and each section of the analysis, ends
/// in an ORDER BY. (That its keys end in a unique one, a uid or the group's
/// own keys, is read off the SQL; the determinism tests run everything twice.)
#[test]
fn every_output_query_orders_its_rows() {
    let catalog = Catalog::builtin().expect("shipped catalog");
    let sections = tracesql::analyze::SECTION_QUERIES;
    let mut unordered = Vec::new();
    for query in catalog.iter() {
        let output = query.kind == QueryKind::Report || sections.contains(&query.name.as_str());
        if output && !top_level(&query.sql).contains("ORDER BY") {
            unordered.push(query.name.clone());
        }
    }
    assert!(unordered.is_empty(), "no top-level ORDER BY: {unordered:?}");
    assert_eq!(
        top_level("SELECT a FROM (SELECT b ORDER BY b) -- ORDER BY\n"),
        "SELECT A FROM"
    );
}
