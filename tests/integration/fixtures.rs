//! The synthetic fixtures against `fixtures/EXPECTED.md`: table sizes, every tree
//! edge, every GPU row's launch / op / class / link, selected ops and collectives
//! values, the input formats (json, gzip, zip, mis-named gzip) and several traces in
//! one engine. Expected values are transcribed from EXPECTED.md (and, where it gives
//! no number, from the fixture file itself), never computed by the tool.

use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{engine_with, fixture, gzip, rows, zip};

/// One fixture's expectations.
struct Fixture {
    file: &'static str,
    /// Rows of events, ops, kernels, collectives.
    counts: [usize; 4],
    /// (parent_uid, child_uid, kind).
    edges: &'static [(i64, i64, &'static str)],
    /// (uid, launch_uid, op_uid, class, linked_by); "NULL" for none.
    kernels: &'static [(i64, &'static str, &'static str, &'static str, &'static str)],
}

/// Loads the fixture and checks counts, tree edges and kernels rows.
async fn check(fx: &Fixture) -> Engine {
    let engine = engine_with(&[&fixture(fx.file)]);
    let trace = fx.file.trim_end_matches(".json");
    for (table, want) in ["events", "ops", "kernels", "collectives"]
        .iter()
        .zip(fx.counts)
    {
        let got = rows(&engine, &format!("SELECT count(*) FROM {table}")).await;
        assert_eq!(got, [[want.to_string()]], "{}: {table} rows", fx.file);
    }
    assert_eq!(
        edges(&engine, trace).await,
        sorted(
            fx.edges
                .iter()
                .map(|(p, c, k)| vec![p.to_string(), c.to_string(), k.to_string()])
        ),
        "{}: tree_edges",
        fx.file
    );
    // tree_edges is events' parent_uid and parent_kind as edges, and the
    // listing counts it without building it.
    let from_events =
        "SELECT parent_uid, uid, parent_kind FROM events WHERE parent_uid IS NOT NULL";
    assert_eq!(
        edges(&engine, trace).await,
        sorted(rows(&engine, from_events).await),
        "{}: events.parent_kind",
        fx.file
    );
    let listed = "SELECT rows FROM tracesql_tables WHERE name = 'tree_edges'";
    assert_eq!(
        rows(&engine, listed).await,
        [[fx.edges.len().to_string()]],
        "{}: tree_edges listed",
        fx.file
    );
    let kernels = rows(
        &engine,
        "SELECT uid, launch_uid, op_uid, class, linked_by FROM kernels ORDER BY uid",
    )
    .await;
    let want: Vec<Vec<String>> = fx
        .kernels
        .iter()
        .map(|(u, l, o, c, b)| {
            vec![
                u.to_string(),
                l.to_string(),
                o.to_string(),
                c.to_string(),
                b.to_string(),
            ]
        })
        .collect();
    assert_eq!(kernels, want, "{}: kernels", fx.file);

    // kernel_ancestors (derived when read) is the closure of the expected edges
    // over the GPU rows: launch call at depth 1, then each parent up.
    let parent_of: std::collections::HashMap<i64, i64> =
        fx.edges.iter().map(|(p, c, _)| (*c, *p)).collect();
    let mut closure = Vec::new();
    for (uid, ..) in fx.kernels {
        let (mut at, mut depth) = (parent_of.get(uid), 1);
        while let Some(&ancestor) = at {
            closure.push(vec![
                uid.to_string(),
                ancestor.to_string(),
                depth.to_string(),
            ]);
            (at, depth) = (parent_of.get(&ancestor), depth + 1);
        }
    }
    let sql = "SELECT kernel_uid, ancestor_uid, depth FROM kernel_ancestors";
    assert_eq!(
        sorted(rows(&engine, sql).await),
        sorted(closure.clone()),
        "{}: kernel_ancestors",
        fx.file
    );
    assert_eq!(
        engine.row_count("kernel_ancestors"),
        closure.len(),
        "{}",
        fx.file
    );
    // A scan builds only the columns it reads, in its order; none for a count.
    let sql = "SELECT depth, kernel_uid FROM kernel_ancestors";
    let reordered = closure.iter().map(|r| vec![r[2].clone(), r[0].clone()]);
    assert_eq!(
        sorted(rows(&engine, sql).await),
        sorted(reordered),
        "{}: kernel_ancestors (depth, kernel_uid)",
        fx.file
    );
    let sql = "SELECT count(*), count(trace), count(DISTINCT ancestor_uid) FROM kernel_ancestors";
    let ancestors: std::collections::HashSet<&String> = closure.iter().map(|r| &r[1]).collect();
    assert_eq!(
        rows(&engine, sql).await,
        vec![vec![
            closure.len().to_string(),
            closure.len().to_string(),
            ancestors.len().to_string()
        ]],
        "{}: kernel_ancestors counts",
        fx.file
    );
    engine
}

