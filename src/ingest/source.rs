//! Opening an input: a plain, gzip or zip file, or standard input.
//!
//! The format is told by the first bytes, not the file name, so a mis-named file
//! still loads. Decompression runs on its own thread and hands the parser chunks of
//! JSON, so inflating and parsing overlap on two cores and the whole decompressed
//! document never sits in memory at once.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

use super::error::Problem;

/// Size of the chunks the reader thread hands over (tests and fuzzing pass
/// smaller ones to [`open`], so that small documents cross many boundaries).
pub const CHUNK: usize = 1 << 20;
/// Inputs larger than this show a progress bar when stderr is a terminal.
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

/// The UTF-8 byte order mark some Windows tools write before a JSON document.
/// RFC 8259 §8.1 lets a reader skip it, and every JSON reader here does (serde
/// alone would call it a bad value).
pub const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// `text` without a byte order mark at its very start.
pub fn without_byte_order_mark(text: &[u8]) -> &[u8] {
    text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text)
}

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// Free bytes at the front of every chunk: the parser copies the unread end of
/// the previous chunk (an event cut in two) there, so the JSON stays contiguous
/// without copying whole chunks.
pub const HEADROOM: usize = 64 << 10;

/// A compressed input may inflate to this many bytes whatever its size...
const EXPANSION_FLOOR: u64 = 16 << 20;
/// ...and beyond that to this many times its own size. Real traces inflate 5
/// to 25 times. A decompression bomb (a small file inflating to gigabytes of
/// whitespace, or of empty events at some 150 bytes of memory each) is refused
/// here, before it fills the memory.
pub const DEFAULT_MAX_EXPANSION: u64 = 100;
/// The environment variable that sets the ratio (0: no limit).
pub const MAX_EXPANSION_ENV: &str = "TRACESQL_MAX_EXPANSION";

/// A stream of decompressed JSON bytes, produced on a background thread.
///
/// Each chunk is a buffer whose JSON starts at [`HEADROOM`].
pub struct JsonStream {
    chunks: Receiver<Result<Chunk, Problem>>,
    /// Read chunks go back to the reader thread for reuse, which saves it
    /// allocating, zeroing and faulting in a fresh megabyte each time.
    spent: SyncSender<Vec<u8>>,
    /// The input is a gzip or zip file.
    compressed: bool,
}

/// One chunk of the document.
pub struct Chunk {
    /// The JSON, from [`HEADROOM`] on.
    pub buffer: Vec<u8>,
    /// A copy went to the read-ahead parser, which then owes one message about
    /// it (see [`AheadChunks`]).
    pub read_ahead: bool,
}

impl JsonStream {
    /// The next chunk; None at the end.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, Problem> {
        super::cancel::check()?;
        match self.chunks.recv() {
            Ok(Ok(chunk)) => Ok(Some(chunk)),
            Ok(Err(problem)) => Err(problem),
            Err(_) => Ok(None),
        }
    }

    /// For a parser that stopped at a bad document: reads a compressed input
    /// to its end and returns the problem of the stream itself (a corrupt or
    /// truncated gzip, a decompression bomb), if any. None for plain JSON,
    /// whose bytes are what they are.
    pub fn problem_further_on(&mut self) -> Option<Problem> {
        if !self.compressed {
            return None;
        }
        loop {
            match self.next_chunk() {
                Ok(Some(chunk)) => self.recycle(chunk.buffer),
                Ok(None) => return None,
                Err(problem) => return Some(problem),
            }
        }
    }

    /// Gives a chunk back for reuse.
    pub fn recycle(&mut self, chunk: Vec<u8>) {
        // The reader may have finished or have enough; then the chunk is dropped.
        let _ = self.spent.try_send(chunk);
    }
}

