//! Hostile inputs, tried by hand beside the fuzzer (issue 16): nesting a million
//! deep, numbers JSON cannot hold, duplicate keys, a byte order mark, invalid
//! UTF-8, decompression bombs, zips of many or path-like entries, absurd
//! durations, Python parent ids in a cycle, flows with a missing end. Every
//! input is generated here, from the shape the issue names.
//!
//! Each must end in one of two ways, within a time bound (`timeout`): one line
//! on stderr naming the file and the problem (exit 2), or a clean load, and then
//! the tables hold what the input says (checked with a query). Never a panic.

use std::path::Path;

use crate::util::{gzip, package_path, write_file as write, zip, Cmd, Run, BIN};

/// Seconds any one run may take (a debug build; each takes a few at most).
const TIME_LIMIT: &str = "120";

/// A million: the depth of the nesting tried.
const DEEP: usize = 1_000_000;

/// Two ordinary events: a cpu_op and the kernel it launches.
const OP: &str = r#"{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 1}}"#;
const KERNEL: &str = r#"{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 1, "args": {"correlation": 9, "stream": 7, "device": 0}}"#;

/// A trace document of `events`, each a JSON object's text.
fn trace(events: &[&str]) -> String {
    format!("{{\"traceEvents\": [\n{}\n]}}\n", events.join(",\n"))
}

/// `tracesql ARGS`, killed (exit 124) past [`TIME_LIMIT`].
fn tracesql_bounded(args: &[&str]) -> Cmd {
    Cmd::program("timeout").arg(TIME_LIMIT).arg(BIN).args(args)
}

/// `tracesql query PATH -e SQL --format csv`.
fn query(path: &str, sql: &str) -> Run {
    tracesql_bounded(&["query", path, "-e", sql, "--format", "csv"]).run()
}

