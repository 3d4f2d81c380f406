//! The PyTorch profiler (Kineto) JSON reader: open and decompress (`source`),
//! split the document into events (`scan`), decode each event (`fast`, else
//! `decode`), every other chunk on a second thread (`ahead`); `reread` reads an
//! event's args back from the file when a query asks for them.

pub(crate) mod ahead;
pub(crate) mod decode;
pub(crate) mod fast;
pub mod reread;
pub(crate) mod scan;

use super::error::{IngestError, Problem};
use super::source;
use super::trace::RawTrace;

/// Reads the Kineto trace at `path` (`-` for standard input).
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    load_with(path, true).map(|(trace, _)| trace)
}

/// How [`load_with_options`] reads: [`load`] reads ahead, in chunks of
/// [`source::CHUNK`], holding every event's args only when the input cannot
/// be read again.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Decode every other chunk on a second thread (`ahead`).
    pub read_ahead: bool,
    /// Bytes per chunk: tiny chunks make a small document cross many chunk
    /// boundaries and read-ahead splits (tests and fuzzing).
    pub chunk: usize,
    /// Hold every event's args as standard input does, even for a file.
    pub hold_all_args: bool,
}

/// [`load`], with or without the read-ahead thread (`ahead`); also returns how many
/// parts decoded ahead were taken.
fn load_with(path: &str, read_ahead: bool) -> Result<(RawTrace, u64), IngestError> {
    let options = ReadOptions {
        read_ahead,
        chunk: source::CHUNK,
        hold_all_args: false,
    };
    load_with_options(path, &options)
}

/// [`load`] as `options` say; also returns how many parts decoded ahead were
/// taken. For tests and fuzzing, which compare the ways of reading.
#[doc(hidden)]
pub fn load_with_options(
    path: &str,
    options: &ReadOptions,
) -> Result<(RawTrace, u64), IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    // Taken before reading: a file that changes while it is read then no longer
    // matches, and its args are not read back from the changed file.
    let stamp = reread::FileStamp::of(path);
    let hold_all_args = stamp.is_none() || options.hold_all_args;
    let (stream, ahead) =
        source::open(path, options.read_ahead, true, options.chunk).map_err(fail)?;
    let ahead = ahead.map(|chunks| ahead::spawn(chunks, hold_all_args));
    let mut sink = Sink(RawTrace::new(path));
    sink.0.hold_all_args = hold_all_args;
    sink.0.stamp = stamp;
    let (metadata, parts) = scan::split_document(stream, ahead, &mut sink).map_err(fail)?;
    let Sink(mut trace) = sink;
    if trace.is_empty() {
        return Err(fail(Problem::NoEvents));
    }
    trace.metadata = metadata;
    trace.shrink_to_fit();
    Ok((trace, parts))
}

/// Decodes events into a [`RawTrace`]: the one-pass reader first, serde for the
/// events it declines (and for their error messages).
struct Sink(RawTrace);

impl scan::EventSink for Sink {
    fn event_prefix(
        &mut self,
        index: u64,
        offset: u64,
        bytes: &[u8],
    ) -> Result<Option<usize>, Problem> {
        let Some((event, len)) = fast::read_event(bytes) else {
            return Ok(None);
        };
        decode::push_decoded(&mut self.0, &event, bytes, offset)
            .map_err(|e| bad_event(index, offset, e))?;
        Ok(Some(len))
    }

    fn event(&mut self, index: u64, offset: u64, bytes: &[u8]) -> Result<(), Problem> {
        decode::push_event(&mut self.0, bytes, offset).map_err(|e| bad_event(index, offset, e))
    }

    fn splice(&mut self, index: u64, offset: u64, part: &RawTrace) -> Result<(), Problem> {
        self.0
            .append(part)
            .map_err(|message| bad_event(index, offset, decode::EventError(message, 0)))
    }
}

