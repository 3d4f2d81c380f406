//! A streaming splitter for the top level of a trace document.
//!
//! Kineto traces are one object whose `traceEvents` array holds almost all of the
//! bytes. This splitter walks the top level itself and hands each event to an
//! [`EventSink`], so events are decoded one at a time with borrowed strings and no
//! tree of the whole document is ever built. The sink first gets the bytes from the
//! event's start to the end of the buffer and may decode the event in one pass;
//! if it declines, the splitter finds the event's end and hands over exactly its
//! bytes. The other top-level keys are returned as raw JSON text (they are small:
//! metadata, device properties, versions).

use super::ahead::{Ahead as AheadThread, Part};
use crate::ingest::error::Problem;
use crate::ingest::source::{JsonStream, BYTE_ORDER_MARK, HEADROOM};
use crate::ingest::trace::RawTrace;

/// What a value looks like to the splitter before it is decoded.
enum Scan {
    /// The value is complete and `n` bytes long.
    Complete(usize),
    /// The buffer ends inside the value.
    NeedMore,
}

/// Receives the elements of `traceEvents`, in order.
pub trait EventSink {
    /// Decodes the event at the start of `bytes` (which run on past it, to the end
    /// of what has been read) if it can, and returns its length; `None` declines
    /// and has the event passed to [`EventSink::event`] instead.
    fn event_prefix(
        &mut self,
        index: u64,
        offset: u64,
        bytes: &[u8],
    ) -> Result<Option<usize>, Problem>;

    /// Decodes the event that is exactly `bytes`, found at byte `offset`.
    fn event(&mut self, index: u64, offset: u64, bytes: &[u8]) -> Result<(), Problem>;

    /// Takes the events of a part decoded ahead (see `ahead`), the first of which is
    /// event `index`, at byte `offset`.
    fn splice(&mut self, index: u64, offset: u64, part: &RawTrace) -> Result<(), Problem>;
}

/// Reads a trace document from `stream`.
///
/// Every element of `traceEvents` goes to `sink`, in order; every other top-level
/// key is returned with its raw JSON, with the number of parts decoded ahead that
/// were taken. `ahead` brings parts decoded from the stream's odd-numbered chunks,
/// one message per such chunk (see `ahead`).
pub fn split_document(
    stream: JsonStream,
    ahead: Option<AheadThread>,
    sink: &mut impl EventSink,
) -> Result<(Vec<(String, String)>, u64), Problem> {
    let mut s = Splitter::new(stream, ahead);
    split(&mut s, sink).map_err(|problem| match problem {
        // The parser stopped at a bad document; a compressed one may be corrupt
        // further on, and a corrupt stream is the cause to report. Read to its
        // end (bounded by the expansion limit) so that the error does not depend
        // on where the chunks happened to end.
        Problem::Json { .. }
        | Problem::NotATrace(_)
        | Problem::BadEvent { .. }
        | Problem::EmptyFile => s.stream.problem_further_on().unwrap_or(problem),
        stream_problem => stream_problem,
    })
}

fn split(
    s: &mut Splitter,
    sink: &mut impl EventSink,
) -> Result<(Vec<(String, String)>, u64), Problem> {
    let mut others = Vec::new();
    let mut saw_events = false;
    s.skip_byte_order_mark()?;
    match s.peek()? {
        None => return Err(Problem::EmptyFile),
        Some(b'{') => s.pos += 1,
        Some(b'[') => {
            return Err(Problem::NotATrace(
                "the top level is an array, expected an object with traceEvents".into(),
            ))
        }
        Some(_) => {
            let (offset, len) = s.value()?;
            let text = &s.buf[s.pos..s.pos + len];
            if let Err(e) = serde_json::from_slice::<&serde_json::value::RawValue>(text) {
                return Err(json_error(offset, text, &e));
            }
            return Err(Problem::NotATrace("the top level is not an object".into()));
        }
    }
    // Keys seen: a second `traceEvents` (or `deviceProperties`, ...) is as
    // ambiguous as a duplicate field in an event, which serde refuses.
    let mut keys = std::collections::HashSet::new();
    if s.peek()? == Some(b'}') {
        s.pos += 1;
    } else {
        loop {
            s.peek()?;
            let at = s.offset();
            let key = s.key()?;
            if !keys.insert(key.clone()) {
                return Err(Problem::Json {
                    offset: at,
                    message: format!(
                        "duplicate top-level key {}",
                        tracesql_udfs::quoted_start(&key)
                    ),
                });
            }
            if key == "traceEvents" {
                saw_events = true;
                s.events(sink)?;
            } else {
                let (offset, len) = s.value()?;
                let text = &s.buf[s.pos..s.pos + len];
                let raw = serde_json::from_slice::<&serde_json::value::RawValue>(text)
                    .map_err(|e| json_error(offset, text, &e))?;
                others.push((key, raw.get().to_string()));
                s.pos += len;
            }
            match s.peek()? {
                Some(b',') => s.pos += 1,
                Some(b'}') => {
                    s.pos += 1;
                    break;
                }
                other => return Err(s.unexpected(other, "',' or '}' after a top-level value")),
            }
        }
    }
    if let Some(b) = s.peek()? {
        return Err(s.unexpected(Some(b), "the end of the document"));
    }
    if !saw_events {
        return Err(Problem::NotATrace("it has no traceEvents array".into()));
    }
    Ok((others, s.parts_taken))
}

