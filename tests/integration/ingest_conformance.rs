//! Ingest and linking invariants on every real trace in ../shared/conformance and
//! ../shared/edge-traces.
//!
//! The expected counts are taken here, independently of tracesql, by parsing the
//! same JSON with serde_json::Value.

use std::collections::{BTreeSet, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use datafusion::arrow::util::display::array_value_to_string;
use serde_json::Value;
use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{conformance_dir, files_under, shared_dir};

fn json_gz_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = files_under(dir);
    out.retain(|p| p.to_string_lossy().ends_with(".json.gz"));
    out
}

fn read_json(path: &Path) -> Value {
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("trace opens"))
        .read_to_end(&mut text)
        .expect("trace decompresses");
    serde_json::from_slice(&text).expect("trace is JSON")
}

fn rows(engine: &Engine, sql: &str) -> Vec<Vec<String>> {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let results = rt
        .block_on(engine.run_sql(sql))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    for batch in results.into_iter().flatten() {
        for r in 0..batch.num_rows() {
            out.push(
                batch
                    .columns()
                    .iter()
                    .map(|c| array_value_to_string(c, r).expect("printable"))
                    .collect(),
            );
        }
    }
    out
}

fn count(engine: &Engine, sql: &str) -> u64 {
    rows(engine, sql)[0][0].parse().expect("a count")
}

/// What the JSON says, counted without tracesql.
struct Independent {
    events: u64,
    cpu_ops: u64,
    gpu: u64,
    top_level_keys: u64,
    /// uids of GPU events whose correlation matches a runtime/driver call.
    linkable: BTreeSet<u64>,
}

fn count_independently(doc: &Value) -> Independent {
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let cat = |e: &Value| {
        e.get("cat")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let complete = |e: &Value| e.get("ph").and_then(Value::as_str) == Some("X");
    let corr = |e: &Value| {
        e.get("args")
            .and_then(|a| a.get("correlation"))
            .and_then(Value::as_i64)
    };
    let is_gpu = |e: &Value| {
        complete(e) && ["kernel", "gpu_memcpy", "gpu_memset"].contains(&cat(e).as_str())
    };
    let launch_corrs: HashSet<i64> = events
        .iter()
        .filter(|e| complete(e) && ["cuda_runtime", "cuda_driver"].contains(&cat(e).as_str()))
        .filter_map(corr)
        .collect();
    Independent {
        events: events.len() as u64,
        cpu_ops: events
            .iter()
            .filter(|e| complete(e) && cat(e) == "cpu_op")
            .count() as u64,
        gpu: events.iter().filter(|e| is_gpu(e)).count() as u64,
        top_level_keys: doc.as_object().expect("object").len() as u64,
        linkable: events
            .iter()
            .enumerate()
            .filter(|(_, e)| is_gpu(e) && corr(e).is_some_and(|c| launch_corrs.contains(&c)))
            .map(|(i, _)| i as u64)
            .collect(),
    }
}

fn check_trace(path: &Path) {
    let name = path.display().to_string();
    let doc = read_json(path);
    let expected = count_independently(&doc);
    let mut engine = Engine::new();
    engine
        .add(load_trace(&name).unwrap_or_else(|e| panic!("{e}")))
        .expect("registers");

    assert_eq!(
        count(&engine, "SELECT count(*) FROM events"),
        expected.events,
        "{name}: events"
    );
    assert_eq!(
        count(&engine, "SELECT count(*) FROM ops"),
        expected.cpu_ops,
        "{name}: ops"
    );
    assert_eq!(
        count(&engine, "SELECT count(*) FROM kernels"),
        expected.gpu,
        "{name}: kernels"
    );
    assert_eq!(
        count(&engine, "SELECT count(*) FROM trace_meta"),
        expected.top_level_keys - 1 + 4,
        "{name}: trace_meta has every top-level key but traceEvents, plus source, event_count, integer_times and source_format"
    );

    // Every GPU event whose correlation matches a launch call is linked to one, with
    // the same correlation; the others are not linked.
    let linked: BTreeSet<u64> = rows(
        &engine,
        "SELECT uid FROM kernels WHERE launch_uid IS NOT NULL",
    )
    .into_iter()
    .map(|r| r[0].parse().expect("uid"))
    .collect();
    assert_eq!(linked, expected.linkable, "{name}: linked GPU events");
    let mismatched = count(
        &engine,
        "SELECT count(*) FROM kernels k JOIN events l ON l.trace = k.trace AND l.uid = k.launch_uid \
         WHERE l.correlation <> k.correlation OR l.cat NOT IN ('cuda_runtime', 'cuda_driver')",
    );
    assert_eq!(mismatched, 0, "{name}: launches with another correlation");

    // One parent per child; host and python children lie inside their parent, up to
    // the trace's 1 ns resolution (ts + dur rounds at ~1.4e12 µs).
    let multi = count(
        &engine,
        "SELECT count(*) FROM (SELECT child_uid FROM tree_edges GROUP BY trace, child_uid HAVING count(*) > 1)",
    );
    assert_eq!(multi, 0, "{name}: children with several parents");
    let outside = count(
        &engine,
        "SELECT count(*) FROM tree_edges t \
         JOIN events p ON p.trace = t.trace AND p.uid = t.parent_uid \
         JOIN events c ON c.trace = t.trace AND c.uid = t.child_uid \
         WHERE t.kind IN ('host', 'python') AND (c.ts < p.ts OR c.t_end > p.t_end + 0.001)",
    );
    assert_eq!(
        outside, 0,
        "{name}: children outside their parent's interval"
    );

    // Attribution agrees with the tree: a kernel's op is an ancestor of its launch.
    let direct_total = count(
        &engine,
        "SELECT coalesce(sum(direct_kernel_count), 0) FROM ops",
    );
    let attributed = count(
        &engine,
        "SELECT count(*) FROM kernels WHERE op_uid IS NOT NULL AND class <> 'communication'",
    );
    assert_eq!(direct_total, attributed, "{name}: direct kernel counts");

    // events.args, read back from the file when queried, is every event's args
    // object as the JSON has it (NULL where it has none or null).
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let args = rows(
        &engine,
        "SELECT uid, args IS NULL, args FROM events ORDER BY uid",
    );
    assert_eq!(args.len(), events.len(), "{name}: events.args rows");
    for (row, event) in args.iter().zip(events) {
        let expected = event.get("args").filter(|a| !a.is_null());
        let got = (row[1] == "false").then(|| {
            serde_json::from_str::<Value>(&row[2])
                .unwrap_or_else(|e| panic!("{name}: args of event {} is not JSON: {e}", row[0]))
        });
        assert_eq!(got.as_ref(), expected, "{name}: args of event {}", row[0]);
    }
}

#[test]
fn conformance_traces_load_and_link() {
    let Some(dir) = conformance_dir() else {
        return;
    };
    // Only `traces/`: the other folders (collectives, compare, formats, replay)
    // hold inputs for features to come, rocprofv3 JSON among them.
    let traces = json_gz_files(&dir.join("traces"));
    assert!(
        traces.len() >= 9,
        "expected the 9 conformance traces, found {}",
        traces.len()
    );
    for trace in traces {
        check_trace(&trace);
    }
}

#[test]
fn edge_traces_load_and_link() {
    let Some(dir) = shared_dir("TRACESQL_EDGE_TRACES", "edge-traces") else {
        return;
    };
    let traces = json_gz_files(&dir);
    assert!(
        traces.len() >= 10,
        "expected the 10 edge traces, found {}",
        traces.len()
    );
    for trace in traces {
        check_trace(&trace);
    }
}
