//! Bad inputs through the built binary: every one must fail with the right exit code
//! (2 for input errors, 1 for query errors) and one clear line on stderr that names the
//! input and the problem, print nothing on stdout, and never panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::{gzip, tracesql, write_file as write, zip, Cmd, Run, BIN};

const SQL: &str = "SELECT count(*) FROM events";
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/basic_linear.json");
/// Events in `FIXTURE`.
const FIXTURE_EVENTS: &str = "65";

// ---------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------

/// `tracesql query PATH -e "SELECT count(*) FROM events"`.
fn query(path: &str) -> Run {
    tracesql().args(["query", path, "-e", SQL]).run()
}

fn query_stdin(bytes: &[u8]) -> Run {
    tracesql()
        .args(["query", "-", "-e", SQL])
        .stdin(bytes)
        .run()
}

fn show(run: &Run) -> String {
    format!(
        "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    )
}

/// The checks every failure must pass: exit code, nothing on stdout, no panic, and
/// exactly one stderr line that starts with `start` and contains `phrase`.
fn assert_failure(run: &Run, code: i32, start: &str, phrase: &str) {
    let ctx = show(run);
    assert!(!run.stderr.contains("panicked"), "the tool panicked\n{ctx}");
    assert_eq!(run.code, Some(code), "wrong exit code\n{ctx}");
    assert!(run.stdout.is_empty(), "stdout must be empty\n{ctx}");
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "stderr must be exactly one line\n{ctx}"
    );
    assert!(
        run.stderr.ends_with('\n'),
        "stderr line unterminated\n{ctx}"
    );
    assert!(
        run.stderr.starts_with(start),
        "stderr must start with {start:?}\n{ctx}"
    );
    assert!(
        run.stderr.contains(phrase),
        "stderr must contain {phrase:?}\n{ctx}"
    );
}

/// An input error (exit 2): `error: <path>: ...<phrase>...`.
fn assert_input_error(run: &Run, path: &str, phrase: &str) {
    assert_failure(run, 2, &format!("error: {path}: "), phrase);
}

/// A query error (exit 1): `error: query failed: ...<phrase>...`.
fn assert_query_error(run: &Run, phrase: &str) {
    assert_failure(run, 1, "error: query failed: ", phrase);
}

/// Exit 0, clean stderr, and a table cell on stdout equal to `cell`.
fn assert_success_with(run: &Run, cell: &str) {
    let ctx = show(run);
    assert!(!run.stderr.contains("panicked"), "the tool panicked\n{ctx}");
    assert_eq!(run.code, Some(0), "expected success\n{ctx}");
    assert!(run.stderr.is_empty(), "stderr must be empty\n{ctx}");
    let found = run
        .stdout
        .lines()
        .any(|line| line.split(['|', '│']).any(|c| c.trim() == cell));
    assert!(found, "stdout must show a cell {cell:?}\n{ctx}");
}

fn path_str(path: &Path) -> String {
    path.to_str().expect("temp paths are UTF-8").to_string()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("create temp dir")
}

fn fixture() -> Vec<u8> {
    std::fs::read(FIXTURE).expect("read fixture")
}

/// A one-event trace around `event`.
fn one_event(event: &str) -> Vec<u8> {
    format!("{{\"traceEvents\": [\n  {event}\n]}}\n").into_bytes()
}

/// Offset of the first `needle` in `text`.
fn offset_of(text: &[u8], needle: &str) -> usize {
    let text = std::str::from_utf8(text).unwrap();
    text.find(needle).expect("needle in text")
}

/// Offset of the last byte of the first `needle` in `text`.
fn last_byte_of(text: &[u8], needle: &str) -> usize {
    offset_of(text, needle) + needle.len() - 1
}

// ---------------------------------------------------------------------------------
// Sanity: the harness works on good input
// ---------------------------------------------------------------------------------

#[test]
fn valid_fixture_counts_all_events() {
    assert_success_with(&query(FIXTURE), FIXTURE_EVENTS);
}

#[test]
fn valid_gzip_and_zip_load() {
    let dir = tmp();
    let gz = write(dir.path(), "t.json.gz", &gzip(&fixture()));
    assert_success_with(&query(&gz), FIXTURE_EVENTS);
    let z = write(dir.path(), "t.zip", &zip(&[("t.json", &fixture())]));
    assert_success_with(&query(&z), FIXTURE_EVENTS);
}

// ---------------------------------------------------------------------------------
// 1-2. gzip
// ---------------------------------------------------------------------------------

#[test]
fn truncated_gzip() {
    let dir = tmp();
    let gz = gzip(&fixture());
    let path = write(dir.path(), "trace.json.gz", &gz[..gz.len() / 2]);
    assert_input_error(&query(&path), &path, "truncated or corrupt gzip data");
}