/// Turns a serde error inside `text` (which starts at `offset`) into a byte offset.
pub fn json_error(offset: u64, text: &[u8], e: &serde_json::Error) -> Problem {
    Problem::Json {
        offset: offset + byte_of(text, e.line(), e.column()),
        message: strip_position(&e.to_string()),
    }
}

/// Byte index of a 1-based line/column position inside `text`.
pub fn byte_of(text: &[u8], line: usize, column: usize) -> u64 {
    let mut line_start = 0usize;
    let mut remaining = line.saturating_sub(1);
    if remaining > 0 {
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                remaining -= 1;
                if remaining == 0 {
                    line_start = i + 1;
                    break;
                }
            }
        }
    }
    (line_start + column.saturating_sub(1)) as u64
}

/// serde_json appends " at line L column C", which is relative to a slice: drop it.
pub fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

struct Splitter {
    stream: JsonStream,
    /// The JSON read so far and not yet dropped is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    pos: usize,
    /// Offset in the document of `buf[start]`.
    base: u64,
    eof: bool,
    parts_taken: u64,
    ahead: Option<Ahead>,
}

/// The parts decoded ahead, as they are matched against the document.
struct Ahead {
    thread: AheadThread,
    /// Messages the read-ahead thread owes about chunks this parser holds
    /// already (those queued for it, `Chunk::read_ahead`).
    owed: u64,
    /// The next part not yet taken or passed.
    pending: Option<Part>,
}

impl Splitter {
    fn new(stream: JsonStream, ahead: Option<AheadThread>) -> Splitter {
        Splitter {
            stream,
            buf: Vec::new(),
            start: 0,
            pos: 0,
            base: 0,
            eof: false,
            parts_taken: 0,
            ahead: ahead.map(|thread| Ahead {
                thread,
                owed: 0,
                pending: None,
            }),
        }
    }

    /// Drops consumed bytes and reads more; false at the end of input.
    ///
    /// The unread bytes move into the new chunk's headroom when they fit (an event
    /// cut by the chunk boundary, typically), else the chunk is appended to them.
    fn fill(&mut self) -> Result<bool, Problem> {
        if self.eof {
            return Ok(false);
        }
        let Some(next) = self.stream.next_chunk()? else {
            self.eof = true;
            return Ok(false);
        };
        if let (true, Some(ahead)) = (next.read_ahead, self.ahead.as_mut()) {
            ahead.owed += 1;
        }
        let mut chunk = next.buffer;
        let unread = self.buf.len() - self.pos;
        self.base += (self.pos - self.start) as u64;
        if unread <= HEADROOM {
            let start = HEADROOM - unread;
            chunk[start..HEADROOM].copy_from_slice(&self.buf[self.pos..]);
            let spent = std::mem::replace(&mut self.buf, chunk);
            self.stream.recycle(spent);
            self.start = start;
            self.pos = start;
        } else {
            self.buf.drain(..self.pos);
            self.buf.extend_from_slice(&chunk[HEADROOM..]);
            self.stream.recycle(chunk);
            self.start = 0;
            self.pos = 0;
        }
        Ok(true)
    }

    /// Steps over a UTF-8 byte order mark at the start of the document
    /// ([`BYTE_ORDER_MARK`]). Offsets still count it: they are the document's
    /// bytes, as read back.
    fn skip_byte_order_mark(&mut self) -> Result<(), Problem> {
        let mark = BYTE_ORDER_MARK;
        while self.buf.len() - self.pos < mark.len() && self.fill()? {}
        if self.buf[self.pos..].starts_with(mark) {
            self.pos += mark.len();
        }
        Ok(())
    }

