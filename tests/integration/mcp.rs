//! `tracesql mcp` driven over stdio as a client would: JSON-RPC lines in and
//! out (the Python SDK drives it too, from `.ci/run`: tests/mcp/check_client.py).
//! Each tool's answer is checked against the CLI's, and each forbidden thing
//! (a writing statement, a file-reading function, a path outside the root, a
//! runaway query) must come back as a tool error that leaves nothing behind
//! and the server serving.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{self, package_path, tracesql_ok};

/// A server on a pipe and the lines it writes.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn start(root: &Path, extra: &[&str]) -> Client {
        let mut child = Command::new(util::BIN)
            .arg("mcp")
            .arg("--root")
            .arg(root)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tracesql mcp");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tracesql-test", "version": "1"}}),
        );
        assert_eq!(init["serverInfo"]["name"], "tracesql", "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// The result of a request; panics on a protocol error or silence.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.reply(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// The whole reply to a request (result or error).
    fn reply(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(300))
                .unwrap_or_else(|_| panic!("no reply to {method}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout holds a line that is not JSON ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// A tool's text and whether it is an error.
    fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (text, result["isError"] == json!(true))
    }

    fn ok(&mut self, tool: &str, arguments: Value) -> String {
        let (text, error) = self.call(tool, arguments.clone());
        assert!(!error, "{tool} {arguments}: {text}");
        text
    }

    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let (text, error) = self.call(tool, arguments.clone());
        assert!(error, "{tool} {arguments} was not refused: {text}");
        assert!(!text.contains('\n'), "a tool error is one line: {text}");
        text
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Markdown answer's table rows, cells trimmed (header and rule skipped).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| "))
        .skip(1)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The data rows of the CLI's `--format csv` output for `args` (sheet titles,
/// blank lines and the header dropped). The values hold no commas here.
fn cli_rows(args: &[&str]) -> Vec<Vec<String>> {
    let mut args = args.to_vec();
    args.extend(["--format", "csv"]);
    tracesql_ok(&args)
        .lines()
        .filter(|l| !l.starts_with("==") && !l.is_empty())
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// A root holding the basic fixture, and a file outside it.
fn root_with_fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("root");
    std::fs::create_dir(&root).expect("root");
    std::fs::copy(
        package_path("fixtures/basic_linear.json"),
        root.join("basic.json"),
    )
    .expect("copy fixture");
    (dir, root)
}

#[test]
fn an_agent_opens_a_trace_and_every_tool_answers_as_the_cli_does() {
    let (_dir, root) = root_with_fixture();
    let trace = root.join("basic.json");
    let trace = trace.to_str().expect("utf-8");
    let mut client = Client::start(&root, &[]);

    let tools = client.request("tools/list", json!({}));
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    names.sort();
    assert_eq!(names, tracesql::mcp::server::TOOL_NAMES);

    let opened = client.ok("open_trace", json!({"path": "basic.json"}));
    assert!(opened.starts_with("Opened **basic** from "), "{opened}");
    assert!(opened.contains("65 events, 5 kernels"), "{opened}");

    // sql equals the CLI's answer.
    let sql = "SELECT count(*) AS kernels, CAST(round(sum(dur) * 1000) AS BIGINT) AS total_ns FROM kernels";
    let answer = client.ok("sql", json!({"query": sql}));
    assert_eq!(rows(&answer), cli_rows(&["query", trace, "-e", sql]));
    assert!(answer.ends_with("(1 row)\n"), "{answer}");

    // report: the CLI's gpu_timeline, numbers rounded for reading.
    let report = client.ok("report", json!({"name": "gpu_timeline"}));
    let theirs = cli_rows(&["report", trace, "--only", "gpu_timeline"]);
    let ours = rows(&report);
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{report}
{theirs:?}"
    );
    for (ours, theirs) in ours.iter().zip(&theirs) {
        assert_eq!(ours[0], theirs[0]);
        let (a, b): (f64, f64) = (
            ours[1].parse().expect("number"),
            theirs[1].parse().expect("number"),
        );
        assert!(
            (a - b).abs() <= 1e-4 * b.abs().max(1.0),
            "{ours:?} vs {theirs:?}"
        );
    }
    let unknown = client.refused("report", json!({"name": "no_such_report"}));
    assert!(
        unknown.contains("gpu_timeline"),
        "the error lists the reports: {unknown}"
    );

    // Drill-down: the longest kernel's stack ends at it, and its op's kernels hold it.
    let uid = client.ok(
        "sql",
        json!({"query": "SELECT uid FROM kernels ORDER BY dur DESC LIMIT 1"}),
    );
    let uid: i64 = rows(&uid)[0][0].parse().expect("uid");
    let stack = rows(&client.ok("call_stack", json!({"uid": uid})));
    assert!(stack.len() >= 3, "{stack:?}");
    assert_eq!(stack.last().expect("a row")[1], uid.to_string());
    assert_eq!(stack[0][0], "0");
    let cli = cli_rows(&[
        "query",
        trace,
        "-e",
        &format!("SELECT uid FROM call_stack({uid}) ORDER BY depth"),
    ]);
    let our_uids: Vec<&str> = stack.iter().map(|r| r[1].as_str()).collect();
    let cli_uids: Vec<&str> = cli.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(our_uids, cli_uids);
    let op = &stack[stack.len() - 3][1];
    let kernels = client.ok(
        "kernels_of",
        json!({"uid": op.parse::<i64>().expect("uid")}),
    );
    assert!(kernels.contains(&format!("| {uid} |")), "{kernels}");
    client.refused("call_stack", json!({"uid": 99_999_999}));

    let described = client.ok("describe_table", json!({"table": "kernels"}));
    assert!(
        described.contains("| dur |") && described.contains("µs"),
        "{described}"
    );
    client.refused("describe_table", json!({"table": "no_such_table"}));
    let listed = client.ok("list_tables", json!({}));
    assert!(
        listed.contains("| kernels |") && listed.contains("| unified_perf_events |"),
        "{listed}"
    );
    let traces = client.ok("list_traces", json!({}));
    assert!(traces.contains("| basic | 65 | 5 | H100 |"), "{traces}");

    // analyze: the analysis the CLI prints, with its recommendations.
    let analysis = client.ok("analyze", json!({}));
    assert!(
        analysis.starts_with("# Standalone analysis: basic"),
        "{}",
        &analysis[..200.min(analysis.len())]
    );
    assert!(analysis.contains("Recommendations"), "{analysis}");
    let platform = client.ok("analyze", json!({"platform": "MI300X"}));
    assert!(platform.contains("MI300X"), "the platform argument is used");
    client.refused("analyze", json!({"platform": "NoSuchGPU"}));

    // compare: a trace against itself changes nothing.
    client.ok("open_trace", json!({"path": "basic.json", "name": "again"}));
    let compared = client.ok("compare", json!({"base": "basic", "target": "again"}));
    assert!(compared.contains("### compare_gpu_timeline"), "{compared}");
    let deltas: Vec<Vec<String>> = rows(&compared)
        .into_iter()
        .filter(|r| r[0] == "total_time")
        .collect();
    assert!(!deltas.is_empty(), "{compared}");
    // With two traces open, sql sees both and the drill-down needs a name.
    let both = client.ok(
        "sql",
        json!({"query": "SELECT trace, count(*) AS n FROM kernels GROUP BY trace ORDER BY trace"}),
    );
    assert_eq!(rows(&both), [["again", "5"], ["basic", "5"]]);
    let needs = client.refused("call_stack", json!({"uid": uid}));
    assert!(needs.contains("name one with `trace`"), "{needs}");
    client.ok("call_stack", json!({"uid": uid, "trace": "again"}));
    client.refused("open_trace", json!({"path": "basic.json"}));

    // Resources: the schema and each query's file, header included.
    let resources = client.request("resources/list", json!({}));
    let uris: Vec<&str> = resources["resources"]
        .as_array()
        .expect("list")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    assert!(
        uris.contains(&"tracesql://schema") && uris.contains(&"tracesql://queries/gpu_timeline"),
        "{uris:?}"
    );
    let query = client.request(
        "resources/read",
        json!({"uri": "tracesql://queries/gpu_timeline"}),
    );
    let text = query["contents"][0]["text"].as_str().expect("text");
    let cli = tracesql_ok(&["queries", "show", "gpu_timeline"]);
    assert!(
        text.starts_with("--") && text.ends_with(cli.as_str()),
        "{text}"
    );
    let schema = client.request("resources/read", json!({"uri": "tracesql://schema"}));
    assert!(schema["contents"][0]["text"]
        .as_str()
        .expect("text")
        .contains("| kernels | dur |"));
    let missing = client.reply("resources/read", json!({"uri": "tracesql://queries/nope"}));
    assert!(missing["error"].is_object(), "{missing}");

    // Prompts: the analysis workflows, with their arguments filled in.
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["prompts"].as_array().expect("prompts").len(), 2);
    let prompt = client.request(
        "prompts/get",
        json!({"name": "standalone_analysis", "arguments": {"trace": "basic.json"}}),
    );
    let text = prompt["messages"][0]["content"]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.contains("`open_trace` with path `basic.json`"),
        "{text}"
    );
    let missing = client.reply(
        "prompts/get",
        json!({"name": "comparative_analysis", "arguments": {"base": "a"}}),
    );
    assert!(missing["error"].is_object(), "{missing}");
}