#[test]
fn gzip_missing_only_its_trailer() {
    let dir = tmp();
    let gz = gzip(&fixture());
    // All the deflate data is there; only the CRC/size trailer is cut.
    let path = write(dir.path(), "trace.json.gz", &gz[..gz.len() - 4]);
    assert_input_error(&query(&path), &path, "truncated or corrupt gzip data");
}

#[test]
fn gzip_with_corrupt_deflate_stream() {
    let dir = tmp();
    // A valid gzip header, then a deflate block of the reserved type 3.
    let mut bytes = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03];
    bytes.extend_from_slice(&[0xff; 64]);
    let path = write(dir.path(), "trace.json.gz", &bytes);
    assert_input_error(&query(&path), &path, "truncated or corrupt gzip data");
}

#[test]
fn valid_gzip_of_garbage_bytes() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.json.gz",
        &gzip(b"\x00\x01 this is not json \xff\xfe"),
    );
    assert_input_error(&query(&path), &path, "malformed JSON at byte 0");
}

// ---------------------------------------------------------------------------------
// 3. zip
// ---------------------------------------------------------------------------------

#[test]
fn zip_without_a_json_trace() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.zip",
        &zip(&[("readme.txt", b"no trace here")]),
    );
    assert_input_error(
        &query(&path),
        &path,
        "bad zip archive: it holds no .json or .json.gz trace",
    );
}

#[test]
fn zip_with_two_json_traces() {
    let dir = tmp();
    let f = fixture();
    let path = write(
        dir.path(),
        "traces.zip",
        &zip(&[("rank0.json", &f), ("rank1.json", &f)]),
    );
    let run = query(&path);
    assert_input_error(&run, &path, "bad zip archive: it holds 2 traces");
    assert!(
        run.stderr.contains("rank0.json, rank1.json"),
        "{}",
        show(&run)
    );
}

#[test]
fn corrupt_zip() {
    let dir = tmp();
    let path = write(dir.path(), "trace.zip", b"PK\x03\x04 then nothing of a zip");
    assert_input_error(&query(&path), &path, "bad zip archive");
}

// ---------------------------------------------------------------------------------
// 4-5. malformed and truncated JSON
// ---------------------------------------------------------------------------------

#[test]
fn malformed_json_inside_an_event_reports_its_byte() {
    let dir = tmp();
    let text = concat!(
        "{\"traceEvents\": [\n",
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n",
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\" \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}\n",
        "]}\n"
    );
    // The comma after "name": "b" is missing: the parser stops at the next key.
    let n = text.find("\"name\": \"b\" ").unwrap() + "\"name\": \"b\" ".len();
    assert_eq!(&text[n..n + 5], "\"pid\"");
    let path = write(dir.path(), "trace.json", text.as_bytes());
    let run = query(&path);
    assert_input_error(&run, &path, &format!("event 1 at byte {n}: malformed JSON"));
    assert!(
        run.stderr.contains(&format!("at byte {n}")),
        "{}",
        show(&run)
    );
}

#[test]
fn missing_comma_between_events_reports_its_byte() {
    let dir = tmp();
    let ev = r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}"#;
    let text = format!("{{\"traceEvents\": [\n  {ev}\n  {ev}\n]}}\n");
    let n = text.rfind(ev).unwrap();
    let path = write(dir.path(), "trace.json", text.as_bytes());
    assert_input_error(
        &query(&path),
        &path,
        &format!("malformed JSON at byte {n}: unexpected '{{', expected ',' or ']' between events"),
    );
}

#[test]
fn truncated_plain_json() {
    let dir = tmp();
    let f = String::from_utf8(fixture()).unwrap();
    // Cut in the middle of the 10th event.
    let start = f.match_indices("{\"ph\"").nth(9).unwrap().0;
    let path = write(dir.path(), "trace.json", &f.as_bytes()[..start + 20]);
    let run = query(&path);
    assert_input_error(&run, &path, "unexpected end of input");
    assert!(
        run.stderr.contains(&format!("at byte {start}")),
        "the offset must be where the cut event starts ({start})\n{}",
        show(&run)
    );
}

// ---------------------------------------------------------------------------------
// 6. JSON that is not a trace
// ---------------------------------------------------------------------------------

#[test]
fn not_a_trace_top_level_array() {
    let dir = tmp();
    let path = write(dir.path(), "trace.json", b"[1,2]");
    assert_input_error(
        &query(&path),
        &path,
        "not a PyTorch profiler trace: the top level is an array",
    );
}

