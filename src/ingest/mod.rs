//! Reading PyTorch profiler (Kineto) traces into columnar Rust structures.
//!
//! `load` is the whole pipeline for one input: open and decompress (`source`), split
//! the document into events (`scan`), decode each event (`decode`). Nothing here
//! knows about SQL or Arrow.

mod decode;
mod error;
mod scan;
mod source;
mod trace;

pub use error::{IngestError, Problem};
pub use trace::{EventKind, OpInputs, RawTrace, Strings};

/// Reads the trace at `path` (`-` for standard input).
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    let stream = source::open(path).map_err(fail)?;
    let mut trace = RawTrace {
        source: path.to_string(),
        ..RawTrace::default()
    };
    let metadata = scan::split_document(stream, |index, offset, bytes| {
        decode::push_event(&mut trace, bytes).map_err(|e| Problem::BadEvent {
            index,
            offset: offset + e.1,
            message: e.0,
        })
    })
    .map_err(fail)?;
    if trace.is_empty() {
        return Err(fail(Problem::NoEvents));
    }
    trace.metadata = metadata;
    Ok(trace)
}