#[test]
fn writes_file_reads_and_paths_outside_the_root_are_refused_and_leave_nothing() {
    let (dir, root) = root_with_fixture();
    std::fs::write(
        dir.path().join("outside.json"),
        std::fs::read(root.join("basic.json")).expect("read"),
    )
    .expect("write");
    std::os::unix::fs::symlink(dir.path().join("outside.json"), root.join("link.json"))
        .expect("symlink");
    let mut client = Client::start(&root, &["basic.json"]);
    let written = dir.path().join("written.csv");
    let target = written.to_str().expect("utf-8");
    for (sql, kind) in [
        (
            format!("COPY (SELECT * FROM kernels) TO '{target}'"),
            "COPY",
        ),
        (
            format!("EXPLAIN ANALYZE COPY (SELECT 1) TO '{target}'"),
            "COPY",
        ),
        (
            format!("CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '{target}'"),
            "CREATE EXTERNAL TABLE",
        ),
        (
            "CREATE TABLE t AS SELECT * FROM kernels".to_string(),
            "CREATE TABLE",
        ),
        ("CREATE VIEW v AS SELECT 1".to_string(), "CREATE VIEW"),
        (
            "INSERT INTO kernels SELECT * FROM kernels".to_string(),
            "INSERT",
        ),
        ("DROP TABLE kernels".to_string(), "DROP TABLE"),
        ("SET datafusion.execution.batch_size = 1".to_string(), "SET"),
        ("SET platform = 'MI300X'".to_string(), "SET"),
        ("SELECT 1; SELECT 2".to_string(), "one statement per call"),
    ] {
        let error = client.refused("sql", json!({"query": sql}));
        assert!(error.contains(kind), "{sql}: {error}");
    }
    // SELECT INTO passes the statement check and is stopped at the plan.
    let into = client.refused("sql", json!({"query": "SELECT * INTO stolen FROM kernels"}));
    assert!(
        into.contains("DDL not supported") || into.contains("not allowed"),
        "{into}"
    );
    // The function that reads a named file is not in the session.
    let read = client.refused(
        "sql",
        json!({"query": "SELECT * FROM replay_runs('/etc/passwd')"}),
    );
    assert!(read.contains("replay_runs"), "{read}");
    assert!(!written.exists(), "a refused statement wrote {target}");
    // Nothing changed: the tables and platform are as before.
    let kernels = client.ok("sql", json!({"query": "SELECT count(*) AS n FROM kernels"}));
    assert_eq!(rows(&kernels), [["5"]]);
    let tables = client.ok(
        "sql",
        json!({"query": "SELECT count(*) AS n FROM tracesql_tables WHERE name IN ('t', 'v', 'stolen', 'x')"}),
    );
    assert_eq!(rows(&tables), [["0"]]);

    let outside = dir.path().join("outside.json");
    for path in [
        "../outside.json",
        outside.to_str().expect("utf-8"),
        "link.json",
        "/etc/passwd",
        "-",
    ] {
        let error = client.refused("open_trace", json!({"path": path}));
        assert!(
            error.contains("outside the server's root") || error.contains("standard input"),
            "{path}: {error}"
        );
        let error = client.refused("compare", json!({"base": "basic", "target": path}));
        assert!(
            error.contains("outside the server's root") || error.contains("standard input"),
            "{path}: {error}"
        );
    }
    let error = client.refused("collectives", json!({"paths": ["../*.json"]}));
    assert!(error.contains("outside the server's root"), "{error}");
    let error = client.refused("collectives", json!({"paths": ["."]}));
    assert!(
        error.contains("link.json") && error.contains("outside"),
        "a link in a directory is checked too: {error}"
    );
    let error = client.refused("open_trace", json!({"path": "missing.json"}));
    assert!(error.starts_with("missing.json:"), "{error}");
    let traces = client.ok("list_traces", json!({}));
    assert_eq!(rows(&traces).len(), 1, "{traces}");

    // A server started on a trace outside its root does not start.
    let run = util::tracesql()
        .args([
            "mcp",
            "--root",
            root.to_str().expect("utf-8"),
            "../outside.json",
        ])
        .run();
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("outside the server's root") && run.stdout.is_empty(),
        "{run:?}"
    );
}