/// The tree_edges rows (parent_uid, child_uid, kind) of one trace, sorted.
async fn edges(engine: &Engine, trace: &str) -> Vec<Vec<String>> {
    let sql = format!("SELECT parent_uid, child_uid, kind FROM tree_edges WHERE trace = '{trace}'");
    sorted(rows(engine, &sql).await)
}

fn sorted(rows: impl IntoIterator<Item = Vec<String>>) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = rows.into_iter().collect();
    rows.sort();
    rows
}

/// `[[a, b, ...], ...]` as owned strings, for comparing with `rows`.
fn table<const N: usize>(want: &[[&str; N]]) -> Vec<Vec<String>> {
    want.iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect()
}

const BASIC_LINEAR: Fixture = Fixture {
    file: "basic_linear.json",
    counts: [65, 15, 5, 0],
    edges: &[
        (21, 2, "python"),
        (2, 3, "host"),
        (3, 4, "host"),
        (4, 5, "host"),
        (2, 6, "host"),
        (24, 7, "python"),
        (25, 8, "python"),
        (8, 9, "host"),
        (9, 10, "host"),
        (9, 12, "host"),
        (26, 13, "python"),
        (13, 14, "host"),
        (27, 15, "python"),
        (15, 16, "host"),
        (17, 18, "python"),
        (18, 19, "python"),
        (19, 20, "python"),
        (20, 21, "python"),
        (18, 22, "python"),
        (22, 23, "python"),
        (23, 24, "python"),
        (17, 25, "python"),
        (17, 26, "python"),
        (17, 27, "python"),
        (17, 28, "python"),
        (31, 29, "launch"),
        (6, 31, "host"),
        (34, 33, "launch"),
        (7, 34, "host"),
        (37, 35, "launch"),
        (12, 37, "host"),
        (41, 39, "launch"),
        (14, 41, "host"),
        (45, 43, "launch"),
        (16, 45, "host"),
        (28, 47, "python"),
    ],
    kernels: &[
        (29, "31", "6", "compute", "flow"),
        (33, "34", "7", "compute", "correlation"),
        (35, "37", "12", "memcpy", "flow"),
        (39, "41", "13", "compute", "flow"),
        (43, "45", "16", "memset", "flow"),
    ],
};

const NCCL_GRAPH: Fixture = Fixture {
    file: "nccl_graph.json",
    counts: [52, 4, 7, 2],
    edges: &[
        (7, 1, "python"),
        (8, 2, "python"),
        (3, 4, "host"),
        (5, 6, "python"),
        (5, 7, "python"),
        (5, 8, "python"),
        (11, 9, "launch"),
        (6, 11, "python"),
        (11, 13, "launch"),
        (11, 14, "launch"),
        (17, 15, "launch"),
        (1, 17, "host"),
        (21, 19, "launch"),
        (1, 21, "host"),
        (25, 23, "launch"),
        (2, 25, "host"),
        (4, 27, "host"),
        (4, 28, "host"),
        (31, 29, "launch"),
        (4, 31, "host"),
        (3, 33, "host"),
    ],
    kernels: &[
        (9, "11", "NULL", "compute", "graph"),
        (13, "11", "NULL", "compute", "graph"),
        (14, "11", "NULL", "compute", "graph"),
        (15, "17", "1", "compute", "flow"),
        (19, "21", "1", "compute", "flow"),
        (23, "25", "2", "compute", "flow"),
        (29, "31", "4", "communication", "flow"),
    ],
};

