//! tracesql: PyTorch profiler traces as SQL tables.
//!
//! The pipeline, one module per stage:
//! `ingest` (file → decoded events) → `tree` (call-tree links) → `model` (Arrow
//! tables) → `engine` (DataFusion session) → `output` (rendering); `analyze`
//! runs the rules and renders the analysis report; `export`
//! writes a Parquet dataset that `engine` can reopen in place of the trace.

pub mod analyze;
pub mod catalog;
pub mod engine;
pub mod export;
pub mod ingest;
pub mod model;
pub mod output;
pub mod repl;
pub mod report;
pub mod timing;
pub mod tree;

/// Errors at the top of the tool, each with the exit code the CLI uses.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input could not be read as a trace (exit code 2).
    #[error("{0}")]
    Input(#[from] ingest::IngestError),
    /// A query failed to parse, plan or run (exit code 1).
    #[error("query failed: {0}")]
    Query(String),
    /// Bad command-line use, e.g. an unknown table or file (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Writing the output failed (exit code 1).
    #[error("cannot write output: {0}")]
    Output(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Usage(_) => 2,
            Error::Query(_) | Error::Output(_) => 1,
        }
    }

    /// A DataFusion error as one line.
    pub fn query(e: impl std::fmt::Display) -> Self {
        Error::Query(one_line(&e.to_string()))
    }
}

/// Joins a multi-line message into one line.
pub fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}