fn bad_event(index: u64, offset: u64, e: decode::EventError) -> Problem {
    Problem::BadEvent {
        index,
        offset: offset + e.1,
        message: e.0,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// A trace of `events` varied events, several megabytes of JSON so that it
    /// spans many chunks: names that repeat and names that don't, escapes,
    /// metadata naming threads (later names win), cpu_ops with inputs, kernels,
    /// flows, and args objects holding arrays of objects (which look like event
    /// boundaries to the read-ahead guess).
    fn generated_trace(events: usize, bad_at: Option<usize>) -> String {
        let mut json = String::from("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}, {\"id\": 1}],\n\"traceEvents\": [\n");
        for i in 0..events {
            if i > 0 {
                json.push_str(",\n  ");
            }
            let (pid, tid) = (i % 3, format!("\"t{}\"", i % 5));
            let event = match i % 7 {
                _ if Some(i) == bad_at => format!(
                    r#"{{"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, "ts": {i}, "dur": -1}}"#
                ),
                0 => format!(
                    r#"{{"ph": "M", "name": "thread_name", "pid": {pid}, "tid": {tid}, "args": {{"name": "worker {i}"}}}}"#
                ),
                1 => format!(
                    r#"{{"ph": "X", "cat": "cpu_op", "name": "aten::op{}", "pid": {pid}, "tid": {tid}, "ts": {i}.5, "dur": 2, "args": {{"External id": {i}, "Input Dims": [[{i}, 3], []], "Input type": ["float", ""], "Concrete Inputs": ["", "{}"], "Record function id": {i}}}}}"#,
                    i % 11,
                    i % 4
                ),
                2 => format!(
                    r#"{{"ph": "X", "cat": "kernel", "name": "kernel_{}\u00e9\n", "pid": 7, "tid": "stream 7", "ts": {i}, "dur": 1.25, "args": {{"correlation": {i}, "stream": 7, "device": 0, "grid": [1, 2, 3]}}}}"#,
                    i
                ),
                3 => format!(
                    r#"{{"ph": "X", "cat": "user_annotation", "name": "step", "pid": {pid}, "tid": {tid}, "ts": {i}, "dur": 3, "args": {{"list": [{{"a": 1}}, {{"b": "}}, {{\"x"}}]}}}}"#
                ),
                4 => format!(
                    r#"{{"ph": "s", "id": {i}, "pid": {pid}, "tid": {tid}, "ts": {i}, "cat": "ac2g", "name": "ac2g"}}"#
                ),
                5 => format!(
                    r#"{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, "tid": {tid}, "ts": {i}, "dur": 1, "args": {{"correlation": {i}, "cbid": 211}}}}"#
                ),
                _ => format!(
                    r#"{{"ph": "i", "name": "mark {i}", "pid": "{pid}", "tid": {tid}, "ts": {i}, "s": "t"}}"#
                ),
            };
            json.push_str(&event);
        }
        json.push_str("\n], \"traceName\": \"generated\"}\n");
        json
    }

    fn write_trace(json: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        file.write_all(json.as_bytes()).expect("write trace");
        file
    }

    #[test]
    fn reading_ahead_decodes_what_one_thread_decodes() {
        let json = generated_trace(40_000, None);
        assert!(
            json.len() > 4 << 20,
            "spans many chunks: {} bytes",
            json.len()
        );
        let file = write_trace(&json);
        let path = file.path().to_str().expect("utf-8 path");
        let (alone, none_taken) = load_with(path, false).expect("sequential load");
        let (ahead, taken) = load_with(path, true).expect("read-ahead load");
        assert_eq!(none_taken, 0);
        // Every odd chunk's part is taken (the args arrays of objects mislead the
        // first guess of some chunks, not the later ones).
        let chunks = json.len().div_ceil(1 << 20) as u64;
        assert!(
            taken >= chunks / 2 - 1,
            "{taken} parts taken of {chunks} chunks"
        );
        assert_eq!(alone.len(), 40_000);
        // Integer-or-float times are counted alike on both paths.
        assert_eq!(
            (alone.fractional_times, alone.timed_events),
            (ahead.fractional_times, ahead.timed_events)
        );
        assert!(alone.fractional_times > 0);
        let (alone, ahead) = (alone.digest(), ahead.digest());
        assert_eq!(alone.len(), ahead.len());
        for (a, b) in alone.iter().zip(&ahead) {
            assert_eq!(a, b);
        }
        assert!(alone
            .iter()
            .any(|r| r.contains(r#"thread "0" "t0" "worker"#)));
    }

    /// Python reads a number with a fraction or an exponent as a float and any
    /// other as an int; both decoders (the fast path, and serde for an event it
    /// leaves alone, here one with an escaped key) count the events whose times
    /// are floats, so `trace_meta.integer_times` says what TraceLens would keep.
    #[test]
    fn integer_and_fractional_times_are_told_apart_by_both_decoders() {
        let event = |cat_key: &str, ts: &str, dur: &str| {
            format!(
                r#"{{"ph":"X","{cat_key}":"cpu_op","name":"a","pid":1,"tid":1,"ts":{ts},"dur":{dur}}}"#
            )
        };
        let count = |events: &[String]| {
            let json = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
            let file = write_trace(&json);
            let (trace, _) = load_with(file.path().to_str().unwrap(), false).unwrap();
            (trace.fractional_times, trace.timed_events)
        };
        let (fast, serde) = ("cat", "c\\u0061t");
        assert_eq!(
            count(&[event(fast, "1", "2"), event(serde, "3", "4")]),
            (0, 2)
        );
        assert_eq!(
            count(&[event(fast, "1.5", "2"), event(serde, "3", "4")]),
            (1, 2)
        );
        assert_eq!(
            count(&[event(fast, "1", "2"), event(serde, "3", "4.0")]),
            (1, 2)
        );
        assert_eq!(
            count(&[event(fast, "1e3", "2"), event(serde, "3E1", "4")]),
            (2, 2)
        );
        assert_eq!(
            count(&[event(fast, "-7", "0"), event(serde, "3", "null")]),
            (0, 2)
        );
        // `-0`: serde_json reads a float (to keep the sign); so must the other
        // decoder, or the count depends on which decoded it (a fuzz finding).
        assert_eq!(count(&[event(fast, "1", "-0")]), (1, 1));
        assert_eq!(count(&[event(serde, "1", "-0")]), (1, 1));
    }

    #[test]
    fn args_read_back_match_the_document_across_parts_decoded_ahead() {
        let json = generated_trace(40_000, None);
        let file = write_trace(&json);
        let path = file.path().to_str().expect("utf-8 path");
        let (trace, taken) = load_with(path, true).expect("read-ahead load");
        assert!(taken > 0, "parts decoded ahead were taken");
        let stamp = trace.stamp.clone().expect("a file can be read again");
        let positions = reread::ArgsInFile::new(path, stamp, trace.args_at, trace.args_len);
        let read = positions.read().expect("args read back");
        #[derive(serde::Deserialize)]
        struct Event<'a> {
            #[serde(borrow)]
            args: Option<&'a serde_json::value::RawValue>,
        }
        #[derive(serde::Deserialize)]
        struct Doc<'a> {
            #[serde(borrow, rename = "traceEvents")]
            events: Vec<Event<'a>>,
        }
        let doc: Doc = serde_json::from_str(&json).expect("generated JSON");
        assert_eq!(doc.events.len(), positions.rows());
        for (uid, event) in doc.events.iter().enumerate() {
            let offsets = &read.offsets.0;
            let got = read
                .valid
                .get(uid)
                .then(|| &read.text[offsets[uid] as usize..offsets[uid + 1] as usize]);
            assert_eq!(got, event.args.map(|a| a.get()), "event {uid}");
        }
    }

    #[test]
    fn a_bad_separator_in_a_chunk_read_ahead_is_reported_as_alone() {
        // A form feed after the comma between two events: not JSON whitespace, so
        // the main parser stops there; a part must not step over it. At 2.5 MB the
        // main parser reads the chunk itself, at 3.5 MB the read-ahead thread does.
        for at in [2_500_000, 3_500_000] {
            let mut json = generated_trace(40_000, None);
            let comma = at + json[at..].find(",\n  ").expect("a separator");
            json.insert(comma + 1, '\u{c}');
            let file = write_trace(&json);
            let path = file.path().to_str().expect("utf-8 path");
            let alone = load_with(path, false).err().expect("an error").to_string();
            let ahead = load_with(path, true).err().expect("an error").to_string();
            assert_eq!(alone, ahead);
        }
    }

    #[test]
    fn a_bad_event_in_a_chunk_read_ahead_is_reported_as_alone() {
        for bad_at in [25_000, 39_999] {
            let file = write_trace(&generated_trace(40_000, Some(bad_at)));
            let path = file.path().to_str().expect("utf-8 path");
            let alone = load_with(path, false)
                .err()
                .expect("a bad event")
                .to_string();
            let ahead = load_with(path, true)
                .err()
                .expect("a bad event")
                .to_string();
            assert_eq!(alone, ahead);
            assert!(alone.contains(&format!("event {bad_at}")), "{alone}");
        }
    }

    /// Loads `json` with and without read-ahead on another thread each, failing
    /// (not hanging) when a load does not finish within a minute.
    fn load_both_within_a_minute(json: &str) -> (RawTrace, RawTrace) {
        let file = write_trace(json);
        let path = file.path().to_str().expect("utf-8 path").to_string();
        let load = |read_ahead: bool| {
            let (tx, rx) = std::sync::mpsc::channel();
            let path = path.clone();
            std::thread::spawn(move || {
                let _ = tx.send(load_with(&path, read_ahead).map(|(trace, _)| trace));
            });
            rx.recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("the load (read-ahead {read_ahead}) hangs"))
                .expect("a valid trace")
        };
        (load(false), load(true))
    }

    /// Found by fuzzing (`kineto_reader`): with chunks smaller than an event,
    /// the main parser held a chunk whose copy the reader thread had not queued
    /// for the read-ahead thread (its queue was full), and waited for that
    /// chunk's part; the read-ahead thread, which reported such a chunk only on
    /// seeing a later one, waited for the reader, and the reader for the main
    /// parser. Now the main parser waits only for chunks that were queued.
    #[test]
    fn chunks_smaller_than_an_event_never_stall_the_read_ahead() {
        let file = write_trace(&generated_trace(300, None));
        let path = file.path().to_str().expect("utf-8 path").to_string();
        let options = |read_ahead, chunk| ReadOptions {
            read_ahead,
            chunk,
            hold_all_args: true,
        };
        let (alone, _) = load_with_options(&path, &options(false, 1 << 20)).expect("a trace");
        for chunk in [1, 2, 3, 7, 16, 29, 100, 1000] {
            let (tx, rx) = std::sync::mpsc::channel();
            let path = path.clone();
            std::thread::spawn(move || {
                let _ = tx.send(load_with_options(&path, &options(true, chunk)));
            });
            let loaded = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("the load in chunks of {chunk} hangs"));
            let (ahead, _) = loaded.expect("a trace");
            assert_eq!(alone.digest(), ahead.digest(), "chunks of {chunk}");
        }
    }

    /// One value spanning many read-ahead chunks used to stop the load for good
    /// (from about 12 MB): the main parser took no parts while inside it, the
    /// read-ahead thread's queue filled, and the reader thread waited on it
    /// instead of handing the main parser its next chunk. Each shape: a huge
    /// string in args, a huge run of whitespace between events, a huge array in
    /// args, each also starting right at a chunk boundary, with ordinary events
    /// before and after (so parts decoded ahead are taken again afterwards).
    #[test]
    fn values_spanning_many_chunks_never_stall_the_load() {
        let event = |i: usize, args: &str| {
            format!(
                r#"{{"ph": "X", "cat": "cpu_op", "name": "op{i}", "pid": 1, "tid": 1, "ts": {i}, "dur": 1, "args": {{{args}}}}}"#
            )
        };
        let ordinary = |from: usize, n: usize| -> Vec<String> {
            (from..from + n)
                .map(|i| event(i, r#""External id": 1"#))
                .collect()
        };
        let huge_string = format!(r#""s": "{}""#, "x".repeat(16_000_000));
        let huge_array = format!(r#""a": [{}]"#, vec!["12345"; 2_700_000].join(","));
        let comma = ",\n".to_string();
        let shapes = [
            ("string", event(0, &huge_string), comma.clone()),
            (
                "whitespace",
                event(0, r#""k": 1"#),
                format!(",{}", " ".repeat(16_000_000)),
            ),
            ("array", event(0, &huge_array), comma),
        ];
        for (shape, big, separator) in shapes {
            // Before the big event: ~3 MB of events, or just enough that the big
            // event starts a few bytes before the first chunk boundary.
            for before in [3_000_000usize, (1 << 20) - 40] {
                let mut events = Vec::new();
                let mut len = 16;
                let mut i = 1;
                while len + 120 < before {
                    let e = event(i, r#""External id": 1"#);
                    len += e.len() + 2;
                    events.push(e);
                    i += 1;
                }
                let mut json = String::from("{\"traceEvents\": [");
                json.push_str(&events.join(",\n"));
                json.push_str(",\n");
                json.push_str(&big);
                json.push_str(&separator);
                json.push_str(&ordinary(i + 1, 30_000).join(",\n"));
                json.push_str("]}");
                let (alone, ahead) = load_both_within_a_minute(&json);
                assert_eq!(alone.len(), events.len() + 30_001, "{shape}");
                assert_eq!(alone.digest(), ahead.digest(), "{shape}, {before}");
            }
        }
    }

    /// A gzip whose JSON is bad (trailing characters) and whose checksum is
    /// wrong: the corrupt stream is the error, in large chunks (where the
    /// reader meets the checksum before the parser sees any JSON) and in tiny
    /// ones (where the parser meets the bad JSON first). A fuzzing finding.
    #[test]
    fn a_corrupt_gzip_is_reported_as_such_whatever_the_chunking() {
        let json =
            br#"{"traceEvents": [{"ph": "i", "name": "a", "pid": 1, "tid": 1, "ts": 1}]} false"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(json).expect("gzip in memory");
        let mut gz = gz.finish().expect("gzip in memory");
        // The CRC32 is the trailer's first four bytes.
        let crc = gz.len() - 8;
        gz[crc] ^= 0xff;
        let mut file = tempfile::Builder::new()
            .suffix(".json.gz")
            .tempfile()
            .expect("temp file");
        file.write_all(&gz).expect("write trace");
        let path = file.path().to_str().expect("utf-8 path");
        for chunk in [source::CHUNK, 18, 1] {
            for read_ahead in [false, true] {
                let options = ReadOptions {
                    read_ahead,
                    chunk,
                    hold_all_args: false,
                };
                let problem = match load_with_options(path, &options) {
                    Ok(_) => panic!("a corrupt gzip loaded (chunks of {chunk})"),
                    Err(e) => e.problem,
                };
                assert!(
                    matches!(problem, Problem::Gzip(_)),
                    "chunks of {chunk}, read ahead {read_ahead}: {problem}"
                );
            }
        }
    }

    /// A plain file with the same bad JSON reports the JSON.
    #[test]
    fn bad_json_in_a_plain_file_is_reported_as_json() {
        let file = write_trace(
            r#"{"traceEvents": [{"ph": "i", "name": "a", "pid": 1, "tid": 1, "ts": 1}]} false"#,
        );
        let path = file.path().to_str().expect("utf-8 path");
        let problem = load(path).err().map(|e| e.problem);
        assert!(matches!(problem, Some(Problem::Json { .. })), "{problem:?}");
    }
}