const GPU_ONLY: Fixture = Fixture {
    file: "gpu_only.json",
    counts: [31, 0, 5, 0],
    edges: &[
        (1, 10, "launch"),
        (3, 12, "launch"),
        (5, 14, "launch"),
        (7, 17, "launch"),
    ],
    kernels: &[
        (10, "1", "NULL", "compute", "flow"),
        (12, "3", "NULL", "compute", "flow"),
        (14, "5", "NULL", "memcpy", "flow"),
        (16, "NULL", "NULL", "compute", "NULL"),
        (17, "7", "NULL", "compute", "flow"),
    ],
};

const NO_FLOWS_STRINGS: Fixture = Fixture {
    file: "no_flows_strings.json",
    counts: [31, 8, 5, 0],
    edges: &[
        (4, 5, "host"),
        (7, 8, "host"),
        (8, 9, "host"),
        (11, 10, "launch"),
        (1, 11, "host"),
        (13, 12, "launch"),
        (2, 13, "host"),
        (15, 14, "launch"),
        (5, 15, "host"),
        (5, 16, "host"),
        (19, 18, "launch"),
        (6, 19, "host"),
        (21, 20, "launch"),
        (9, 21, "host"),
    ],
    kernels: &[
        (10, "11", "1", "compute", "correlation"),
        (12, "13", "2", "compute", "correlation"),
        (14, "15", "5", "memcpy", "correlation"),
        (18, "19", "6", "memset", "correlation"),
        (20, "21", "9", "compute", "correlation"),
    ],
};

const LEGACY_FLOWS: Fixture = Fixture {
    file: "legacy_flows.json",
    counts: [29, 6, 3, 0],
    edges: &[
        (1, 2, "host"),
        (3, 4, "host"),
        (4, 5, "host"),
        (0, 6, "host"),
        (6, 8, "launch"),
        (2, 10, "host"),
        (10, 12, "launch"),
        (5, 14, "host"),
        (14, 16, "launch"),
        (5, 18, "host"),
    ],
    kernels: &[
        (8, "6", "0", "compute", "flow"),
        (12, "10", "2", "compute", "flow"),
        (16, "14", "5", "memcpy", "flow"),
    ],
};

const BLEED: Fixture = Fixture {
    file: "bleed.json",
    counts: [24, 10, 1, 0],
    edges: &[
        (0, 1, "host"),
        (0, 2, "host"),
        (0, 4, "host"),
        (5, 6, "host"),
        (6, 8, "launch"),
    ],
    kernels: &[(8, "6", "5", "compute", "flow")],
};

const ALL: [&Fixture; 6] = [
    &BASIC_LINEAR,
    &NCCL_GRAPH,
    &GPU_ONLY,
    &NO_FLOWS_STRINGS,
    &LEGACY_FLOWS,
    &BLEED,
];