    /// The next non-whitespace byte, not consumed; None at the end of input.
    fn peek(&mut self) -> Result<Option<u8>, Problem> {
        loop {
            while self.pos < self.buf.len() {
                let b = self.buf[self.pos];
                if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    self.pos += 1;
                } else {
                    return Ok(Some(b));
                }
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn offset(&self) -> u64 {
        self.base + (self.pos - self.start) as u64
    }

    /// The part decoded ahead that starts at document offset `at`, if there is one.
    ///
    /// Parts come in document order; those starting before `at` were guessed
    /// wrong and are dropped. Waits for a part only once this parser holds the
    /// chunk it was decoded from (and only for a chunk queued for read-ahead),
    /// so the two threads work on different chunks and never wait on each other.
    fn take_part(&mut self, at: u64) -> Option<Part> {
        loop {
            let ahead = self.ahead.as_mut()?;
            if let Some(part) = &ahead.pending {
                if part.start == at {
                    self.parts_taken += 1;
                    return ahead.pending.take();
                }
                if part.start > at {
                    return None;
                }
                ahead.pending = None;
            }
            if ahead.owed == 0 {
                return None;
            }
            match ahead.thread.parts.recv() {
                Ok(part) => {
                    ahead.pending = part;
                    ahead.owed -= 1;
                }
                // The read-ahead thread is gone: go on alone.
                Err(_) => self.ahead = None,
            }
        }
    }

    /// Hands a part's emptied columns back to the read-ahead thread to fill again.
    fn recycle(&mut self, mut trace: RawTrace) {
        if let Some(ahead) = &self.ahead {
            trace.clear();
            // A full queue or a finished thread: then the columns are just dropped.
            let _ = ahead.thread.spare.try_send(trace);
        }
    }

    /// Where document offset `offset` lies in `buf`, if it is there.
    fn position_of(&self, offset: u64) -> Option<usize> {
        let relative = usize::try_from(offset.checked_sub(self.base)?).ok()?;
        let pos = self.start.checked_add(relative)?;
        (pos <= self.buf.len()).then_some(pos)
    }

    fn unexpected(&self, got: Option<u8>, wanted: &str) -> Problem {
        let message = match got {
            None => format!("unexpected end of input, expected {wanted} (is the file truncated?)"),
            Some(b) => format!("unexpected '{}', expected {wanted}", b as char),
        };
        Problem::Json {
            offset: self.offset(),
            message,
        }
    }

    /// Makes the whole next value available at `buf[pos..pos+len]`.
    fn value(&mut self) -> Result<(u64, usize), Problem> {
        if self.peek()?.is_none() {
            return Err(self.unexpected(None, "a value"));
        }
        // The scan goes on where it stopped as chunks arrive (`fill` keeps the
        // value's bytes in place from `pos`), so a value over many chunks costs
        // one pass, not one per chunk.
        let mut scan = ScanState::default();
        loop {
            match scan.resume(&self.buf[self.pos..], self.eof) {
                Scan::Complete(len) => return Ok((self.offset(), len)),
                Scan::NeedMore => {
                    if !self.fill()? {
                        if let Scan::Complete(len) = scan.resume(&self.buf[self.pos..], true) {
                            return Ok((self.offset(), len));
                        }
                        return Err(self.unexpected(None, "the rest of a value"));
                    }
                }
            }
        }
    }

    /// Reads `"key":` and returns the key.
    fn key(&mut self) -> Result<String, Problem> {
        match self.peek()? {
            Some(b'"') => {}
            other => return Err(self.unexpected(other, "a quoted key")),
        }
        let (offset, len) = self.value()?;
        let text = &self.buf[self.pos..self.pos + len];
        let key: String = serde_json::from_slice(text).map_err(|e| json_error(offset, text, &e))?;
        self.pos += len;
        match self.peek()? {
            Some(b':') => self.pos += 1,
            other => return Err(self.unexpected(other, "':' after a key")),
        }
        Ok(key)
    }

    fn events(&mut self, sink: &mut impl EventSink) -> Result<(), Problem> {
        match self.peek()? {
            Some(b'[') => self.pos += 1,
            Some(_) => return Err(Problem::NotATrace("traceEvents is not an array".into())),
            None => return Err(self.unexpected(None, "the traceEvents array")),
        }
        if self.peek()? == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        let mut index = 0u64;
        loop {
            if self.peek()?.is_none() {
                return Err(self.unexpected(None, "a value"));
            }
            let at = self.offset();
            let ahead = self
                .take_part(at)
                .and_then(|part| Some((self.position_of(part.end)?, part)));
            if let Some((end, part)) = ahead {
                let events = part.trace.len() as u64;
                sink.splice(index, at, &part.trace)?;
                self.recycle(part.trace);
                self.pos = end;
                index += events;
            } else {
                let read = sink.event_prefix(index, at, &self.buf[self.pos..])?;
                if let Some(len) = read {
                    self.pos += len;
                } else {
                    let (offset, len) = self.value()?;
                    sink.event(index, offset, &self.buf[self.pos..self.pos + len])?;
                    self.pos += len;
                }
                index += 1;
            }
            match self.peek()? {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                other => return Err(self.unexpected(other, "',' or ']' between events")),
            }
        }
    }
}

/// Where a scan for the end of one value stands: how far it got, and inside how
/// many brackets and whether inside a string there. Rescanning from the value's
/// start at every chunk made a value over n chunks cost n passes (a 64 MB
/// string took seconds, a gigabyte one would take hours).
#[derive(Default)]
struct ScanState {
    at: usize,
    depth: usize,
    in_string: bool,
}

impl ScanState {
    /// Finds where the JSON value at the start of `bytes` ends, without decoding
    /// it, going on from where the last call on the same value stopped (`bytes`
    /// then starts with the same value and runs further).
    ///
    /// Only brackets and strings are tracked; whether the value is valid JSON is
    /// left to the decoder that reads it next.
    fn resume(&mut self, bytes: &[u8], at_eof: bool) -> Scan {
        match bytes.first() {
            None => Scan::NeedMore,
            Some(b'{' | b'[' | b'"') => self.nested(bytes),
            Some(_) => {
                let from = self.at.min(bytes.len());
                let end = bytes[from..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'));
                self.at = bytes.len();
                match end {
                    Some(n) => Scan::Complete(from + n),
                    None if at_eof => Scan::Complete(bytes.len()),
                    None => Scan::NeedMore,
                }
            }
        }
    }

    /// A string, array or object: ends where its outermost bracket or quote closes.
    fn nested(&mut self, bytes: &[u8]) -> Scan {
        let mut i = self.at;
        while i < bytes.len() {
            if self.in_string {
                match bytes[i] {
                    // May step past the end: the escaped byte opens the next chunk.
                    b'\\' => i += 2,
                    b'"' => {
                        self.in_string = false;
                        i += 1;
                        if self.depth == 0 {
                            return Scan::Complete(i);
                        }
                    }
                    _ => i += 1,
                }
                continue;
            }
            match bytes[i] {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    // The value opens with a bracket, so depth is at least 1 here.
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Scan::Complete(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.at = i;
        Scan::NeedMore
    }
}

/// [`ScanState::resume`] of a fresh scan.
#[cfg(test)]
fn scan_value(bytes: &[u8], at_eof: bool) -> Scan {
    ScanState::default().resume(bytes, at_eof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_nested_values_with_tricky_strings() {
        let text = br#"{"a": "x}\"]", "b": [1, {"c": 2}]} tail"#;
        match scan_value(text, false) {
            Scan::Complete(n) => assert_eq!(&text[n..], b" tail"),
            Scan::NeedMore => panic!("value is complete"),
        }
        assert!(matches!(
            scan_value(br#"{"a": [1, 2"#, false),
            Scan::NeedMore
        ));
        assert!(matches!(scan_value(b"123", false), Scan::NeedMore));
        assert!(matches!(scan_value(b"123", true), Scan::Complete(3)));
    }

    #[test]
    fn a_scan_resumed_chunk_by_chunk_ends_where_a_whole_scan_does() {
        let text = br#"{"a": "x}\"]", "b": [1, {"c": "\\"}], "d": "]"} tail"#;
        let whole = match scan_value(text, false) {
            Scan::Complete(n) => n,
            Scan::NeedMore => panic!("value is complete"),
        };
        // Every way to cut it in two, escapes and quotes included.
        for cut in 1..whole {
            let mut scan = ScanState::default();
            assert!(matches!(scan.resume(&text[..cut], false), Scan::NeedMore));
            match scan.resume(text, false) {
                Scan::Complete(n) => assert_eq!(n, whole, "cut at {cut}"),
                Scan::NeedMore => panic!("cut at {cut}: value is complete"),
            }
        }
        let mut scan = ScanState::default();
        assert!(matches!(scan.resume(b"12", false), Scan::NeedMore));
        assert!(matches!(scan.resume(b"1234,", false), Scan::Complete(4)));
    }

    #[test]
    fn byte_of_counts_lines() {
        let text = b"ab\ncd\nef";
        assert_eq!(byte_of(text, 1, 2), 1);
        assert_eq!(byte_of(text, 3, 1), 6);
    }
}