/// A copy of one chunk's JSON (no headroom) and the document offset it starts at.
pub struct AheadChunk {
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// The read-ahead parser's end of the reader thread: copies of odd-numbered
/// chunks, and a way back for their buffers once decoded. A chunk whose copy
/// could not be queued (the read-ahead parser was behind) is not read ahead;
/// the main parser learns which were from [`Chunk::read_ahead`].
pub struct AheadChunks {
    pub chunks: Receiver<AheadChunk>,
    pub spent: SyncSender<Vec<u8>>,
}

/// Opens `path` (`-` for stdin) and starts decompressing it in the background,
/// in chunks of `chunk` bytes ([`CHUNK`] but in tests), with a progress bar on a
/// terminal for large inputs when `progress`.
///
/// With `read_ahead`, the reader thread also copies every odd-numbered chunk to
/// the returned [`AheadChunks`], whose receiver must then be read (or dropped):
/// the reader waits for room there before it hands the same chunk to the stream.
pub fn open(
    path: &str,
    read_ahead: bool,
    progress: bool,
    chunk: usize,
) -> Result<(JsonStream, Option<AheadChunks>), Problem> {
    let max_expansion = max_expansion()?;
    let (mut input, size): (Box<dyn ReadSeek>, Option<u64>) = if path == "-" {
        let mut all = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut all)
            .map_err(|e| Problem::Read(e.to_string()))?;
        let len = all.len() as u64;
        (Box::new(io::Cursor::new(all)), Some(len))
    } else {
        let file = File::open(path).map_err(Problem::Open)?;
        let meta = file.metadata().map_err(Problem::Open)?;
        if meta.is_dir() {
            return Err(Problem::Read("is a directory, not a trace file".into()));
        }
        // A device or a pipe: its size says nothing about what it holds, and
        // `/dev/zero` would be read forever. (Pipes fail at the seek below anyway.)
        if !meta.is_file() {
            return Err(Problem::Read(
                "not a regular file; save the trace to a file, or pipe it to standard input (`-`)"
                    .into(),
            ));
        }
        (Box::new(file), Some(meta.len()))
    };
    let container = container_of(&mut input)?;
    let inflated_limit = size
        .zip(max_expansion)
        .map(|(size, ratio)| expansion_limit(size, ratio));
    let progress = size.filter(|_| progress).and_then(progress_bar);
    let (tx, rx) = sync_channel(4);
    let (spent_tx, spent_rx) = sync_channel(CHUNKS_IN_FLIGHT);
    let (ahead_tx, ahead_rx) = sync_channel::<AheadChunk>(4);
    let (ahead_spent_tx, ahead_spent) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
    thread::spawn(move || {
        let mut numbered = 0u64;
        let mut offset = 0u64;
        let mut send = |chunk: Vec<u8>| {
            // Odd chunks go to the read-ahead parser first: the main parser waits
            // for that parser's result only once it holds the same chunk itself,
            // and only for a chunk that was queued (`Chunk::read_ahead`).
            let json = &chunk[HEADROOM..];
            let (start, len) = (offset, json.len() as u64);
            let odd = read_ahead && numbered % 2 == 1;
            numbered += 1;
            offset += len;
            let mut queued = false;
            if odd {
                let mut bytes = ahead_spent.try_recv().unwrap_or_default();
                bytes.clear();
                bytes.extend_from_slice(json);
                let copy = AheadChunk {
                    offset: start,
                    bytes,
                };
                // Never wait for the read-ahead parser: while the main parser is
                // inside one value spanning many chunks (a 16 MB string in args,
                // a long run of whitespace) it takes no parts, so the read-ahead
                // parser stops and its queue fills; waiting here would then stop
                // the chunks the main parser waits for (a deadlock). A chunk not
                // queued is simply not read ahead, and the main parser, told so,
                // does not wait for it. One that has stopped listening is no
                // loss either.
                queued = ahead_tx.try_send(copy).is_ok();
            }
            let chunk = Chunk {
                buffer: chunk,
                read_ahead: queued,
            };
            tx.send(Ok(chunk)).is_ok()
        };
        let mut chunks = Chunks {
            send: &mut send,
            spent: spent_rx,
            size: chunk.max(1),
        };
        let result = produce(
            input,
            container,
            progress.clone(),
            &mut chunks,
            inflated_limit,
        );
        if let Some(bar) = progress {
            bar.finish_and_clear();
        }
        if let Err(problem) = result {
            let _ = tx.send(Err(problem));
        }
    });
    let stream = JsonStream {
        chunks: rx,
        spent: spent_tx,
        compressed: container != Container::Plain,
    };
    let ahead = read_ahead.then_some(AheadChunks {
        chunks: ahead_rx,
        spent: ahead_spent_tx,
    });
    Ok((stream, ahead))
}

/// Chunks queued or being read at once: the channel's 4, one in each thread's hands.
const CHUNKS_IN_FLIGHT: usize = 6;

/// The reader thread's end of the chunk channels.
struct Chunks<'a> {
    /// Hands a chunk over; false once the parser has stopped listening.
    send: &'a mut dyn FnMut(Vec<u8>) -> bool,
    /// Chunks the parser is done with.
    spent: Receiver<Vec<u8>>,
    /// Bytes of JSON in a chunk.
    size: usize,
}