fn show(run: &Run) -> String {
    format!(
        "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    )
}

/// Exit 2, nothing on stdout, one stderr line naming `path` and holding `phrase`.
fn assert_error(run: &Run, path: &str, phrase: &str) {
    let ctx = show(run);
    assert!(!run.stderr.contains("panicked"), "the tool panicked\n{ctx}");
    assert_ne!(run.code, Some(124), "the run did not finish in time\n{ctx}");
    assert_eq!(run.code, Some(2), "wrong exit code\n{ctx}");
    assert!(run.stdout.is_empty(), "stdout must be empty\n{ctx}");
    assert_eq!(run.stderr.lines().count(), 1, "one line on stderr\n{ctx}");
    assert!(
        run.stderr.starts_with(&format!("error: {path}: ")),
        "stderr must name {path}\n{ctx}"
    );
    assert!(
        run.stderr.contains(phrase),
        "stderr must say {phrase:?}\n{ctx}"
    );
}

/// Exit 0 and a clean stderr; the CSV rows below the header.
fn assert_loaded(run: &Run) -> Vec<Vec<String>> {
    let ctx = show(run);
    assert!(!run.stderr.contains("panicked"), "the tool panicked\n{ctx}");
    assert_eq!(run.code, Some(0), "expected a clean load\n{ctx}");
    assert!(run.stderr.is_empty(), "stderr must be empty\n{ctx}");
    let mut reader = csv::Reader::from_reader(run.stdout.as_bytes());
    reader
        .records()
        .map(|r| r.expect("CSV row").iter().map(str::to_string).collect())
        .collect()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("create temp dir")
}

const COUNT: &str = "SELECT count(*) FROM events";

/// A cpu_op named `name` with `ts` and `dur` as written.
fn timed_op(name: &str, ts: &str, dur: &str) -> String {
    format!(
        r#"{{"ph": "X", "cat": "cpu_op", "name": "{name}", "pid": 1, "tid": 1, "ts": {ts}, "dur": {dur}}}"#
    )
}

// ---------------------------------------------------------------------------------
// Nesting a million deep: the scanner counts brackets without recursing, and
// serde stops at its depth limit; no stack overflow anywhere.
// ---------------------------------------------------------------------------------

#[test]
fn a_million_nested_brackets_never_overflow_the_stack() {
    let dir = tmp();
    let (open, close) = ("[".repeat(DEEP), "]".repeat(DEEP));
    let as_event = format!("{{\"traceEvents\": [{open}{close}]}}");
    let path = write(dir.path(), "event.json", as_event.as_bytes());
    assert_error(
        &query(&path, COUNT),
        &path,
        "event 0 at byte 17: not a JSON object",
    );

    let unclosed = format!("{{\"traceEvents\": [{OP}, {open}");
    let path = write(dir.path(), "unclosed.json", unclosed.as_bytes());
    assert_error(&query(&path, COUNT), &path, "unexpected end of input");

    let objects = format!("{{\"traceEvents\": [{}", "{\"a\": ".repeat(DEEP));
    let path = write(dir.path(), "objects.json", objects.as_bytes());
    assert_error(&query(&path, COUNT), &path, "unexpected end of input");

    // Deep in an event's args and in a top-level value: kept as raw text.
    let in_args = format!(
        r#"{{"ph": "X", "cat": "cpu_op", "name": "deep", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {{"x": {open}{close}}}}}"#
    );
    let in_meta = format!("{{\"deep\": {open}{close}, \"traceEvents\": [{OP}]}}");
    let path = write(dir.path(), "args.json", trace(&[&in_args, OP]).as_bytes());
    let rows = assert_loaded(&query(
        &path,
        "SELECT name, length(args) FROM events ORDER BY ts",
    ));
    let args_len = (2 * DEEP + r#"{"x": }"#.len()).to_string();
    assert_eq!(rows, [["deep", args_len.as_str()], ["aten::mm", "18"]]);
    let path = write(dir.path(), "meta.json", in_meta.as_bytes());
    let sql = "SELECT length(value) FROM trace_meta WHERE key = 'deep'";
    assert_eq!(
        assert_loaded(&query(&path, sql)),
        [[(2 * DEEP).to_string()]]
    );
}

// ---------------------------------------------------------------------------------
// Numbers: out of f64's range, and the literals JSON does not have.
// ---------------------------------------------------------------------------------

#[test]
fn numbers_json_cannot_hold_are_errors_naming_the_event() {
    let dir = tmp();
    let event = |ts, dur| timed_op("a", ts, dur);
    let cases = [
        ("ts_1e400", event("1e400", "1"), "number out of range"),
        ("dur_1e400", event("1", "1e400"), "number out of range"),
        (
            "ts_nan",
            event("NaN", "1"),
            "malformed JSON: expected value",
        ),
        (
            "dur_infinity",
            event("1", "Infinity"),
            "malformed JSON: expected value",
        ),
        (
            "ts_minus_infinity",
            event("-Infinity", "1"),
            "malformed JSON: invalid number",
        ),
    ];
    for (name, bad, phrase) in cases {
        let path = write(
            dir.path(),
            &format!("{name}.json"),
            trace(&[OP, &bad]).as_bytes(),
        );
        let run = query(&path, COUNT);
        assert_error(&run, &path, "event 1 at byte ");
        assert_error(&run, &path, phrase);
    }
}

// ---------------------------------------------------------------------------------
// Durations: negative is refused; huge but finite loads as written.
// ---------------------------------------------------------------------------------

#[test]
fn negative_durations_are_refused_and_huge_ones_load_as_written() {
    let dir = tmp();
    let event = |ts, dur| timed_op("big", ts, dur);
    for dur in ["-1", "-1e300", "-9223372036854775808"] {
        let path = write(
            dir.path(),
            "negative.json",
            trace(&[&event("1", dur)]).as_bytes(),
        );
        assert_error(&query(&path, COUNT), &path, "negative or invalid duration");
    }
    let sql = "SELECT dur, ts + dur FROM events WHERE name = 'big'";
    for (ts, dur, want) in [
        ("1", "1e300", ["1e300", "1e300"]),
        ("-1e300", "1e300", ["1e300", "0.0"]),
        (
            "1",
            "9223372036854775807",
            ["9.223372036854776e18", "9.223372036854776e18"],
        ),
        ("1e308", "1e308", ["1e308", "inf"]),
    ] {
        let path = write(
            dir.path(),
            "huge.json",
            trace(&[OP, &event(ts, dur), KERNEL]).as_bytes(),
        );
        let rows = assert_loaded(&query(&path, sql));
        assert_eq!(rows, [want], "ts {ts}, dur {dur}");
        // Every report runs over it (intervals, trees, histograms), no panic.
        let run = tracesql_bounded(&["report", &path]).run();
        assert_eq!(
            run.code,
            Some(0),
            "report, ts {ts}, dur {dur}\n{}",
            show(&run)
        );
        assert!(!run.stderr.contains("panicked"), "{}", show(&run));
    }
}

// ---------------------------------------------------------------------------------
// Duplicate keys: refused in an event, in its args and at the top level.
// ---------------------------------------------------------------------------------

#[test]
fn duplicate_keys_are_errors() {
    let dir = tmp();
    let twice_named = r#"{"ph": "X", "cat": "cpu_op", "name": "a", "name": "b", "pid": 1, "tid": 1, "ts": 1, "dur": 1}"#;
    let path = write(dir.path(), "event.json", trace(&[twice_named]).as_bytes());
    assert_error(&query(&path, COUNT), &path, "duplicate field `name`");

    let twice_in_args = r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"External id": 1, "External id": 2}}"#;
    let path = write(dir.path(), "args.json", trace(&[twice_in_args]).as_bytes());
    assert_error(&query(&path, COUNT), &path, "duplicate field `External id`");

    let two_arrays = format!("{{\"traceEvents\": [{OP}], \"traceEvents\": [{KERNEL}]}}");
    let path = write(dir.path(), "top.json", two_arrays.as_bytes());
    let at = two_arrays.rfind("\"traceEvents\"").expect("second key");
    let phrase = format!("malformed JSON at byte {at}: duplicate top-level key \"traceEvents\"");
    assert_error(&query(&path, COUNT), &path, &phrase);

    // A megabyte-long key twice: the error quotes its start and its length.
    let key = "k".repeat(1 << 20);
    let long_keys = format!("{{\"{key}\": 1, \"{key}\": 2, \"traceEvents\": [{OP}]}}");
    let path = write(dir.path(), "long.json", long_keys.as_bytes());
    let run = query(&path, COUNT);
    let shown = format!(
        "duplicate top-level key \"{}\"... (1048576 bytes)",
        "k".repeat(80)
    );
    assert_error(&run, &path, &shown);
    assert!(
        run.stderr.len() < 1000,
        "{} bytes of error",
        run.stderr.len()
    );
}

