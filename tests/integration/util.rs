//! Helpers shared by the integration tests: where the fixtures and the shared
//! data are, engines over fixtures, and the one way to run the built `tracesql`
//! ([`tracesql`], a command builder, and [`tracesql_ok`]). Every test that runs
//! the binary goes through [`Cmd`], so how a child is started, fed and read
//! (and what a failure prints) is decided here once.

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use datafusion::arrow::util::display::array_value_to_string;
use tracesql::engine::Engine;
use tracesql::load::load_trace;

/// The `tracesql` binary that cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_tracesql");

/// A path inside the package (the repository root).
pub fn package_path(relative: impl AsRef<Path>) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// Every file below `dir`, at any depth, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every file below `dir` with its bytes, by path relative to `dir`.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let read = |path: PathBuf| {
        let bytes = std::fs::read(&path).expect("readable file");
        let relative = path.strip_prefix(dir).expect("under dir").to_path_buf();
        (relative, bytes)
    };
    files_under(dir).into_iter().map(read).collect()
}

/// Path of a file in `fixtures/`.
pub fn fixture(file: &str) -> String {
    format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// `$env`, or else `../shared/<name>` beside the package; None (with a note)
/// when it is absent outside CI. Under `CI=true` its absence fails the test.
pub fn shared_dir(env: &str, name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| package_path("../shared").join(name));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing, and CI=true requires it", dir.display());
    }
    eprintln!("skipped: {} not found (set {env})", dir.display());
    None
}

/// The conformance data directory (`TRACESQL_CONFORMANCE`), as [`shared_dir`].
pub fn conformance_dir() -> Option<PathBuf> {
    shared_dir("TRACESQL_CONFORMANCE", "conformance")
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

/// The cell of `column` in a row of a table with `header`.
pub fn cell<'a>(header: &[String], row: &'a [String], column: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column:?} in {header:?}"));
    &row[i]
}

/// The cell of `column` as a number.
pub fn number(header: &[String], row: &[String], column: &str) -> f64 {
    let text = cell(header, row, column);
    text.parse()
        .unwrap_or_else(|_| panic!("{column} = {text:?} is not a number"))
}

/// `bytes` gzip-compressed.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

/// A zip archive of `(name, bytes)` entries, deflated.
pub fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        w.start_file(*name, options).expect("zip entry");
        w.write_all(bytes).expect("zip");
    }
    w.finish().expect("zip").into_inner()
}

/// What a finished run left behind.
#[derive(Debug)]
pub struct Run {
    /// The exit code; None when a signal ended the process.
    pub code: Option<i32>,
    /// Standard output; it must be UTF-8 (every command prints text).
    pub stdout: String,
    /// Standard error, decoded lossily so that a garbled message still shows.
    pub stderr: String,
}

impl Run {
    /// Whether the process exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// A command to run with its output captured: `tracesql` (see [`tracesql`]),
/// or another program wrapping it ([`Cmd::program`], e.g. `setpriv`).
/// Standard input is empty unless [`Cmd::stdin`] gives bytes.
pub struct Cmd {
    command: Command,
    stdin: Option<Vec<u8>>,
}

/// Writes `bytes` to `name` in `dir` and returns the path as the tool will show it.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test input");
    path.to_str().expect("temp paths are UTF-8").to_string()
}

/// Writes `{"traceEvents": events}` to `name` in `dir`; returns its path.
pub fn write_trace(dir: &Path, name: &str, events: serde_json::Value) -> String {
    let text = serde_json::json!({ "traceEvents": events }).to_string();
    write_file(dir, name, text.as_bytes())
}

/// `tracesql`, with no arguments yet.
pub fn tracesql() -> Cmd {
    Cmd::program(BIN)
}

/// Runs `tracesql ARGS`, asserts that it succeeds, and returns its standard output.
pub fn tracesql_ok(args: &[&str]) -> String {
    tracesql().args(args).ok()
}

/// Runs `tracesql repl ARGS` with `input` on standard input and its history in a
/// fresh directory: standard output, standard error and the exit code (-1 when a
/// signal ended it).
pub fn repl_piped(args: &[&str], input: &str) -> (String, String, i32) {
    let state = tempfile::tempdir().expect("temp dir");
    let run = tracesql()
        .arg("repl")
        .args(args)
        .env("XDG_STATE_HOME", state.path())
        .stdin(input)
        .run();
    (run.stdout, run.stderr, run.code.unwrap_or(-1))
}

impl Cmd {
    /// `program`, with no arguments yet.
    pub fn program(program: impl AsRef<OsStr>) -> Cmd {
        Cmd {
            command: Command::new(program),
            stdin: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Cmd {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets a variable in the child's environment only: tests share one process,
    /// so none of them may change its own.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Cmd {
        self.command.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Cmd {
        self.command.env_remove(key);
        self
    }

    /// Bytes for the child's standard input, which closes after them.
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Cmd {
        self.stdin = Some(input.into());
        self
    }

    /// The command as std's, for a runner of its own (a pseudo-terminal).
    pub fn into_command(self) -> Command {
        assert!(self.stdin.is_none(), "a runner of its own feeds stdin");
        self.command
    }

    /// Runs the command to its end.
    pub fn run(mut self) -> Run {
        let described = format!("{:?}", self.command);
        let mut child = self
            .command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {described}: {e}"));
        // Written from a thread of its own, so a child that writes much before it
        // reads cannot block on a full pipe while this one blocks on its input.
        let writer = self.stdin.map(|bytes| {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            std::thread::spawn(move || pipe.write_all(&bytes))
        });
        let out = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("waiting for {described}: {e}"));
        // The child may exit before it reads standard input (a bad argument is
        // refused first); the write then fails with a broken pipe, which is no
        // error of the test: its exit code and output are what is checked.
        if let Some(Err(e)) = writer.map(|w| w.join().expect("stdin writer")) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
        }
        Run {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout)
                .unwrap_or_else(|e| panic!("{described}: stdout is not UTF-8: {e}")),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs the command, asserts that it succeeds, and returns its standard output.
    pub fn ok(self) -> String {
        let described = format!("{:?}", self.command);
        let run = self.run();
        assert!(
            run.success(),
            "{described} exited with {:?}: {}",
            run.code,
            run.stderr
        );
        run.stdout
    }
}

/// A CSV's header and its rows of cells.
pub fn csv_table<R: std::io::Read>(mut reader: csv::Reader<R>) -> (Vec<String>, Vec<Vec<String>>) {
    let header = reader
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("a CSV row").iter().map(String::from).collect())
        .collect();
    (header, rows)
}
