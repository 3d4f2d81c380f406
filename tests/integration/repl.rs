//! The REPL end to end: through a pseudo-terminal (what a person sees), and with
//! standard input piped (what a script gets).

use std::time::Duration;

use rexpect::reader::Options;
use rexpect::session::PtySession;

use crate::util::{fixture, repl_piped as piped, tracesql};

const PROMPT: &str = "tracesql> ";

/// Starts `tracesql ARGS` on a terminal, with history under `state`.
fn spawn(args: &[&str], state: &std::path::Path) -> PtySession {
    let command = tracesql()
        .args(args)
        .env("XDG_STATE_HOME", state)
        .env("TERM", "xterm")
        .env("COLUMNS", "120")
        .env_remove("NO_COLOR")
        .into_command();
    let options = Options::new()
        .timeout_ms(Some(60_000))
        .strip_ansi_escape_codes(true);
    let mut session = rexpect::spawn_with_options(command, options).expect("start tracesql");
    session.exp_string(PROMPT).expect("first prompt");
    session
}

/// Sends a line and waits until `needle` shows, then for the next prompt.
fn run(session: &mut PtySession, line: &str, needle: &str) -> String {
    session.send_line(line).expect("send");
    let seen = session
        .exp_string(needle)
        .unwrap_or_else(|e| panic!("after {line:?}, waiting for {needle:?}: {e}"));
    session.exp_string(PROMPT).expect("prompt after the result");
    seen
}

#[test]
fn terminal_session() {
    let state = tempfile::tempdir().expect("temp dir");
    let trace = fixture("basic_linear.json");
    let mut s = spawn(&["repl", &trace], state.path());

    // A statement over two lines runs once the `;` comes.
    s.send_line("SELECT name, dur FROM kernels").expect("send");
    s.send_line("ORDER BY dur DESC LIMIT 2;").expect("send");
    s.exp_string("sm90_xmma_gemm").expect("the longest kernel");
    s.exp_string("Memcpy HtoD").expect("the second");
    s.exp_regex(r"2 rows \(\d+\.\d{3} s\)")
        .expect("row count and time");
    s.exp_string(PROMPT).expect("prompt");

    // A meta-command.
    run(
        &mut s,
        ".schema tree_edges",
        "uid of the enclosing / launching event.",
    );

    // The issue's drill-down example, in plain SQL.
    run(
        &mut s,
        "SELECT uid, distance, name FROM ancestors((SELECT uid FROM kernels ORDER BY dur DESC LIMIT 1));",
        "train.py(88): train_step",
    );

    // A bad statement prints one error line and the session goes on.
    s.send_line("SELECT * FROM no_such_table;").expect("send");
    s.exp_regex("error: .*no_such_table.* not found")
        .expect("the error");
    s.exp_string(PROMPT).expect("prompt");
    run(&mut s, "SELECT 40 + 2 AS answer;", "42");

    // Tab completes a table name: the query only works if it did.
    s.send("SELECT count(*) * 1000 + 7 AS edges FROM tree_ed")
        .expect("send");
    s.send("\t").expect("tab");
    s.flush().expect("flush");
    s.exp_string("tree_edges").expect("completed on screen");
    s.send_line(";").expect("send");
    s.exp_string("36007").expect("the completed query ran");
    s.exp_string(PROMPT).expect("prompt");

    // Ctrl-C at the prompt clears the line being typed.
    s.send("SELECT 'half typed").expect("send");
    s.flush().expect("flush");
    s.send_control('c').expect("ctrl-c");
    s.exp_string(PROMPT).expect("a fresh prompt");
    run(&mut s, "SELECT 1234 * 2 AS after_clear;", "2468");

    // Ctrl-C cancels a running query; the session goes on.
    s.send_line("SELECT max(value % 7) AS never FROM generate_series(1, 100000000000);")
        .expect("send");
    std::thread::sleep(Duration::from_millis(1500));
    s.send_control('c').expect("ctrl-c");
    s.exp_string("query cancelled").expect("cancelled");
    s.exp_string(PROMPT).expect("prompt");
    run(&mut s, "SELECT 3 * 3 AS still_here;", "9");

    // Ctrl-D leaves.
    s.send_control('d').expect("ctrl-d");
    s.exp_eof().expect("exit");

    let history = std::fs::read_to_string(state.path().join("tracesql").join("history"))
        .expect("history file written");
    assert!(
        history.contains("ORDER BY dur DESC LIMIT 2;"),
        "multi-line statement kept: {history}"
    );
    assert!(history.contains(".schema tree_edges"), "{history}");
}

#[test]
fn bare_trace_argument_opens_the_repl_and_quit_leaves() {
    let state = tempfile::tempdir().expect("temp dir");
    let trace = fixture("nccl_graph.json");
    let mut s = spawn(&[&trace], state.path());
    run(
        &mut s,
        "SELECT count(*) * 100 + 1 AS n FROM kernels_of(5);",
        "601",
    );
    run(&mut s, ".format csv", "format: csv");
    run(&mut s, "SELECT 'a' AS x, 2 AS y;", "a,2");
    s.send_line(".quit").expect("send");
    s.exp_eof().expect("exit");
}

