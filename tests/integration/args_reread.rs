//! `events.args` is read back from the trace file when a query reads it (see
//! `ingest::reread`): the values as written, through every container, from
//! standard input too (held in memory there), and a clear error, never other
//! text, once the file has changed.

use datafusion::arrow::array::{Array, AsArray};
use serde_json::value::RawValue;
use tracesql::engine::Engine;
use tracesql::load::load_trace;

use crate::util::{gzip, tracesql, zip};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/nccl_graph.json");
const ARGS_SQL: &str = "SELECT uid, args FROM events ORDER BY uid";

/// Every event's args as the file writes them (None where absent), read here
/// with serde_json's raw values, independently of tracesql's reader.
fn args_as_written(json: &str) -> Vec<Option<String>> {
    #[derive(serde::Deserialize)]
    struct Event<'a> {
        #[serde(borrow)]
        args: Option<&'a RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Trace<'a> {
        #[serde(borrow, rename = "traceEvents")]
        events: Vec<Event<'a>>,
    }
    let trace: Trace = serde_json::from_str(json).expect("fixture is a trace");
    trace
        .events
        .iter()
        .map(|e| e.args.map(|a| a.get().to_string()))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().expect("runtime")
}

/// `(uid, args)` of every event, or the query's error.
fn query_args(engine: &Engine) -> Result<Vec<Option<String>>, String> {
    let results = runtime()
        .block_on(engine.run_sql(ARGS_SQL))
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for batch in results.into_iter().flatten() {
        let args = batch.column(1).as_string::<i32>();
        out.extend((0..args.len()).map(|i| args.is_valid(i).then(|| args.value(i).to_string())));
    }
    Ok(out)
}

fn count_events(engine: &Engine) -> usize {
    let results = runtime()
        .block_on(engine.run_sql("SELECT count(*), min(name) FROM events"))
        .expect("a query without args runs");
    let batch = &results[0][0];
    batch
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
        .value(0) as usize
}

fn engine_for(path: &str) -> Engine {
    let mut engine = Engine::new();
    engine
        .add(load_trace(path).unwrap_or_else(|e| panic!("{e}")))
        .expect("registers");
    engine
}

#[test]
fn args_read_back_are_the_args_as_written_in_every_container() {
    let json = std::fs::read_to_string(FIXTURE).expect("fixture");
    let expected = args_as_written(&json);
    assert!(
        expected.iter().flatten().count() > 10,
        "the fixture has args"
    );
    assert!(expected.iter().any(Option::is_none), "and events without");
    let dir = tempfile::tempdir().expect("temp dir");
    for (file, bytes) in [
        ("t.json", json.clone().into_bytes()),
        ("t.json.gz", gzip(json.as_bytes())),
        ("t.zip", zip(&[("inner/t.json", json.as_bytes())])),
    ] {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).expect("write");
        let engine = engine_for(path.to_str().expect("utf-8"));
        assert_eq!(query_args(&engine).as_ref(), Ok(&expected), "{file}");
    }
}

#[test]
fn a_changed_file_gives_an_error_and_other_columns_still_work() {
    let json = std::fs::read_to_string(FIXTURE).expect("fixture");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.json");
    std::fs::write(&path, &json).expect("write");
    let path_text = path.to_str().expect("utf-8");
    let engine = engine_for(path_text);
    let events = count_events(&engine);
    assert_eq!(query_args(&engine).map(|a| a.len()), Ok(events));

    // The same size, other bytes: every args object moved back a byte (a
    // trailing space keeps the length), so even a file stamp that missed the
    // change leaves no object at the recorded places.
    let shifted = json.replacen("\"args\": {", "\"args\":{", 1) + " ";
    assert_eq!(shifted.len(), json.len());
    assert_ne!(shifted, json);
    std::fs::write(&path, &shifted).expect("rewrite");
    let error = query_args(&engine).expect_err("a changed file");
    assert!(
        error.contains(path_text) && error.contains("changed since it was loaded"),
        "{error}"
    );
    assert_eq!(count_events(&engine), events);

    std::fs::remove_file(&path).expect("remove");
    let error = query_args(&engine).expect_err("a removed file");
    assert!(error.contains("changed since it was loaded"), "{error}");
    assert_eq!(count_events(&engine), events);
}

#[test]
fn standard_input_keeps_its_args_in_memory() {
    let json = std::fs::read(FIXTURE).expect("fixture");
    let expected: Vec<String> = args_as_written(std::str::from_utf8(&json).expect("utf-8"))
        .into_iter()
        .map(|a| a.unwrap_or_default())
        .collect();
    let out = tracesql()
        .args(["query", "-", "--format", "json", "-e", ARGS_SQL])
        .stdin(gzip(&json))
        .run();
    assert!(out.success());
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("JSON rows");
    let got: Vec<String> = rows
        .iter()
        .map(|r| r["args"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(got, expected);
}
