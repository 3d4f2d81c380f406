//! Entry points of the fuzz targets: each takes untrusted bytes, runs one reader
//! on them the way the CLI does, and panics when something that must hold for
//! any bytes does not (an error on more than one line, two ways of reading the
//! same document that disagree). A panic anywhere below is a finding too.
//!
//! They live in the library, not in `fuzz/`, so that the fuzzer (nightly,
//! `cargo fuzz run TARGET`) and the corpus replay on stable
//! (`tests/integration/fuzz_corpus.rs`) run exactly the same code. See
//! `fuzz/README.md`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ingest::kineto::{load_with_options, ReadOptions};
use crate::ingest::{ArgsInFile, IngestError, RawTrace, SourceFormat};

/// Every target: its name (the folder of its corpus) and its entry point.
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("kineto_reader", kineto_reader),
    ("compressed_source", compressed_source),
    ("args_reread", args_reread),
    ("py_literals", py_literals),
    ("query_header", query_header),
    ("platforms_file", platforms_file),
    ("replay_ir", replay_ir),
    ("rocprof_reader", rocprof_reader),
    ("perfetto_reader", perfetto_reader),
    ("xplane_reader", xplane_reader),
];

/// Chunks of the reference read: one chunk for any input a fuzzer makes.
const WHOLE: usize = 1 << 20;

