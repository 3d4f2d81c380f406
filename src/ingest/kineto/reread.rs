//! Reading the events' `args` back from the trace file when a query asks for them.
//!
//! `events.args` is the largest column by far (27 MB of the 55 MB benchmark
//! trace, half of everything a load holds) and no shipped report reads it. So a
//! load of a file keeps only where each event's args lie in the decompressed
//! document, and [`ArgsInFile::read`] reads them back, in one pass over the file,
//! when a query's plan includes the column (`SELECT args FROM events`, an export).
//! Standard input cannot be read twice: its args are held from the one read (see
//! [`crate::ingest::RawTrace::hold_all_args`]).
//!
//! The file must be the one that was loaded: its size, modification time and
//! (on Unix) inode are compared first, and every value read back must be an
//! object, so a file replaced or rewritten since gives an error, never wrong text.

use std::time::SystemTime;

use crate::ingest::error::{IngestError, Problem};
use crate::ingest::source::{self, HEADROOM};
use crate::ingest::trace::{ArgsText, Bits, Offsets, ARGS_TOO_LARGE};

/// What identifies a file's content without reading it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Device and inode: a file replaced by another of the same size and time.
    inode: Option<(u64, u64)>,
}

impl FileStamp {
    /// The stamp of `path` if it is a regular file, which can be read again;
    /// None for standard input (`-`), pipes and other streams.
    pub fn of(path: &str) -> Option<FileStamp> {
        if path == "-" {
            return None;
        }
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            Some((meta.dev(), meta.ino()))
        };
        #[cfg(not(unix))]
        let inode = None;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

/// Where every event's args lie in a trace file: row `i` is the event with uid `i`.
pub struct ArgsInFile {
    path: String,
    stamp: FileStamp,
    /// Document offset of each event's args; length 0 for an event without.
    at: Positions,
    len: Vec<u32>,
}

/// The args' document offsets, in 32 bits while every offset fits (a
/// decompressed document under 4 GiB): held for the whole session, they are
/// 30 MB as 64-bit values on the 1 GB benchmark trace, 15 MB as 32-bit ones.
enum Positions {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Positions {
    fn new(at: Vec<u64>) -> Positions {
        // Checked first, then mapped from a slice: the Vec is allocated at its
        // exact length (a collect into Option<Vec> grows by doubling and could
        // hold as much as the 64-bit Vec it replaces).
        if at.iter().all(|&a| u32::try_from(a).is_ok()) {
            Positions::Narrow(at.iter().map(|&a| a as u32).collect())
        } else {
            Positions::Wide(at)
        }
    }

    fn get(&self, row: usize) -> u64 {
        match self {
            Positions::Narrow(at) => u64::from(at[row]),
            Positions::Wide(at) => at[row],
        }
    }

    fn memory_size(&self) -> usize {
        match self {
            Positions::Narrow(at) => at.capacity() * 4,
            Positions::Wide(at) => at.capacity() * 8,
        }
    }
}

impl std::fmt::Debug for ArgsInFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "args of {} events in {}", self.rows(), self.path)
    }
}

impl ArgsInFile {
    pub fn new(path: &str, stamp: FileStamp, at: Vec<u64>, len: Vec<u32>) -> ArgsInFile {
        ArgsInFile {
            path: path.to_string(),
            stamp,
            at: Positions::new(at),
            len,
        }
    }

    /// The trace file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Number of events.
    pub fn rows(&self) -> usize {
        self.len.len()
    }

    /// Bytes of memory these positions take.
    pub fn memory_size(&self) -> usize {
        self.at.memory_size() + self.len.capacity() * 4
    }