#[test]
fn piped_statements_print_results_without_prompts() {
    let trace = fixture("basic_linear.json");
    let (out, err, code) = piped(
        &[&trace],
        "SELECT count(*) AS n\n  FROM tree_edges WHERE kind = 'launch';\n.format csv\nSELECT uid, depth FROM call_stack(29) ORDER BY depth;\n",
    );
    assert_eq!(code, 0, "stderr: {err}");
    assert!(err.is_empty(), "{err}");
    assert!(!out.contains(PROMPT), "{out}");
    assert!(!out.contains('\x1b'), "no colours: {out:?}");
    assert!(out.contains("│ 5 │"), "{out}");
    assert!(out.contains("1 row\n"), "{out}");
    assert!(
        out.contains("uid,depth\n17,0\n18,1\n19,2\n20,3\n21,4\n2,5\n6,6\n31,7\n29,8\n"),
        "{out}"
    );
}

#[test]
fn piped_failure_exits_non_zero_and_the_rest_still_runs() {
    let trace = fixture("basic_linear.json");
    let (out, err, code) = piped(&[&trace], "SELEC 1;\n.nope\nSELECT 6 * 7 AS answer;\n");
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.lines().count(), 2, "one line per error: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("unknown command .nope"), "{err}");
    assert!(out.contains("42"), "{out}");
}

#[test]
fn piped_export_and_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("top.csv");
    let parquet = dir.path().join("top.parquet");
    let script = dir.path().join("q.sql");
    std::fs::write(
        &script,
        "-- a saved query\nSELECT uid, name\nFROM kernels_of(17)\nORDER BY uid;\n",
    )
    .expect("script");
    let trace = fixture("basic_linear.json");
    let input = format!(
        ".read {}\n.export {}\n.output {}\n.export {}\n",
        script.display(),
        csv.display(),
        parquet.display(),
        dir.path().join("x.xlsx").display()
    );
    let (out, err, code) = piped(&[&trace], &input);
    assert_eq!(code, 1, "the .xlsx export fails: {out}{err}");
    assert!(err.contains("unknown extension"), "{err}");
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let uids: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or_default())
        .collect();
    assert_eq!(uids, ["29", "33", "35", "39", "43"]);
    let bytes = std::fs::read(&parquet).expect("parquet written");
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
}

#[test]
fn piped_load_and_trace_argument() {
    let trace = fixture("basic_linear.json");
    let other = fixture("nccl_graph.json");
    let (out, err, code) = piped(
        &[&trace],
        &format!(
            ".load {other} AS rank1\nSELECT count(*) FROM ancestors(29);\nSELECT count(*) AS n FROM ancestors(29, 'basic_linear');\nSELECT DISTINCT trace FROM kernels_of(5, 'rank1');\n.load {}\n",
            std::env::temp_dir().display()
        ),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("loaded rank1 (52 events)"), "{out}");
    assert!(
        err.contains("2 traces are loaded ('basic_linear', 'rank1')"),
        "{err}"
    );
    // A directory that is not an export says what .load wants.
    assert!(err.contains("not a usable tracesql export"), "{err}");
    assert!(out.contains("│ 8 │"), "{out}");
    assert!(out.contains("│ rank1 │"), "{out}");
}

#[test]
fn piped_maxrows_run_and_drilldown_in_sql() {
    let trace = fixture("basic_linear.json");
    let (out, err, code) = piped(
        &[&trace],
        ".maxrows 2\nSELECT uid FROM descendants(17);\nSELECT repeat('  ', depth) || name AS frame FROM call_stack(29) WHERE depth = 1;\n.maxrows all\n.run gpu_timeline\n.run gpu_timeline warp=1\n.run no_such_report\n",
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("… 34 more rows (set .maxrows)\n36 rows\n"),
        "{out}"
    );
    assert!(out.contains("  nn.Module: MLP_0"), "{out}");
    assert!(out.contains("computation_time"), "{out}");
    assert!(
        err.contains("gpu_timeline has no parameter 'warp'"),
        "{err}"
    );
    assert!(err.contains("no query named 'no_such_report'"), "{err}");
}

#[test]
fn read_stops_a_file_at_its_first_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("broken.sql");
    std::fs::write(
        &script,
        "SELECT 1 AS first;\nSELECT nope;\nSELECT 3 AS never_run;\n",
    )
    .expect("script");
    let trace = fixture("basic_linear.json");
    let (out, err, code) = piped(
        &[&trace],
        &format!(".read {}\nSELECT 4 AS after;\n", script.display()),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("broken.sql: "), "{err}");
    assert!(out.contains("first") && out.contains("after"), "{out}");
    assert!(!out.contains("never_run"), "{out}");
}

#[test]
fn stdin_cannot_be_a_trace() {
    let (_, err, code) = piped(&["-"], "SELECT 1;\n");
    assert_eq!(code, 2);
    assert!(err.contains("give traces as files"), "{err}");
}

#[test]
fn load_takes_a_parquet_export_beside_a_trace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let export = dir.path().join("nccl_export");
    tracesql()
        .args(["export", &fixture("nccl_graph.json"), "--parquet"])
        .arg(&export)
        .ok();
    let trace = fixture("basic_linear.json");
    let (out, err, code) = piped(
        &[&trace],
        &format!(
            ".format csv\n.load {} AS exported\nSELECT trace, count(*) AS n FROM kernels GROUP BY trace ORDER BY trace;\n",
            export.display()
        ),
    );
    assert_eq!(code, 0, "{out}{err}");
    // nccl_graph has 7 GPU events (fixtures/EXPECTED.md), basic_linear 5.
    assert!(out.contains("basic_linear,5"), "{out}");
    assert!(out.contains("exported,7"), "{out}");
}
