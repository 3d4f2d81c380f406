//! Reading a rocprofv3 file so that its two halves deserialize at once.
//!
//! Half of a rocprofv3 file is one array, a process's `kernel_symbols` (four
//! names of up to a kilobyte for each of thousands of kernels), and nearly all
//! the rest is its `buffer_records`. serde reads a document on one thread from
//! its start to its end; here the bytes of the first process's symbols array
//! are set apart while the file is inflated (a scan that follows the JSON
//! structure up to the end of that array, on the main thread, which would
//! otherwise wait for the inflating thread), the document keeps `[]` in its
//! place, and the array can deserialize while the rest is still being read
//! ([`Reader::read_symbols`], then [`Reader::finish`]). Joined, they are the
//! document the whole file gives; whenever the parts may not be (a malformed
//! or unusual file), the reader puts the bytes back together and reads them
//! whole, so results and errors stay those of one serde pass.

use crate::ingest::error::Problem;
use crate::ingest::source;

/// The decompressed file, with the first process's symbols array cut out.
pub struct Split {
    /// The document; `[]` stands where the symbols were cut out.
    pub doc: Vec<u8>,
    /// Where the symbols array was cut out, when it was.
    pub symbols: Option<CutAt>,
}

/// Where a `kernel_symbols` array was cut out of the document.
#[derive(Clone, Copy)]
pub struct CutAt {
    /// Where its `[]` stands in [`Split::doc`].
    pub at: usize,
    /// The index of its process in `rocprofiler-sdk-tool`.
    pub tool: usize,
}

impl Split {
    /// The file's bytes as they were, `cut` being the array cut out: for a
    /// document whose parts were not read, so that it is read whole.
    pub fn whole(&self, cut: &[u8]) -> Vec<u8> {
        match &self.symbols {
            None => self.doc.clone(),
            Some(symbols) => rejoined(&self.doc, cut, symbols.at),
        }
    }

    /// Whether the file holds nothing but whitespace.
    pub fn is_blank(&self) -> bool {
        self.symbols.is_none() && is_blank(&self.doc)
    }
}

/// Whether `text` is nothing but whitespace (after a byte order mark).
pub fn is_blank(text: &[u8]) -> bool {
    (source::without_byte_order_mark(text).iter()).all(u8::is_ascii_whitespace)
}

/// Reads a file (the containers and limits of `source::open`) in two steps,
/// so that the symbols array can be deserialized while the rest of the file
/// is still inflating: [`Reader::read_symbols`] reads up to the end of that
/// array, [`Reader::finish`] the rest.
pub struct Reader {
    stream: source::JsonStream,
    scan: Scan,
    doc: Vec<u8>,
}

impl Reader {
    pub fn open(path: &str) -> Result<Reader, Problem> {
        let (stream, _) = source::open(path, false, true, source::CHUNK)?;
        // Sized up front (see `source::sized_for`); pages never written are
        // never touched.
        Ok(Reader {
            stream,
            scan: Scan::default(),
            doc: source::sized_for(path),
        })
    }

    /// An empty buffer for the cut-out symbols, with the room the document
    /// has (the file's inflated size, where its container says it).
    pub fn cut_buffer(&self) -> Vec<u8> {
        let mut cut = Vec::new();
        let _ = cut.try_reserve_exact(self.doc.capacity());
        cut
    }

    /// Reads until the first process's symbols array has been cut out into
    /// `cut` (true), or until the scan is done or the file ends without one.
    pub fn read_symbols(&mut self, cut: &mut Vec<u8>) -> Result<bool, Problem> {
        while self.scan.mode != Mode::Done {
            let Some(chunk) = self.stream.next_chunk()? else {
                break;
            };
            self.scan
                .feed(&chunk.buffer[source::HEADROOM..], &mut self.doc, cut);
            self.stream.recycle(chunk.buffer);
        }
        Ok(self.scan.mode == Mode::Done && self.scan.cut_at.is_some())
    }

    /// Reads the rest of the file into the document. `cut` is what
    /// [`Reader::read_symbols`] filled: an array that never closed goes back
    /// into the document, to be read whole for serde's error.
    pub fn finish(mut self, cut: &[u8]) -> Result<Split, Problem> {
        // `read_symbols` stopped with the scan done, or at the end of the
        // file: what is left is document.
        while let Some(chunk) = self.stream.next_chunk()? {
            self.doc
                .extend_from_slice(&chunk.buffer[source::HEADROOM..]);
            self.stream.recycle(chunk.buffer);
        }
        let symbols = match (self.scan.mode, self.scan.cut_at) {
            (Mode::Done, Some((at, tool))) => Some(CutAt { at, tool }),
            (_, Some((at, _))) => {
                self.doc = rejoined(&self.doc, cut, at);
                None
            }
            (_, None) => None,
        };
        Ok(Split {
            doc: self.doc,
            symbols,
        })
    }
}