#[tokio::test]
async fn basic_linear() {
    let engine = check(&BASIC_LINEAR).await;
    // addmm launches the GEMM itself; linear only holds it in its subtree;
    // _foreach_add_ gets its kernel through the `execute` pass-through.
    let ops = rows(
        &engine,
        "SELECT uid, name, is_root, direct_kernel_count, subtree_kernel_count FROM ops \
         WHERE uid IN (1, 2, 3, 6, 13, 14) ORDER BY uid",
    )
    .await;
    assert_eq!(
        ops,
        table(&[
            ["1", "aten::empty", "true", "0", "0"],
            ["2", "aten::linear", "true", "0", "1"],
            ["3", "aten::t", "false", "0", "0"],
            ["6", "aten::addmm", "false", "1", "1"],
            ["13", "aten::_foreach_add_", "true", "1", "1"],
            ["14", "execute", "false", "0", "1"],
        ])
    );
    // The input lists are parsed from the JSON columns when a scan reads them
    // (not held): each as the trace wrote it, NULL where the op has none.
    let inputs = rows(
        &engine,
        "SELECT uid, input_dims, input_types, input_strides, concrete_inputs FROM ops \
         WHERE uid IN (5, 6, 14) ORDER BY uid",
    )
    .await;
    assert_eq!(
        inputs,
        table(&[
            [
                "5",
                "[[4096, 1024], [], [], []]",
                "[c10::BFloat16, ScalarList, ScalarList, ]",
                "[[1024, 1], [], [], []]",
                "[, [1024, 4096], [1, 1024], ]",
            ],
            [
                "6",
                "[[4096], [256, 1024], [1024, 4096], [], []]",
                "[c10::BFloat16, c10::BFloat16, c10::BFloat16, Scalar, Scalar]",
                "[[1], [1024, 1], [1, 1024], [], []]",
                "[, , , 1, 1]",
            ],
            ["14", "NULL", "NULL", "NULL", "NULL"],
        ])
    );
    // events' sparse ids and t_end are held apart and filled in by the scans
    // that read them: the values basic_linear.json writes.
    let ids = "SELECT count(correlation), sum(correlation), count(external_id), \
               sum(external_id), count(stream), count(device), count(seq_num), sum(seq_num), \
               count(flow_id), sum(flow_id) FROM events";
    let want = [
        "11", "56283", "27", "251", "5", "5", "4", "454", "9", "46067",
    ];
    assert_eq!(rows(&engine, ids).await, table(&[want]));
    let t_end = "SELECT count(t_end), count(*) FILTER (WHERE t_end IS DISTINCT FROM \
                 ts + coalesce(dur, 0)) FROM events";
    assert_eq!(rows(&engine, t_end).await, table(&[["65", "0"]]));
    let one = "SELECT input_strides[2][1] FROM ops WHERE uid = 6";
    assert_eq!(rows(&engine, one).await, table(&[["1024"]]));
    let parsed =
        "SELECT count(input_dims), count(input_dims_json), count(concrete_inputs) FROM ops";
    assert_eq!(rows(&engine, parsed).await, table(&[["14", "14", "14"]]));
}

#[tokio::test]
async fn nccl_graph() {
    let engine = check(&NCCL_GRAPH).await;
    let ops = rows(
        &engine,
        "SELECT uid, is_root, direct_kernel_count, subtree_kernel_count FROM ops ORDER BY uid",
    )
    .await;
    // Collectives count in the subtree but not as direct kernels.
    assert_eq!(
        ops,
        table(&[
            ["1", "true", "2", "2"],
            ["2", "true", "1", "1"],
            ["3", "true", "0", "1"],
            ["4", "false", "0", "1"],
        ])
    );
    // Values from the args of uids 4 and 29 in nccl_graph.json; BFloat16 is 2 bytes.
    let coll = rows(
        &engine,
        "SELECT uid, source, op_uid, collective_name, group_size, dtype, in_msg_nelems, \
         in_msg_bytes, process_group_name, process_group_ranks FROM collectives ORDER BY uid",
    )
    .await;
    let row = |uid, source| {
        [
            uid,
            source,
            "4",
            "allreduce",
            "2",
            "BFloat16",
            "1048576",
            "2097152.0",
            "0",
            "[0, 1]",
        ]
    };
    assert_eq!(coll, table(&[row("4", "op"), row("29", "kernel")]));
}

#[tokio::test]
async fn gpu_only() {
    check(&GPU_ONLY).await;
}

#[tokio::test]
async fn no_flows_strings() {
    let engine = check(&NO_FLOWS_STRINGS).await;
    // The backward wrapper (seq 40, tid 22431) pairs with the forward aten::mul
    // (uid 1, seq 40) on the main thread; no other op has a forward.
    let ops = rows(
        &engine,
        "SELECT uid, forward_uid, direct_kernel_count, subtree_kernel_count FROM ops ORDER BY uid",
    )
    .await;
    assert_eq!(
        ops,
        table(&[
            ["1", "NULL", "1", "1"],
            ["2", "NULL", "1", "1"],
            ["4", "NULL", "0", "1"],
            ["5", "NULL", "1", "1"],
            ["6", "NULL", "1", "1"],
            ["7", "1", "0", "1"],
            ["8", "NULL", "0", "1"],
            ["9", "NULL", "1", "1"],
        ])
    );
}