    /// Reads every event's args text from the file, in one pass.
    pub fn read(&self) -> Result<ArgsText, IngestError> {
        let fail = |problem| IngestError::new(&self.path, problem);
        let changed = || {
            fail(Problem::Read(
                "the file changed since it was loaded; load it again to read events.args".into(),
            ))
        };
        if FileStamp::of(&self.path).as_ref() != Some(&self.stamp) {
            return Err(changed());
        }
        let total: usize = self.len.iter().map(|&l| l as usize).sum();
        if i32::try_from(total).is_err() {
            return Err(fail(Problem::Read(ARGS_TOO_LARGE.into())));
        }
        let (mut stream, _) =
            source::open(&self.path, false, false, source::CHUNK).map_err(fail)?;
        let mut copy = Copier::new(self, total);
        let mut chunk_start = 0u64;
        while !copy.finished() {
            let Some(source::Chunk { buffer: chunk, .. }) = stream.next_chunk().map_err(fail)?
            else {
                break;
            };
            let json = &chunk[HEADROOM..];
            copy.take(chunk_start, json).map_err(|()| changed())?;
            chunk_start += json.len() as u64;
            stream.recycle(chunk);
        }
        copy.into_text().ok_or_else(changed)
    }
}

/// Copies the args ranges out of the document's chunks as they stream past.
struct Copier<'a> {
    args: &'a ArgsInFile,
    text: Vec<u8>,
    offsets: Vec<i32>,
    valid: Bits,
    /// The row being copied, and how many of its bytes are copied already.
    row: usize,
    done: u64,
}

impl<'a> Copier<'a> {
    fn new(args: &'a ArgsInFile, total: usize) -> Self {
        let mut offsets = Vec::with_capacity(args.rows() + 1);
        offsets.push(0);
        let mut copier = Copier {
            args,
            text: Vec::with_capacity(total),
            offsets,
            valid: Bits::default(),
            row: 0,
            done: 0,
        };
        copier.skip_rows_without_args();
        copier
    }

    fn finished(&self) -> bool {
        self.row == self.args.rows()
    }

    /// Ends the current row (its text complete, or NULL).
    fn end_row(&mut self, has_args: bool) {
        // `total` was checked to fit an i32 before copying began.
        self.offsets.push(self.text.len() as i32);
        self.valid.push(has_args);
        self.row += 1;
        self.done = 0;
    }

    fn skip_rows_without_args(&mut self) {
        while !self.finished() && self.args.len[self.row] == 0 {
            self.end_row(false);
        }
    }

    /// Copies what `json` (the document from offset `start` on) holds of the
    /// rows still to copy. Err: the positions do not fit the document.
    fn take(&mut self, start: u64, json: &[u8]) -> Result<(), ()> {
        let end = start + json.len() as u64;
        while !self.finished() {
            let (at, len) = (
                self.args.at.get(self.row),
                u64::from(self.args.len[self.row]),
            );
            let from = at + self.done;
            if from >= end {
                return Ok(());
            }
            let from = from.checked_sub(start).ok_or(())? as usize;
            let to = ((at + len).min(end) - start) as usize;
            self.text.extend_from_slice(&json[from..to]);
            self.done += (to - from) as u64;
            if self.done < len {
                return Ok(());
            }
            let value = &self.text[self.text.len() - len as usize..];
            if value.first() != Some(&b'{') || value.last() != Some(&b'}') {
                return Err(());
            }
            self.end_row(true);
            self.skip_rows_without_args();
        }
        Ok(())
    }

    /// The text, if every row was copied and it is UTF-8 (as it was when loaded).
    fn into_text(self) -> Option<ArgsText> {
        if !self.finished() {
            return None;
        }
        Some(ArgsText {
            text: String::from_utf8(self.text).ok()?,
            offsets: Offsets(self.offsets),
            valid: self.valid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Positions;

    #[test]
    fn offsets_are_held_in_32_bits_until_one_passes_4_gib() {
        let small = Positions::new(vec![0, 17, u64::from(u32::MAX)]);
        assert!(matches!(small, Positions::Narrow(_)));
        assert_eq!(
            [small.get(0), small.get(1), small.get(2)],
            [0, 17, u64::from(u32::MAX)]
        );
        assert_eq!(small.memory_size(), 3 * 4);

        let past = u64::from(u32::MAX) + 1;
        let large = Positions::new(vec![5, past]);
        assert!(matches!(large, Positions::Wide(_)));
        assert_eq!([large.get(0), large.get(1)], [5, past]);
    }
}