/// `doc` with `cut` back in place of the `[]` at `at`.
fn rejoined(doc: &[u8], cut: &[u8], at: usize) -> Vec<u8> {
    [&doc[..at], cut, &doc[at + 2..]].concat()
}

/// The first `"` or `\` in `bytes`. Strings are most of the symbols (names
/// of up to a kilobyte), so they are skipped 32 bytes at a time: a fixed-size
/// block without an early exit is compared in vector registers.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let stops = |b: &u8| *b == b'"' || *b == b'\\';
    let mut at = 0;
    for block in bytes.chunks_exact(32) {
        let Ok(block) = <&[u8; 32]>::try_from(block) else {
            break;
        };
        if block.iter().fold(false, |seen, b| seen | stops(b)) {
            break;
        }
        at += 32;
    }
    bytes[at..].iter().position(stops).map(|p| at + p)
}

/// Where the scan stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Following the structure, looking for the symbols array.
    Seeking,
    /// Inside the symbols array, which closes back at this depth.
    InSymbols(usize),
    /// Nothing more to look for: the array was cut out, or will not be.
    Done,
}

/// Keys that are compared are short; longer ones are no key we look for.
const LONGEST_KEY: usize = 32;

/// A scan of the JSON structure that can stop at any byte and go on with the
/// next chunk: strings (with their escapes) are skipped, containers counted.
/// It does not check the JSON; serde does, on the parts or on the whole.
#[derive(Debug)]
struct Scan {
    mode: Mode,
    /// The open containers, `{` or `[`.
    stack: Vec<u8>,
    in_string: bool,
    /// The string being read is a key.
    string_is_key: bool,
    /// The last byte was a backslash inside a string.
    escaped: bool,
    /// The text of the key being read, when it is one to compare (at the
    /// depth of the document's keys or of a process's keys).
    key: Option<Vec<u8>>,
    /// The last structural byte: `{`, `[`, `,`, `:`, or `v` after a value.
    last: u8,
    /// The document's current key is `rocprofiler-sdk-tool`.
    in_tools: bool,
    /// Processes opened so far in that array.
    tools: usize,
    /// The next value is a process's `kernel_symbols`.
    armed: bool,
    /// Where the array was cut: offset of its `[]` in the document, process.
    cut_at: Option<(usize, usize)>,
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            mode: Mode::Seeking,
            stack: Vec::new(),
            in_string: false,
            string_is_key: false,
            escaped: false,
            key: None,
            last: b'v',
            in_tools: false,
            tools: 0,
            armed: false,
            cut_at: None,
        }
    }
}

/// Nesting beyond this is no rocprofv3 file: the scan gives up (no cut).
const DEEPEST: usize = 256;