impl Chunks<'_> {
    /// A buffer to read a chunk into after the headroom: a spent one if any.
    fn buffer(&self) -> Vec<u8> {
        let mut chunk = self.spent.try_recv().unwrap_or_default();
        chunk.resize(HEADROOM + self.size, 0);
        chunk
    }
}

/// The expansion ratio allowed: [`MAX_EXPANSION_ENV`] if set, else
/// [`DEFAULT_MAX_EXPANSION`]; None for no limit (the variable set to 0).
fn max_expansion() -> Result<Option<u64>, Problem> {
    let Some(text) = std::env::var_os(MAX_EXPANSION_ENV) else {
        return Ok(Some(DEFAULT_MAX_EXPANSION));
    };
    match text.to_str().and_then(|t| t.trim().parse::<u64>().ok()) {
        Some(0) => Ok(None),
        Some(ratio) => Ok(Some(ratio)),
        None => Err(Problem::Read(format!(
            "{MAX_EXPANSION_ENV} must be a whole number (0 for no limit), not {text:?}"
        ))),
    }
}

/// The most bytes an input of `size` compressed bytes may inflate to, and the
/// ratio that gave it.
fn expansion_limit(size: u64, ratio: u64) -> Limit {
    Limit {
        bytes: size.saturating_mul(ratio).max(EXPANSION_FLOOR),
        ratio,
    }
}

/// How far a compressed input may inflate.
#[derive(Clone, Copy)]
struct Limit {
    bytes: u64,
    ratio: u64,
}

trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if total < PROGRESS_MIN_BYTES || !io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "loading {bar:30} {bytes}/{total_bytes} ({bytes_per_sec})",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

/// Counts raw bytes read for the progress bar.
struct Counted<R> {
    inner: R,
    bar: Option<indicatif::ProgressBar>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

/// What an input is, told by its first bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Gzip,
    Zip,
    Plain,
}

/// The container `input` is, told by its first bytes; the input is left at its
/// start.
fn container_of(input: &mut Box<dyn ReadSeek>) -> Result<Container, Problem> {
    let mut magic = [0u8; 4];
    let got = read_up_to(input, &mut magic).map_err(|e| Problem::Read(e.to_string()))?;
    input
        .seek(io::SeekFrom::Start(0))
        .map_err(|e| Problem::Read(e.to_string()))?;
    if got == 0 {
        return Err(Problem::EmptyFile);
    }
    let head = &magic[..got];
    Ok(if head.starts_with(GZIP_MAGIC) {
        Container::Gzip
    } else if head.starts_with(ZIP_MAGIC) {
        Container::Zip
    } else {
        Container::Plain
    })
}

/// Sends the decompressed bytes of `input` chunk by chunk.
fn produce(
    input: Box<dyn ReadSeek>,
    container: Container,
    bar: Option<indicatif::ProgressBar>,
    chunks: &mut Chunks,
    inflated_limit: Option<Limit>,
) -> Result<(), Problem> {
    match container {
        Container::Gzip => {
            let counted = Counted { inner: input, bar };
            let decoder =
                flate2::read::MultiGzDecoder::new(io::BufReader::with_capacity(CHUNK, counted));
            pump(decoder, chunks, inflated_limit, |e| {
                Problem::Gzip(e.to_string())
            })
        }
        Container::Zip => {
            let mut archive =
                zip::ZipArchive::new(input).map_err(|e| Problem::Zip(e.to_string()))?;
            let index = pick_zip_entry(&mut archive)?;
            let entry = archive
                .by_index(index)
                .map_err(|e| Problem::Zip(e.to_string()))?;
            let gz = entry.name().ends_with(".gz");
            let counted = Counted { inner: entry, bar };
            if gz {
                let decoder = flate2::read::MultiGzDecoder::new(counted);
                pump(decoder, chunks, inflated_limit, |e| {
                    Problem::Gzip(e.to_string())
                })
            } else {
                pump(counted, chunks, inflated_limit, |e| {
                    Problem::Zip(e.to_string())
                })
            }
        }
        // Plain JSON: its size is its own, nothing to limit.
        Container::Plain => pump(Counted { inner: input, bar }, chunks, None, |e| {
            Problem::Read(e.to_string())
        }),
    }
}