#[test]
fn answers_state_their_limits_and_runaway_calls_are_stopped() {
    let (_dir, root) = root_with_fixture();
    let mut client = Client::start(
        &root,
        &[
            "basic.json",
            "--call-timeout",
            // Room for a debug build's ordinary calls on a busy machine; the
            // runaway join below runs far longer.
            "5",
            "--memory-limit-mb",
            "8",
            "--max-answer-kib",
            "4",
        ],
    );
    let events = client.ok(
        "sql",
        json!({"query": "SELECT uid, name FROM events ORDER BY uid"}),
    );
    assert_eq!(rows(&events).len(), 50);
    assert!(events.contains("(50 of 65 rows shown;"), "{events}");
    let three = client.ok(
        "sql",
        json!({"query": "SELECT uid FROM events ORDER BY uid", "limit": 3}),
    );
    assert_eq!(rows(&three).len(), 3);
    assert!(three.contains("(3 of 65 rows shown;"), "{three}");
    // The byte cap holds whatever the query returns.
    let wide = client.ok("sql", json!({"query": "SELECT repeat('x', 70) AS a, repeat('y', 70) AS b FROM events", "limit": 1000}));
    assert!(wide.len() <= 4 * 1024, "{}", wide.len());
    assert!(wide.contains("[answer cut at "), "{wide}");

    // A sort past the memory bound fails; it neither grows nor spills.
    let sort = client.refused(
        "sql",
        json!({"query": "SELECT a.value * b.value AS p FROM generate_series(1, 3000) a, generate_series(1, 3000) b ORDER BY p DESC LIMIT 2000000"}),
    );
    assert!(
        sort.to_lowercase().contains("resources exhausted") || sort.contains("memory"),
        "{sort}"
    );
    // A query past the time limit is stopped, and the server answers the next call.
    let started = std::time::Instant::now();
    let slow = client.refused(
        "sql",
        json!({"query": "SELECT count(*) FROM generate_series(1, 200000) a, generate_series(1, 200000) b WHERE a.value + b.value = 7"}),
    );
    assert!(slow.contains("time limit of 5 s"), "{slow}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let after = client.ok("sql", json!({"query": "SELECT count(*) AS n FROM kernels"}));
    assert_eq!(rows(&after), [["5"]]);
}

/// The largest shared trace opened through the server gives the CLI's report.
#[test]
fn a_shared_trace_reports_as_the_cli_does() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let trace = dir.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    if !trace.exists() {
        panic!(
            "{} is missing from the shared conformance set",
            trace.display()
        );
    }
    let root = trace.parent().expect("a directory");
    let mut client = Client::start(root, &[]);
    client.ok(
        "open_trace",
        json!({"path": trace.file_name().expect("name").to_str().expect("utf-8"), "name": "bert"}),
    );
    let sql = "SELECT count(*) AS kernels, count(DISTINCT name) AS names FROM kernels";
    let answer = client.ok("sql", json!({"query": sql}));
    let trace = trace.to_str().expect("utf-8");
    assert_eq!(rows(&answer), cli_rows(&["query", trace, "-e", sql]));
    let ops = client.ok("report", json!({"name": "ops_summary", "limit": 5}));
    assert_eq!(rows(&ops).len(), 5, "{ops}");
    let analysis = client.ok("analyze", json!({}));
    assert!(analysis.contains("## Executive summary"), "{analysis}");
}

/// `collectives` over a shared multi-rank set answers the CLI's sheet.
#[test]
fn collectives_answer_the_cli_sheet_for_a_run() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let run = dir.join("collectives/synth_clock4/traces");
    assert!(run.is_dir(), "{} is missing", run.display());
    let run_dir = run.to_str().expect("utf-8");
    let expected = cli_rows(&["collectives", run_dir, "--only", "straggler_summary"]);
    assert!(!expected.is_empty());
    let mut client = Client::start(&run, &[]);
    let answer = client.ok(
        "collectives",
        json!({"paths": ["."], "only": ["straggler_summary"]}),
    );
    assert!(answer.starts_with("4 ranks."), "{answer}");
    let ours = rows(&answer);
    assert_eq!(ours.len(), expected.len(), "{answer}\n{expected:?}");
    // Same ranks in the same order (numbers are rounded for reading).
    let first = |rows: &[Vec<String>]| rows.iter().map(|r| r[0].clone()).collect::<Vec<_>>();
    assert_eq!(first(&ours), first(&expected), "{answer}");
}
