//! Helpers shared by the integration tests.
#![allow(dead_code)]

use datafusion::arrow::util::display::array_value_to_string;
use tracesql::engine::Engine;
use tracesql::load::load_trace;

/// Path of a file in `fixtures/`.
pub fn fixture(file: &str) -> String {
    format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// An engine holding the traces at `paths`, loaded in order.
pub fn engine_with(paths: &[&str]) -> Engine {
    let mut engine = Engine::new();
    for path in paths {
        let trace = load_trace(path).unwrap_or_else(|e| panic!("loading {path}: {e}"));
        engine.add(trace).expect("registering trace");
    }
    engine
}

/// Runs `sql` and returns the rows of its last statement, every cell as text
/// (`array_value_to_string`), NULL as "NULL".
pub async fn rows(engine: &Engine, sql: &str) -> Vec<Vec<String>> {
    let results = engine
        .run_sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let batches = results.last().expect("no statement result");
    let mut out = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            out.push(
                batch
                    .columns()
                    .iter()
                    .map(|col| {
                        if col.is_null(row) {
                            "NULL".to_string()
                        } else {
                            array_value_to_string(col, row).expect("render cell")
                        }
                    })
                    .collect(),
            );
        }
    }
    out
}

/// The conformance data directory, or None (with a note) when absent outside CI.
pub fn conformance_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TRACESQL_CONFORMANCE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance")
        });
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing, and CI=true requires it", dir.display());
    }
    eprintln!(
        "skipped: {} not found (set TRACESQL_CONFORMANCE)",
        dir.display()
    );
    None
}

/// Runs `tracesql repl ARGS` with `input` on standard input.
pub fn repl_piped(args: &[&str], input: &str) -> (String, String, i32) {
    let state = tempfile::tempdir().expect("temp dir");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tracesql"))
        .arg("repl")
        .args(args)
        .env("XDG_STATE_HOME", state.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start tracesql");
    // The child may exit before it reads standard input (a bad argument is
    // refused first); the write then fails with a broken pipe, which is no
    // error of the test: its exit code and output are what is checked.
    if let Err(e) =
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), input.as_bytes())
    {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    let out = child.wait_with_output().expect("wait");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}