// ---------------------------------------------------------------------------------
// Text: a byte order mark, and bytes that are not UTF-8.
// ---------------------------------------------------------------------------------

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tmp();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(trace(&[OP, KERNEL]).as_bytes());
    let plain = write(dir.path(), "bom.json", &bytes);
    let packed = write(dir.path(), "bom.json.gz", &gzip(&bytes));
    for path in [plain, packed] {
        // Args are read back from the file at offsets that count the mark.
        let sql = "SELECT name, args FROM events ORDER BY ts";
        let rows = assert_loaded(&query(&path, sql));
        assert_eq!(rows[0], ["aten::mm", r#"{"External id": 1}"#], "{path}");
        assert_eq!(rows.len(), 2);
    }
}

/// The rocprofv3 reader too: the format is still told from the content, and
/// the rows are those of the file without the mark.
#[test]
fn a_byte_order_mark_before_a_rocprofv3_document_is_skipped() {
    let dir = tmp();
    let fixture = package_path("fixtures/formats/rocprofv3_small_results.json");
    let text = std::fs::read(&fixture).expect("the rocprofv3 fixture");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(&text);
    let plain = write(dir.path(), "marked_results.json", &bytes);
    let packed = write(dir.path(), "marked_results.json.gz", &gzip(&bytes));
    let sql = "SELECT (SELECT value FROM trace_meta WHERE key = 'source_format') AS format, \
               name, ts, dur FROM kernels ORDER BY ts, name";
    let expected = assert_loaded(&query(&fixture.to_string_lossy(), sql));
    assert!(expected.len() > 1, "{expected:?}");
    assert!(expected[0][0].contains("rocprofv3"), "{expected:?}");
    for path in [plain, packed] {
        assert_eq!(assert_loaded(&query(&path, sql)), expected, "{path}");
    }
}

#[test]
fn invalid_utf8_in_a_string_is_an_error_naming_the_event() {
    let dir = tmp();
    let in_args = r#"{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"x": "@"}}"#;
    let meta = format!(r#"{{"m": "@", "traceEvents": [{OP}]}}"#);
    // Each text with bytes that are not UTF-8 in place of its `@`.
    let cases: [(&str, String, &[u8], &str); 4] = [
        (
            "name",
            trace(&[OP, &timed_op("@", "1", "1")]),
            b"a\xff",
            "event 1 at byte",
        ),
        ("args", trace(&[OP, in_args]), b"\xc3", "event 1 at byte"),
        (
            "key",
            trace(&[r#"{"@": 1}"#]),
            b"\xed\xa0\x80",
            "event 0 at byte",
        ),
        ("meta", meta, b"\xf5", "malformed JSON at byte 7"),
    ];
    for (place, text, bad, phrase) in cases {
        let (before, after) = text.split_once('@').expect("a place for the bytes");
        let bytes = [before.as_bytes(), bad, after.as_bytes()].concat();
        let path = write(dir.path(), &format!("{place}.json"), &bytes);
        let run = query(&path, COUNT);
        assert_error(&run, &path, phrase);
        assert_error(&run, &path, "invalid unicode code point");
    }
}

// ---------------------------------------------------------------------------------
// Decompression bombs: refused past the documented limit (16 MiB, and beyond
// that 100 times the file's size; TRACESQL_MAX_EXPANSION changes the ratio).
// Below it, whitespace streams through in bounded memory.
// ---------------------------------------------------------------------------------

/// A trace whose two events have `padding` bytes of whitespace between them.
fn padded(padding: usize) -> Vec<u8> {
    let mut bytes = format!("{{\"traceEvents\": [{OP},").into_bytes();
    bytes.resize(bytes.len() + padding, b' ');
    bytes.extend(format!("{KERNEL}]}}").as_bytes());
    bytes
}

#[test]
fn a_gzip_bomb_is_refused_past_the_limit() {
    let dir = tmp();
    let bomb = gzip(&padded(64 << 20));
    assert!(bomb.len() < 100 << 10, "a bomb: {} bytes", bomb.len());
    let path = write(dir.path(), "bomb.json.gz", &bomb);
    let phrase = "decompresses to more than 16777216 bytes (100 times its size): a decompression bomb? Set TRACESQL_MAX_EXPANSION to a larger ratio (0: no limit)";
    assert_error(&query(&path, COUNT), &path, phrase);

    let zipped = write(
        dir.path(),
        "bomb.zip",
        &zip(&[("t.json", &padded(64 << 20))]),
    );
    assert_error(
        &query(&zipped, COUNT),
        &zipped,
        "decompresses to more than 16777216 bytes",
    );

    let bad_setting = tracesql_bounded(&["query", &path, "-e", COUNT])
        .env("TRACESQL_MAX_EXPANSION", "lots")
        .run();
    assert_error(
        &bad_setting,
        &path,
        "TRACESQL_MAX_EXPANSION must be a whole number",
    );
}

#[test]
fn a_gzip_bomb_allowed_streams_through_in_bounded_memory() {
    let dir = tmp();
    let padding = 256 << 20;
    let path = write(dir.path(), "bomb.json.gz", &gzip(&padded(padding)));
    let sql_args = ["query", &path, "-e", COUNT, "--format", "csv"];
    let run = tracesql_bounded(&sql_args)
        .env("TRACESQL_MAX_EXPANSION", "0")
        .run();
    assert_eq!(assert_loaded(&run), [["2"]]);
    // The peak memory, where GNU time is there to measure it: the reader holds
    // a few chunks of the document, never the document.
    if !Path::new("/usr/bin/time").exists() {
        eprintln!("skipped the memory check: no /usr/bin/time");
        return;
    }
    let run = Cmd::program("/usr/bin/time")
        .args(["-f", "peak %M KB", "timeout", TIME_LIMIT, BIN])
        .args(sql_args)
        .env("TRACESQL_MAX_EXPANSION", "0")
        .run();
    let peak_kb: u64 = run
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak ")?.strip_suffix(" KB")?.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {}", show(&run)));
    assert!(
        peak_kb < 256 << 10,
        "{peak_kb} KB for a {padding}-byte document"
    );
}

// ---------------------------------------------------------------------------------
// Zip archives: many entries, names like paths. Nothing is extracted: the one
// trace entry is read in place, whatever its name.
// ---------------------------------------------------------------------------------

#[test]
fn zips_of_many_or_path_like_entries_read_the_one_trace_in_place() {
    let dir = tmp();
    let json = trace(&[OP, KERNEL]);
    let filler: Vec<(String, Vec<u8>)> = (0..5000)
        .map(|i| (format!("logs/{i}/step.txt"), format!("{i}").into_bytes()))
        .collect();
    for name in [
        "../../x.json",
        "/etc/t.json",
        "C:\\traces\\t.json",
        "a/../../b/t.JSON",
    ] {
        let mut entries: Vec<(&str, &[u8])> = filler
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        entries.push((name, json.as_bytes()));
        let path = write(dir.path(), "many.zip", &zip(&entries));
        assert_eq!(assert_loaded(&query(&path, COUNT)), [["2"]], "{name}");
    }
    // Outside the work directory nothing was written.
    assert!(!dir.path().join("x.json").exists());

    let two = zip(&[
        ("../a.json", json.as_bytes()),
        ("line\nbreak.json", json.as_bytes()),
    ]);
    let path = write(dir.path(), "two.zip", &two);
    assert_error(
        &query(&path, COUNT),
        &path,
        r"it holds 2 traces (../a.json, line\nbreak.json); extract the one you want",
    );
}

// ---------------------------------------------------------------------------------
// Links that cannot be: Python frames whose parent ids form a cycle, flows
// with one end missing. The call tree is built from time nesting and
// correlations, so these load; they link nothing.
// ---------------------------------------------------------------------------------

#[test]
fn python_parent_ids_in_a_cycle_load_and_link_by_time() {
    let dir = tmp();
    let frames: Vec<String> = (0..5)
        .map(|i| {
            format!(
                r#"{{"ph": "X", "cat": "python_function", "name": "f{i}", "pid": 1, "tid": 1, "ts": {i}, "dur": {}, "args": {{"Python id": {i}, "Python parent id": {}}}}}"#,
                100 - 2 * i,
                (i + 1) % 5
            )
        })
        .collect();
    let mine = r#"{"ph": "X", "cat": "python_function", "name": "self", "pid": 1, "tid": 2, "ts": 1, "dur": 1, "args": {"Python id": 9, "Python parent id": 9}}"#;
    let mut events: Vec<&str> = frames.iter().map(String::as_str).collect();
    events.extend([mine, OP, KERNEL]);
    let path = write(dir.path(), "cycle.json", trace(&events).as_bytes());
    // Each frame's parent is the frame around it in time, not its parent id.
    let sql = "SELECT e.name, p.name FROM events e LEFT JOIN events p ON e.parent_uid = p.uid \
               WHERE e.cat = 'python_function' ORDER BY e.ts, e.name";
    let rows = assert_loaded(&query(&path, sql));
    let want = [
        ["f0", ""],
        ["f1", "f0"],
        ["self", ""],
        ["f2", "f1"],
        ["f3", "f2"],
        ["f4", "f3"],
    ];
    assert_eq!(rows, want);
    let run = tracesql_bounded(&["report", &path]).run();
    assert_eq!(run.code, Some(0), "{}", show(&run));
}

#[test]
fn flows_with_a_missing_end_load_and_link_nothing() {
    let dir = tmp();
    let start_only =
        r#"{"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"}"#;
    let end_only = r#"{"ph": "f", "id": 6, "pid": 0, "tid": 7, "ts": 12, "cat": "ac2g", "name": "ac2g", "bp": "e"}"#;
    let launch = r#"{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 11, "dur": 1, "args": {"correlation": 6}}"#;
    let path = write(
        dir.path(),
        "flows.json",
        trace(&[OP, launch, start_only, end_only, KERNEL]).as_bytes(),
    );
    let rows = assert_loaded(&query(&path, "SELECT count(*) FROM events"));
    assert_eq!(rows, [["5"]]);
    // The kernel's correlation (9) matches no launch: it stays unattributed.
    let sql = "SELECT name, launch_uid, op_uid FROM kernels";
    assert_eq!(assert_loaded(&query(&path, sql)), [["gemm", "", ""]]);
    let only_flows = write(
        dir.path(),
        "only.json",
        trace(&[start_only, end_only]).as_bytes(),
    );
    assert_eq!(assert_loaded(&query(&only_flows, COUNT)), [["2"]]);
    let run = tracesql_bounded(&["report", &only_flows]).run();
    assert_eq!(run.code, Some(0), "{}", show(&run));
}