#[test]
fn not_a_trace_object_without_trace_events() {
    let dir = tmp();
    let path = write(dir.path(), "trace.json", br#"{"foo": 1}"#);
    assert_input_error(
        &query(&path),
        &path,
        "not a PyTorch profiler trace: it has no traceEvents array",
    );
}

#[test]
fn not_a_trace_top_level_string() {
    let dir = tmp();
    let path = write(dir.path(), "trace.json", br#""str""#);
    assert_input_error(
        &query(&path),
        &path,
        "not a PyTorch profiler trace: the top level is not an object",
    );
}

// ---------------------------------------------------------------------------------
// 7. fields of the wrong type
// ---------------------------------------------------------------------------------

#[test]
fn ts_as_a_string() {
    let dir = tmp();
    let text = one_event(
        r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}"#,
    );
    // serde_json stops on the last byte of the bad value: the closing quote.
    let n = last_byte_of(&text, r#""soon""#);
    let path = write(dir.path(), "trace.json", &text);
    assert_input_error(
        &query(&path),
        &path,
        &format!(r#"event 0 at byte {n}: invalid type: string "soon", expected f64"#),
    );
}

#[test]
fn name_as_a_number() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.json",
        &one_event(
            r#"{"ph": "X", "cat": "cpu_op", "name": 5, "pid": 1, "tid": 1, "ts": 1, "dur": 1}"#,
        ),
    );
    assert_input_error(
        &query(&path),
        &path,
        "invalid type: integer `5`, expected a string",
    );
}

#[test]
fn args_as_a_list() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.json",
        &one_event(
            r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": [1, 2]}"#,
        ),
    );
    assert_input_error(&query(&path), &path, "`args` is not an object");
}

/// pid/tid are kept as text whatever their JSON type (numbers and strings in real
/// traces); an object is tolerated the same way and shows as its JSON text.
#[test]
fn pid_as_an_object_is_tolerated() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.json",
        &one_event(
            r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": {"x": 1}, "tid": "7", "ts": 1, "dur": 1}"#,
        ),
    );
    assert_success_with(&query(&path), "1");
    let run = tracesql()
        .args(&[
            "query",
            &path,
            "-e",
            "SELECT pid, tid FROM events",
            "--format",
            "csv",
        ])
        .run();
    assert_eq!(run.code, Some(0), "{}", show(&run));
    assert_eq!(
        run.stdout,
        "pid,tid\n\"{\"\"x\"\": 1}\",7\n",
        "{}",
        show(&run)
    );
}

// ---------------------------------------------------------------------------------
// 8-9. bad durations, missing ts
// ---------------------------------------------------------------------------------

#[test]
fn negative_duration() {
    let dir = tmp();
    let text = one_event(
        r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": -3}"#,
    );
    // Checks on decoded values point at the event's first byte.
    let n = offset_of(&text, "{\"ph\"");
    let path = write(dir.path(), "trace.json", &text);
    assert_input_error(
        &query(&path),
        &path,
        &format!("event 0 at byte {n}: negative or invalid duration `dur` = -3"),
    );
}

#[test]
fn huge_duration() {
    let dir = tmp();
    let text = one_event(
        r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1e999}"#,
    );
    let n = last_byte_of(&text, "1e999");
    let path = write(dir.path(), "trace.json", &text);
    assert_input_error(
        &query(&path),
        &path,
        &format!("event 0 at byte {n}: number out of range"),
    );
}

#[test]
fn cpu_op_without_ts() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "trace.json",
        &one_event(r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "dur": 1}"#),
    );
    assert_input_error(&query(&path), &path, "cpu_op event has no `ts`");
}

// ---------------------------------------------------------------------------------
// 10-11. empty inputs, missing files, directories
// ---------------------------------------------------------------------------------