/// The Kineto reader on `data` as a file: read alone in one chunk, and read
/// ahead in tiny chunks (so a small document crosses many chunk boundaries and
/// read-ahead splits), which must give the same rows or the same error; then
/// the CLI's whole load (call tree, tables) and every table in full (the args
/// read back from the file, the kernel ancestors).
pub fn kineto_reader(data: &[u8]) {
    let file = Scratch::new(data, "json");
    let path = file.path_str();
    let chunk = 1 + data.len() % 29;
    let alone = read(path, false, WHOLE, true);
    let ahead = read(path, true, chunk, true);
    same_outcome(&alone, &ahead, &format!("read ahead in chunks of {chunk}"));
    if alone.is_err() {
        return;
    }
    match crate::load::load_trace(path) {
        Ok(loaded) => {
            if let Err(e) = loaded.full_tables() {
                one_line(&e.to_string());
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The rocprofv3 reader on `data` as a file: its load (the symbols read while
/// the file inflates, the records applied while the document deserializes,
/// see `ingest::rocprof`) must give the same rows or the same error as one
/// derived serde pass over the same bytes; errors are one line.
pub fn rocprof_reader(data: &[u8]) {
    let file = Scratch::new(data, "json");
    let [loaded, whole] = crate::ingest::rocprof_load_both_ways(file.path_str());
    agree(&loaded, &whole, "the load", "one serde pass");
}

/// The Perfetto-style JSON reader on `data` as a file: the args read on a
/// second thread while this one applies them, and read here, must give the
/// same rows or the same error; then the CLI's load as that format (call
/// tree, tables) and every table in full. Errors are one line.
pub fn perfetto_reader(data: &[u8]) {
    let file = Scratch::new(data, "json");
    let path = file.path_str();
    let [two, one] = crate::ingest::perfetto_load_both_ways(path);
    agree(&two, &one, "args read on two threads", "on one");
    if one.is_ok() {
        tables_as(path, SourceFormat::Pftrace);
    }
}

/// The JAX XPlane reader on `data` as a file: its load (decoded, the stats
/// read on one thread for any input this small) and a build of the same
/// space with the stats read on a second thread must give the same rows or
/// the same error; then the CLI's load as that format and every table in
/// full. Errors are one line.
pub fn xplane_reader(data: &[u8]) {
    let file = Scratch::new(data, "xplane.pb");
    let path = file.path_str();
    let [loaded, two] = crate::ingest::xplane::load_both_ways(path);
    agree(&loaded, &two, "the load", "the stats read on two threads");
    if loaded.is_ok() {
        tables_as(path, SourceFormat::Jax);
    }
}

/// Two readings of one file, each everything it built or its error: the
/// same rows or the same one-line error.
fn agree(a: &Result<String, String>, b: &Result<String, String>, a_is: &str, b_is: &str) {
    match (a, b) {
        (Ok(x), Ok(y)) => assert!(x == y, "{a_is} and {b_is} build different rows"),
        (Err(x), Err(y)) => {
            assert_eq!(x, y, "{a_is} and {b_is} fail differently");
            one_line(x);
        }
        _ => {
            let brief = |outcome: &Result<String, String>| match outcome {
                Ok(_) => "rows".to_string(),
                Err(e) => e.clone(),
            };
            panic!("{a_is} gives {}, {b_is} {}", brief(a), brief(b))
        }
    }
}

/// The CLI's load of `path` read as `format` (call tree, tables) and every
/// table in full; errors are one line.
fn tables_as(path: &str, format: SourceFormat) {
    let loaded =
        crate::ingest::load_as(path, format).and_then(|raw| crate::load::tabulate(path, raw));
    match loaded {
        Ok(loaded) => {
            if let Err(e) = loaded.full_tables() {
                one_line(&e.to_string());
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The framing of compressed inputs. The first byte picks how the rest is used:
/// as the file itself (a mutated gzip or zip), as JSON put in a gzip file (one
/// member, or two split at the first NUL), or as `name NUL content NUL ...`
/// entries of a zip archive. A gzip file must read as its JSON does; a zip with
/// exactly one trace entry as that entry does.
pub fn compressed_source(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let file = Scratch::new(rest, "bin");
            let _ = read(file.path_str(), true, 1 + rest.len() % 13, false);
        }
        1 => {
            let members: Vec<&[u8]> = match rest.iter().position(|&b| b == 0) {
                Some(at) => vec![&rest[..at], &rest[at + 1..]],
                None => vec![rest],
            };
            let mut gz = Vec::new();
            for member in &members {
                gz.extend(gzip(member));
            }
            let json = members.concat();
            let plain = Scratch::new(&json, "json");
            let packed = Scratch::new(&gz, "json.gz");
            let want = read(plain.path_str(), false, WHOLE, false);
            let got = read(packed.path_str(), true, 1 + rest.len() % 13, false);
            if reads_as_json(&json) {
                same_outcome(&want, &got, "gzipped");
            }
        }
        _ => {
            let mut parts = rest.split(|&b| b == 0);
            let mut entries = Vec::new();
            while let (Some(name), Some(content)) = (parts.next(), parts.next()) {
                entries.push((String::from_utf8_lossy(name).into_owned(), content));
            }
            let Some(archive) = zip_archive(&entries, mode & 4 != 0) else {
                return;
            };
            let packed = Scratch::new(&archive, "zip");
            let got = read(packed.path_str(), true, 1 + rest.len() % 13, false);
            let traces: Vec<&(String, &[u8])> = entries
                .iter()
                .filter(|(name, _)| {
                    let lower = name.to_ascii_lowercase();
                    lower.ends_with(".json") || lower.ends_with(".json.gz")
                })
                .collect();
            let plain_json = |name: &str| name.to_ascii_lowercase().ends_with(".json");
            if let [(name, content)] = traces.as_slice() {
                // `.JSON.GZ` is a trace to the picker but not gzip to the reader.
                if plain_json(name) && reads_as_json(content) {
                    let plain = Scratch::new(content, "json");
                    let want = read(plain.path_str(), false, WHOLE, false);
                    same_outcome(&want, &got, &format!("zipped as {name:?}"));
                }
            }
        }
    }
}

/// `events.args` read back from the file must be the args a load that holds
/// them all keeps; and read back from a file rewritten since the load with the
/// same size and time (so its stamp still matches), an error or text, never a
/// panic.
pub fn args_reread(data: &[u8]) {
    let file = Scratch::new(data, "json");
    let path = file.path_str();
    let Ok((held, _)) = load_with_options(path, &options(true, 1 + data.len() % 17, true)) else {
        return;
    };
    let found = load_with_options(path, &options(true, WHOLE, false));
    let (found, _) = found.unwrap_or_else(|e| panic!("loads when holding all args only: {e}"));
    let Some(stamp) = found.stamp.clone() else {
        panic!("a file loaded without a stamp");
    };
    let positions = ArgsInFile::new(path, stamp, found.args_at, found.args_len);
    let read = positions
        .read()
        .unwrap_or_else(|e| panic!("args not read back: {e}"));
    for uid in 0..held.len() {
        assert_eq!(read.get(uid), held.args_of(uid), "args of event {uid}");
    }
    // The same length, another text: every byte moves one place on.
    let mut changed = data.to_vec();
    changed.rotate_left(1);
    if file.rewrite_keeping_stamp(&changed) {
        if let Err(e) = positions.read() {
            one_line(&e.to_string());
        }
    }
}

/// The parsers of Python-format text in the `udfs` crate: the JSON → repr
/// conversion, the `ast.literal_eval` subset, and the perf models on
/// `name \n Input Dims \n Input type \n Input Strides \n Concrete Inputs`
/// (the name picks a model: an op name if it has one, else the n-th op with a
/// model, n the name's length).
pub fn py_literals(data: &[u8]) {
    use tracesql_udfs::perf::{self, args, Direction, RawArgs, Semantics};
    let text = String::from_utf8_lossy(data);
    let _ = tracesql_udfs::pyfmt::json_to_python_repr(&text);
    if let Some(value) = args::parse_py_literal(&text) {
        let _ = (value.repr(), value.py_str(), value.truthy());
    }
    let _ = args::str_to_int_tuple(&text, "fuzz");
    let _ = args::parse_int_list(&text, "fuzz");
    let _ = args::parse_bool_list(&text, "fuzz");
    let _ = args::eval_flag(&text, "fuzz");
    let _ = (args::py_float(&text), args::py_int(&text));

    let mut fields = text.split('\n');
    let name = fields.next().unwrap_or_default();
    let mut field = || fields.next().filter(|f| !f.is_empty());
    let raw = RawArgs {
        input_dims: field(),
        input_types: field(),
        input_strides: field(),
        concrete_inputs: field(),
        kernel_names: &[],
    };
    let op = match perf::resolve(name) {
        Some(_) => name,
        None => {
            let ops: Vec<&str> = perf::registry::model_classes().map(|(op, _)| op).collect();
            ops.get(name.len() % ops.len().max(1))
                .copied()
                .unwrap_or(name)
        }
    };
    for semantics in [
        Semantics::TraceLens,
        Semantics::BugFixes,
        Semantics::Corrected,
    ] {
        if let Some(Ok(perf)) = perf::compute(op, &raw, semantics) {
            let _ = (perf.metrics(Direction::Fwd), perf.metrics(Direction::Bwd));
            let _ = perf.params_repr();
        }
    }
}

/// A query file's header, its `Columns:` block and `SET platform`, as
/// `--queries DIR` and the REPL read them.
pub fn query_header(data: &[u8]) {
    use crate::catalog::{parse_columns_block, parse_query, Origin};
    let text = String::from_utf8_lossy(data);
    match parse_query(&text, Origin::User(PathBuf::from("fuzz.sql"))) {
        Ok(query) => {
            if let Some(Err(e)) = query.column_notes() {
                one_line(&e);
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
    let _ = parse_columns_block(&text);
    let _ = crate::engine::platform::parse_set_platform(&text);
}

/// A `--platforms` file, CSV or TOML as its first byte says (odd: TOML), then
/// merged into the built-in list as a session does.
pub fn platforms_file(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let file = Scratch::new(rest, if kind % 2 == 1 { "toml" } else { "csv" });
    match crate::engine::platform::read_platforms_file(file.path()) {
        Ok(list) => {
            let mut all = tracesql_udfs::roofline::builtin_platforms();
            tracesql_udfs::roofline::merge_platforms(&mut all, list);
        }
        Err(e) => one_line(&e),
    }
}

/// Whether a file of `bytes` is read as JSON, not empty or as a container by
/// its first bytes.
fn reads_as_json(bytes: &[u8]) -> bool {
    !bytes.is_empty() && !bytes.starts_with(&[0x1f, 0x8b]) && !bytes.starts_with(b"PK\x03\x04")
}

fn options(read_ahead: bool, chunk: usize, hold_all_args: bool) -> ReadOptions {
    ReadOptions {
        read_ahead,
        chunk,
        hold_all_args,
    }
}

/// Reads `path` with the Kineto reader; its error must be one line.
fn read(
    path: &str,
    read_ahead: bool,
    chunk: usize,
    hold_all_args: bool,
) -> Result<RawTrace, IngestError> {
    let result = load_with_options(path, &options(read_ahead, chunk, hold_all_args));
    if let Err(e) = &result {
        one_line(&e.to_string());
    }
    result.map(|(trace, _)| trace)
}

/// Two reads of the same document: the same rows, or the same problem (the
/// files may differ, so not the same file name).
fn same_outcome(
    want: &Result<RawTrace, IngestError>,
    got: &Result<RawTrace, IngestError>,
    how: &str,
) {
    match (want, got) {
        (Ok(want), Ok(got)) => {
            let (want, got) = (want.digest(), got.digest());
            assert_eq!(want.len(), got.len(), "{how}: rows");
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(w, g, "{how}");
            }
        }
        (Err(want), Err(got)) => {
            let (want, got) = (want.problem.to_string(), got.problem.to_string());
            assert_eq!(want, got, "{how}: errors");
        }
        (want, got) => panic!("{how}: {} alone, {} this way", outcome(want), outcome(got)),
    }
}

fn outcome(result: &Result<RawTrace, IngestError>) -> String {
    match result {
        Ok(trace) => format!("{} events", trace.len()),
        Err(e) => format!("error {e}"),
    }
}

/// Errors are printed as one line on stderr.
fn one_line(message: &str) {
    assert!(
        !message.contains('\n'),
        "an error of several lines: {message:?}"
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// A zip archive of `entries`, deflated or stored; None if the zip writer
/// refuses one (names it cannot write are no input a reader could meet).
fn zip_archive(entries: &[(String, &[u8])], deflate: bool) -> Option<Vec<u8>> {
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, content) in entries {
        writer.start_file(name.as_str(), options).ok()?;
        writer.write_all(content).ok()?;
    }
    Some(writer.finish().ok()?.into_inner())
}

/// A file holding the input under the temporary directory (`TMPDIR`; a tmpfs
/// such as /dev/shm keeps fuzzing fast), removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(bytes: &[u8], extension: &str) -> Scratch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("tracesql-fuzz-{}-{n}.{extension}", std::process::id());
        let path = std::env::temp_dir().join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            panic!("cannot write {}: {e}", path.display());
        }
        Scratch(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn path_str(&self) -> &str {
        // Built from a UTF-8 name under the temporary directory.
        self.0.to_str().unwrap_or_default()
    }

    /// Writes `bytes` (of the file's length) over the file in place and sets
    /// its modification time back, so that its stamp still matches; false if
    /// that could not be done.
    fn rewrite_keeping_stamp(&self, bytes: &[u8]) -> bool {
        let rewrite = || -> std::io::Result<()> {
            let modified = std::fs::metadata(&self.0)?.modified()?;
            let mut file = std::fs::OpenOptions::new().write(true).open(&self.0)?;
            file.write_all(bytes)?;
            file.set_times(std::fs::FileTimes::new().set_modified(modified))
        };
        rewrite().is_ok()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The replay IR builder on `name \n Input type \n Input Dims \n Input Strides
/// \n Concrete Inputs` (each a JSON list, or absent): both modes must give an
/// outcome, the native IR must be strict JSON, and an ok outcome must name the
/// schema it matched.
pub fn replay_ir(data: &[u8]) {
    use crate::replay::json::{to_string, Style};
    use crate::replay::{build, Mode, OpEvent, Status};
    let text = String::from_utf8_lossy(data);
    let mut fields = text.split('\n');
    let name = fields.next().unwrap_or_default();
    let mut field = || fields.next().filter(|f| !f.is_empty());
    let (types, dims, strides, concrete) = (field(), field(), field(), field());
    let event = OpEvent::from_json_texts(name, types, dims, strides, concrete);
    for mode in [Mode::Compat, Mode::Native] {
        let out = build(&event, mode);
        assert_eq!(
            out.status == Status::Ok,
            out.matched_schema.is_some(),
            "{out:?}"
        );
        if let Some(ir) = &out.ir {
            let strict = to_string(ir, Style::STRICT);
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&strict) {
                panic!("not strict JSON ({e}): {strict}");
            }
            let _ = to_string(ir, Style::PYTHON_INDENT4);
        }
    }
}