impl Scan {
    /// Scans one chunk, appending its bytes to the document or to the cut-out
    /// array as they belong.
    fn feed(&mut self, bytes: &[u8], doc: &mut Vec<u8>, cut: &mut Vec<u8>) {
        let mut from = 0;
        let mut i = 0;
        while i < bytes.len() && self.mode != Mode::Done {
            if self.in_string {
                i = self.string(bytes, i);
                continue;
            }
            let b = bytes[i];
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                i += 1;
                continue;
            }
            if self.armed && b != b':' {
                self.armed = false;
                if b != b'[' {
                    self.mode = Mode::Done;
                    break;
                }
                doc.extend_from_slice(&bytes[from..i]);
                self.cut_at = Some((doc.len(), self.tools - 1));
                doc.extend_from_slice(b"[]");
                from = i;
                self.mode = Mode::InSymbols(self.stack.len());
            }
            self.structural(b);
            if let Mode::InSymbols(depth) = self.mode {
                if self.stack.len() == depth {
                    cut.extend_from_slice(&bytes[from..=i]);
                    from = i + 1;
                    self.mode = Mode::Done;
                }
            }
            i += 1;
        }
        let rest = &bytes[from..];
        match self.mode {
            Mode::InSymbols(_) => cut.extend_from_slice(rest),
            _ => doc.extend_from_slice(rest),
        }
    }

    /// Skips string bytes from `i` to the closing quote; returns where the
    /// scan goes on.
    fn string(&mut self, bytes: &[u8], i: usize) -> usize {
        if self.escaped {
            self.escaped = false;
            return i + 1;
        }
        let rest = &bytes[i..];
        let Some(stop) = quote_or_backslash(rest) else {
            self.key_text(rest);
            return bytes.len();
        };
        self.key_text(&rest[..stop]);
        if rest[stop] == b'\\' {
            // An escaped key is never one we compare (serde would decode it).
            self.key = None;
            self.escaped = true;
        } else {
            self.in_string = false;
            self.end_string();
        }
        i + stop + 1
    }

    fn key_text(&mut self, text: &[u8]) {
        if let Some(key) = &mut self.key {
            if key.len() + text.len() > LONGEST_KEY {
                self.key = None;
            } else {
                key.extend_from_slice(text);
            }
        }
    }

    /// A string has closed: a key is compared, a value is a value.
    fn end_string(&mut self) {
        self.last = b'v';
        if !self.string_is_key {
            return;
        }
        let key = self.key.take();
        let key = key.as_deref();
        match self.stack.as_slice() {
            [b'{'] => self.in_tools = key == Some(b"rocprofiler-sdk-tool".as_slice()),
            [b'{', b'[', b'{'] if self.in_tools => {
                self.armed = key == Some(b"kernel_symbols".as_slice()) && self.cut_at.is_none();
            }
            _ => {}
        }
    }

    /// One byte outside strings (not whitespace).
    fn structural(&mut self, b: u8) {
        match b {
            b'"' => {
                self.in_string = true;
                let is_key = self.stack.last() == Some(&b'{') && matches!(self.last, b'{' | b',');
                self.string_is_key = is_key;
                self.key = (is_key && matches!(self.stack.len(), 1 | 3)).then(Vec::new);
            }
            b'{' | b'[' => {
                self.stack.push(b);
                if self.stack.len() > DEEPEST {
                    self.give_up();
                }
                if b == b'{' && self.in_tools && self.stack.as_slice() == b"{[{" {
                    self.tools += 1;
                }
                self.last = b;
            }
            b'}' | b']' => {
                let open = if b == b'}' { b'{' } else { b'[' };
                if self.stack.pop() != Some(open) {
                    self.give_up();
                }
                self.last = b'v';
            }
            b':' | b',' => self.last = b,
            _ => self.last = b'v',
        }
    }

    /// The structure is not what a scan can follow: no cut, or (inside the
    /// array) a cut that is never completed, so the file is read whole.
    fn give_up(&mut self) {
        if self.mode == Mode::Seeking {
            self.mode = Mode::Done;
        } else {
            self.stack.clear();
            self.stack.resize(DEEPEST + 1, b'[');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `text` in chunks of `size` bytes: the document and the cut.
    fn scan(text: &str, size: usize) -> (Split, Vec<u8>) {
        let (mut doc, mut cut, mut scan) = (Vec::new(), Vec::new(), Scan::default());
        for chunk in text.as_bytes().chunks(size) {
            scan.feed(chunk, &mut doc, &mut cut);
        }
        let symbols = match (scan.mode, scan.cut_at) {
            (Mode::Done, Some((at, tool))) => Some(CutAt { at, tool }),
            _ => None,
        };
        (Split { doc, symbols }, cut)
    }

    #[test]
    fn the_first_processs_symbols_are_cut_out_whatever_the_chunks() {
        let text = r#"{"a": "x\"kernel_symbols\": [", "rocprofiler-sdk-tool": [{"agents": []},
            {"b": {"kernel_symbols": [0]}, "kernel_symbols" : [{"n": "a]\"}\\"}, [2]], "c": 1},
            {"kernel_symbols": [1]}]}"#;
        for size in [1, 2, 3, 7, 64, text.len()] {
            let (split, bytes) = scan(text, size);
            let cut = split.symbols.as_ref().expect("a cut");
            assert_eq!(cut.tool, 1);
            assert_eq!(
                std::str::from_utf8(&bytes).unwrap(),
                r#"[{"n": "a]\"}\\"}, [2]]"#
            );
            let doc = std::str::from_utf8(&split.doc).unwrap();
            assert!(doc.contains(r#""kernel_symbols" : [], "c": 1}"#), "{doc}");
            assert!(doc.ends_with(r#"{"kernel_symbols": [1]}]}"#), "{doc}");
            assert_eq!(split.whole(&bytes), text.as_bytes());
        }
    }

    #[test]
    fn symbols_elsewhere_or_not_an_array_are_not_cut() {
        for text in [
            r#"{"other": [{"kernel_symbols": [1]}]}"#,
            r#"{"rocprofiler-sdk-tool": [{"kernel_symbols": null}]}"#,
            r#"{"rocprofiler-sdk-tool": [{"kernel_symbols": [1, {]}]}"#,
            r#"{"rocprofiler-sdk-tool": [{"kernel_symbols": [1, 2"#,
        ] {
            let (split, _) = scan(text, 5);
            assert!(split.symbols.is_none(), "{text}");
        }
    }
}