#[test]
fn empty_trace_events() {
    let dir = tmp();
    let path = write(dir.path(), "trace.json", br#"{"traceEvents": []}"#);
    assert_input_error(&query(&path), &path, "the trace has no events");
}

#[test]
fn empty_file() {
    let dir = tmp();
    let path = write(dir.path(), "trace.json", b"");
    assert_input_error(&query(&path), &path, "the file is empty");
}

#[test]
fn missing_file() {
    let dir = tmp();
    let path = path_str(&dir.path().join("no_such_trace.json"));
    assert_input_error(
        &query(&path),
        &path,
        "cannot open: No such file or directory",
    );
}

#[test]
fn directory_as_the_trace() {
    let dir = tmp();
    let path = path_str(dir.path());
    assert_input_error(
        &query(&path),
        &path,
        "a directory without tracesql-export.json",
    );
}

// ---------------------------------------------------------------------------------
// 12. unreadable file
// ---------------------------------------------------------------------------------

#[cfg(unix)]
mod unreadable {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    const NOBODY: &str = "65534";

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn running_as_root() -> bool {
        if let Ok(meta) = std::fs::metadata("/proc/self") {
            return meta.uid() == 0;
        }
        Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false)
    }

    fn have_setpriv() -> bool {
        Command::new("setpriv")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }

    /// Whether uid 65534 (not owner, not in the group) may search every directory
    /// above `path` and read and run `path` itself.
    fn others_can_run(path: &Path) -> bool {
        let Ok(path) = path.canonicalize() else {
            return false;
        };
        let mode = |p: &Path| std::fs::metadata(p).map(|m| m.mode()).unwrap_or(0);
        mode(&path) & 0o005 == 0o005 && path.ancestors().skip(1).all(|d| mode(d) & 0o001 != 0)
    }

    /// The binary as the unprivileged user can run it: in place when it can reach
    /// it, else a 755 copy in a 755 directory (kept alive by the returned guard).
    fn binary_for_nobody() -> (PathBuf, Option<tempfile::TempDir>) {
        let bin = PathBuf::from(BIN);
        if others_can_run(&bin) {
            return (bin, None);
        }
        let dir = tmp();
        chmod(dir.path(), 0o755);
        let copy = dir.path().join("tracesql");
        std::fs::copy(&bin, &copy).expect("copy the binary");
        chmod(&copy, 0o755);
        assert!(
            others_can_run(&copy),
            "uid {NOBODY} cannot reach the copied binary at {}",
            copy.display()
        );
        (copy, Some(dir))
    }

    #[test]
    fn unreadable_file() {
        let dir = tmp();
        // tempdir() makes 0700 directories; uid 65534 must be able to search this one.
        chmod(dir.path(), 0o755);
        let readable = write(dir.path(), "readable.json", &fixture());
        chmod(Path::new(&readable), 0o644);
        let path = write(dir.path(), "unreadable.json", &fixture());
        chmod(Path::new(&path), 0o000);

        if !running_as_root() {
            assert_input_error(&query(&path), &path, "cannot open: Permission denied");
            return;
        }
        if !have_setpriv() {
            eprintln!(
                "SKIPPED unreadable_file: running as root (which ignores file modes) and \
                 setpriv is not available to drop to uid {NOBODY}"
            );
            return;
        }
        let (bin, _guard) = binary_for_nobody();
        let bin = path_str(&bin);
        let as_nobody = |trace: &str| {
            Cmd::program("setpriv")
                .args(&[
                    &format!("--reuid={NOBODY}"),
                    &format!("--regid={NOBODY}"),
                    "--clear-groups",
                    &bin,
                    "query",
                    trace,
                    "-e",
                    SQL,
                ])
                .run()
        };
        // Control: the unprivileged user can run the tool and reach the directory, so
        // the failure below is about the file's mode and nothing else.
        let control = as_nobody(&readable);
        if control.stderr.starts_with("setpriv:") {
            eprintln!(
                "SKIPPED unreadable_file: setpriv cannot drop to uid {NOBODY} here: {}",
                control.stderr.trim()
            );
            return;
        }
        assert_success_with(&control, FIXTURE_EVENTS);
        assert_input_error(&as_nobody(&path), &path, "cannot open: Permission denied");
    }
}

// ---------------------------------------------------------------------------------
// 13. bad SQL on a valid trace
// ---------------------------------------------------------------------------------

#[test]
fn sql_syntax_error() {
    let run = tracesql()
        .args(&["query", FIXTURE, "-e", "SELEC count(*) FROM events"])
        .run();
    assert_query_error(&run, "SQL error");
    assert!(run.stderr.contains("SELEC"), "{}", show(&run));
}

#[test]
fn sql_file_error_names_the_file() {
    let dir = tempfile::tempdir().expect("create temp dir");
    let file = dir.path().join("broken.sql");
    std::fs::write(&file, "SELEC count(*) FROM events").expect("write SQL file");
    let path = file.to_str().expect("utf-8 path");
    let run = tracesql().args(&["query", FIXTURE, "-f", path]).run();
    assert_query_error(&run, &format!("{path}: SQL error"));
}

#[test]
fn sql_unknown_table() {
    let run = tracesql()
        .args(&["query", FIXTURE, "-e", "SELECT count(*) FROM no_such_table"])
        .run();
    assert_query_error(&run, "no_such_table' not found");
}

// ---------------------------------------------------------------------------------
// 14. standard input
// ---------------------------------------------------------------------------------

#[test]
fn stdin_valid_trace() {
    assert_success_with(&query_stdin(&fixture()), FIXTURE_EVENTS);
}

#[test]
fn stdin_gzip_trace() {
    assert_success_with(&query_stdin(&gzip(&fixture())), FIXTURE_EVENTS);
}

#[test]
fn stdin_garbage() {
    let run = query_stdin(b"\x00\x01 this is not json \xff\xfe");
    assert_input_error(&run, "-", "malformed JSON at byte 0");
}

#[test]
fn stdin_empty() {
    assert_input_error(&query_stdin(b""), "-", "the file is empty");
}