#[tokio::test]
async fn legacy_flows() {
    check(&LEGACY_FLOWS).await;
}

#[tokio::test]
async fn bleed() {
    let engine = check(&BLEED).await;
    // Roots 0, 5, 10, 12; dropped 3, 11, 13 (out of the tree, not roots).
    let ops = rows(
        &engine,
        "SELECT uid, parent_uid, is_root, in_tree, direct_kernel_count FROM ops ORDER BY uid",
    )
    .await;
    assert_eq!(
        ops,
        table(&[
            ["0", "NULL", "true", "true", "0"],
            ["1", "0", "false", "true", "0"],
            ["2", "0", "false", "true", "0"],
            ["3", "NULL", "false", "false", "0"],
            ["4", "0", "false", "true", "0"],
            ["5", "NULL", "true", "true", "1"],
            ["10", "NULL", "true", "true", "0"],
            ["11", "NULL", "false", "false", "0"],
            ["12", "NULL", "true", "true", "0"],
            ["13", "NULL", "false", "false", "0"],
        ])
    );
}

/// gzip, zip and mis-named gzip copies of every fixture load the same as the json.
#[tokio::test]
async fn input_formats() {
    let dir = tempfile::tempdir().unwrap();
    for fx in ALL {
        let json = std::fs::read(fixture(fx.file)).unwrap();
        let stem = fx.file.trim_end_matches(".json");
        let gz = gzip(&json);

        let gz_path = dir.path().join(format!("{stem}.json.gz"));
        std::fs::write(&gz_path, &gz).unwrap();
        let misnamed_path = dir.path().join(format!("misnamed_{stem}.json"));
        std::fs::write(&misnamed_path, &gz).unwrap();
        let zip_path = dir.path().join(format!("{stem}.zip"));
        std::fs::write(&zip_path, zip(&[(fx.file, &json)])).unwrap();

        let reference = engine_with(&[&fixture(fx.file)]);
        let want_events = rows(&reference, "SELECT count(*) FROM events").await;
        assert_eq!(want_events, [[fx.counts[0].to_string()]]);
        let want_edges = edges(&reference, stem).await;
        assert_eq!(want_edges.len(), fx.edges.len());
        let copies = [
            (gz_path, stem.to_string()),
            (zip_path, stem.to_string()),
            (misnamed_path, format!("misnamed_{stem}")),
        ];
        for (path, name) in copies {
            let path = path.to_str().unwrap();
            let engine = engine_with(&[path]);
            assert_eq!(engine.trace_names(), [name.clone()], "{path}");
            let events = rows(&engine, "SELECT count(*) FROM events").await;
            assert_eq!(events, want_events, "{path}: events");
            assert_eq!(
                edges(&engine, &name).await,
                want_edges,
                "{path}: tree_edges"
            );
        }
    }
}

#[tokio::test]
async fn several_traces_in_one_engine() {
    let mut engine = engine_with(&[&fixture("basic_linear.json"), &fixture("bleed.json")]);
    let traces = rows(&engine, "SELECT DISTINCT trace FROM events ORDER BY trace").await;
    assert_eq!(traces, table(&[["basic_linear"], ["bleed"]]));

    let again = load_trace(&fixture("basic_linear.json")).unwrap();
    assert_eq!(engine.add(again).unwrap(), "basic_linear#2");
    let per_trace = rows(
        &engine,
        "SELECT trace, count(*) FROM events GROUP BY trace ORDER BY trace",
    )
    .await;
    assert_eq!(
        per_trace,
        table(&[
            ["basic_linear", "65"],
            ["basic_linear#2", "65"],
            ["bleed", "24"]
        ])
    );
    // Every table of the second copy carries the new name.
    assert_eq!(
        edges(&engine, "basic_linear#2").await,
        edges(&engine, "basic_linear").await
    );
    assert_eq!(edges(&engine, "basic_linear#2").await.len(), 36);
    let kernels = rows(
        &engine,
        "SELECT trace, count(*) FROM kernels GROUP BY trace ORDER BY trace",
    )
    .await;
    assert_eq!(
        kernels,
        table(&[
            ["basic_linear", "5"],
            ["basic_linear#2", "5"],
            ["bleed", "1"]
        ])
    );
}