/// The one trace inside a zip: the only `.json`/`.json.gz` file in it.
fn pick_zip_entry<R: Read + Seek>(archive: &mut zip::ZipArchive<R>) -> Result<usize, Problem> {
    let candidates: Vec<(usize, String)> = (0..archive.len())
        .filter_map(|i| {
            let name = archive.name_for_index(i)?.to_string();
            let lower = name.to_ascii_lowercase();
            (lower.ends_with(".json") || lower.ends_with(".json.gz")).then_some((i, name))
        })
        .collect();
    match candidates.as_slice() {
        [] => Err(Problem::Zip("it holds no .json or .json.gz trace".into())),
        [(i, _)] => Ok(*i),
        many => Err(Problem::Zip(format!(
            "it holds {} traces ({}); extract the one you want",
            many.len(),
            // Escaped: a name may hold a line break, and errors are one line.
            many.iter()
                .map(|(_, n)| n.escape_debug().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// Reads `reader` to its end in chunks; past `limit` bytes (a compressed input
/// inflating beyond [`expansion_limit`]) it stops with an error instead.
fn pump(
    mut reader: impl Read,
    chunks: &mut Chunks,
    limit: Option<Limit>,
    on_error: impl Fn(io::Error) -> Problem,
) -> Result<(), Problem> {
    // Time spent reading and inflating, not waiting for the parser: whether the
    // parser or this thread is the bottleneck (TRACESQL_TIMINGS).
    let mut busy = crate::timing::Busy::new("  read + decompress (reader thread)");
    let mut total = 0u64;
    loop {
        let mut chunk = chunks.buffer();
        let n = busy.time(|| read_up_to(&mut reader, &mut chunk[HEADROOM..]));
        let n = n.map_err(&on_error)?;
        if n == 0 {
            return Ok(());
        }
        total += n as u64;
        if let Some(limit) = limit.filter(|limit| total > limit.bytes) {
            let (limit, ratio) = (limit.bytes, limit.ratio);
            return Err(Problem::Expansion { limit, ratio });
        }
        chunk.truncate(HEADROOM + n);
        if !(chunks.send)(chunk) {
            return Ok(());
        }
    }
}

/// The whole decompressed input of `path` (`-` for stdin) in memory, with the
/// same containers, limits and errors as [`open`]: for the readers of formats
/// that are one JSON document to deserialize (rocprofv3 JSON), not a stream
/// of events.
pub fn read_all(path: &str) -> Result<Vec<u8>, Problem> {
    let mut all = sized_for(path);
    each_chunk(path, |bytes| all.extend_from_slice(bytes))?;
    Ok(all)
}

/// Calls `take` with each piece of the decompressed input of `path`, in
/// order, with the containers, limits and errors of [`open`].
pub fn each_chunk(path: &str, mut take: impl FnMut(&[u8])) -> Result<(), Problem> {
    let (mut stream, _) = open(path, false, true, CHUNK)?;
    while let Some(chunk) = stream.next_chunk()? {
        take(&chunk.buffer[HEADROOM..]);
        stream.recycle(chunk.buffer);
    }
    Ok(())
}

/// An empty buffer with room for the decompressed input of `path` where the
/// file says how large it inflates: growing the buffer would copy the
/// document about twice over and fault in every page it passes through. A
/// hint too large is only address space (and one that cannot be reserved is
/// ignored); one too small grows as before.
pub fn sized_for(path: &str) -> Vec<u8> {
    let mut buffer = Vec::new();
    if let Some(hint) = inflated_size_hint(path) {
        let _ = buffer.try_reserve_exact(hint);
    }
    buffer
}

/// How many bytes the file at `path` holds once inflated, as its container
/// says: a gzip member's trailer (ISIZE, the size modulo 4 GiB), a plain
/// file's length. None for standard input, zip archives and unreadable files.
fn inflated_size_hint(path: &str) -> Option<usize> {
    if path == "-" {
        return None;
    }
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut magic = [0u8; 2];
    file.read_exact(&mut magic).ok()?;
    match magic {
        [0x1f, 0x8b] if len >= 18 => {
            let mut trailer = [0u8; 4];
            file.seek(io::SeekFrom::End(-4)).ok()?;
            file.read_exact(&mut trailer).ok()?;
            usize::try_from(u32::from_le_bytes(trailer)).ok()
        }
        [b'P', b'K'] => None,
        _ => usize::try_from(len).ok(),
    }
}

/// The first decompressed bytes of `path` (up to one chunk, [`CHUNK`]): enough
/// to tell the formats apart. Not for standard input, which can be read once.
pub fn first_bytes(path: &str) -> Result<Vec<u8>, Problem> {
    let (mut stream, _) = open(path, false, false, CHUNK)?;
    Ok(match stream.next_chunk()? {
        Some(chunk) => chunk.buffer[HEADROOM..].to_vec(),
        None => Vec::new(),
    })
}
