//! Errors raised while reading a trace file.

use std::fmt;

/// Everything that can go wrong turning a file into a [`crate::ingest::RawTrace`].
///
/// Every variant renders as one line that starts with the file it concerns, so the
/// CLI can print it as is.
#[derive(Debug, thiserror::Error)]
pub struct IngestError {
    /// The input as the user named it (`-` for standard input).
    pub source_name: String,
    /// What is wrong, in words.
    pub problem: Problem,
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source_name, self.problem)
    }
}

/// The kinds of bad input we recognise.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("cannot open: {0}")]
    Open(std::io::Error),
    #[error("cannot read: {0}")]
    Read(String),
    #[error("truncated or corrupt gzip data: {0}")]
    Gzip(String),
    #[error("bad zip archive: {0}")]
    Zip(String),
    /// A compressed input inflating past its limit: `ratio` times its size,
    /// and at least 16 MiB (see `source::expansion_limit`).
    #[error(
        "decompresses to more than {limit} bytes ({ratio} times its size): a decompression bomb? \
         Set {} to a larger ratio (0: no limit)",
        crate::ingest::source::MAX_EXPANSION_ENV
    )]
    Expansion { limit: u64, ratio: u64 },
    #[error("the file is empty")]
    EmptyFile,
    #[error("malformed JSON at byte {offset}: {message}")]
    Json { offset: u64, message: String },
    /// A file of a known format whose content breaks that format's rules.
    #[error("{0}")]
    Invalid(String),
    #[error("not a PyTorch profiler trace: {0}")]
    NotATrace(String),
    #[error("the trace has no events (traceEvents is empty)")]
    NoEvents,
    /// A directory given as a trace that is not a readable `tracesql export`.
    #[error("not a usable tracesql export: {0}")]
    Export(String),
    /// The caller stopped the load ([`crate::ingest::cancel`]).
    #[error("the load was interrupted")]
    Cancelled,
    #[error("event {index} at byte {offset}: {message}")]
    BadEvent {
        index: u64,
        offset: u64,
        message: String,
    },
}

impl IngestError {
    pub fn new(source_name: &str, problem: Problem) -> Self {
        IngestError {
            source_name: source_name.to_string(),
            problem,
        }
    }
}