/// Not a fixture file: a host event dropped by the bleed rule (B overlaps A by
/// 50 µs at depth 1) gets no python parent either (EXPECTED.md's python rule,
/// spec §2.3), although a python frame encloses it.
#[tokio::test]
async fn dropped_event_gets_no_python_parent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py_drop.json");
    let ev = |cat: &str, name: &str, ts: f64, dur: f64| {
        format!(
            r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":1,"tid":1,"ts":{ts:.3},"dur":{dur:.3},"args":{{}}}}"#
        )
    };
    let events = [
        ev("cpu_op", "A", 10.0, 90.0),
        ev("cpu_op", "B", 50.0, 150.0),
        ev("python_function", "py", 0.0, 1000.0),
    ];
    std::fs::write(
        &path,
        format!(r#"{{"traceEvents":[{}]}}"#, events.join(",")),
    )
    .unwrap();
    let engine = engine_with(&[path.to_str().unwrap()]);
    assert_eq!(
        edges(&engine, "py_drop").await,
        table(&[["2", "0", "python"]])
    );
    let ops = rows(
        &engine,
        "SELECT uid, parent_uid, is_root, in_tree FROM ops ORDER BY uid",
    )
    .await;
    assert_eq!(
        ops,
        table(&[["0", "2", "true", "true"], ["1", "NULL", "false", "false"]])
    );
}

/// kernel_ancestors is made a batch at a time as a query reads it, with its
/// row count known to the planner: a join that names it first still builds
/// its hash table on the other, smaller side and streams kernel_ancestors
/// through it (on a 1 GB trace the table is 6 M rows; as the build side it
/// would be held whole).
#[tokio::test]
async fn kernel_ancestors_streams_through_joins() {
    let engine = engine_with(&[&fixture("basic_linear.json")]);
    let sql = "EXPLAIN SELECT count(*) FROM kernel_ancestors a \
               JOIN (SELECT uid FROM ops WHERE name = 'aten::linear') o ON o.uid = a.ancestor_uid";
    let plan = rows(&engine, sql).await;
    let physical = plan
        .iter()
        .find(|r| r[0] == "physical_plan")
        .map(|r| r[1].clone())
        .expect("a physical plan");
    let lines: Vec<&str> = physical.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let join = lines
        .iter()
        .position(|l| l.trim_start().starts_with("HashJoinExec"))
        .unwrap_or_else(|| panic!("no hash join in\n{physical}"));
    // The join's children: the first (build) and second (probe) lines one
    // level deeper.
    let depth = indent(lines[join]);
    let children: Vec<usize> = (join + 1..lines.len())
        .take_while(|&i| indent(lines[i]) > depth)
        .filter(|&i| indent(lines[i]) == depth + 2)
        .collect();
    assert_eq!(children.len(), 2, "{physical}");
    let build = &lines[children[0]..children[1]];
    let probe = &lines[children[1]..];
    assert!(
        !build.iter().any(|l| l.contains("kernel_ancestors")),
        "kernel_ancestors is the build side:\n{physical}"
    );
    assert!(
        probe
            .iter()
            .any(|l| l.contains("StreamedScan: table=kernel_ancestors")),
        "{physical}"
    );
    // And the rows are those of the whole table.
    let sql = "SELECT count(*) FROM kernel_ancestors a \
               JOIN (SELECT uid FROM ops WHERE name = 'aten::linear') o ON o.uid = a.ancestor_uid";
    let joined = rows(&engine, sql).await;
    let sql = "SELECT count(*) FROM (SELECT * FROM kernel_ancestors) a \
               WHERE a.ancestor_uid IN (SELECT uid FROM ops WHERE name = 'aten::linear')";
    assert_eq!(joined, rows(&engine, sql).await);
    assert_ne!(
        joined,
        [["0".to_string()]],
        "aten::linear has kernels below it"
    );
}
