//! Reading PyTorch profiler (Kineto) traces into columnar Rust structures.
//!
//! `load` is the whole pipeline for one input: open and decompress (`source`), split
//! the document into events (`scan`), decode each event (`fast`, else `decode`).
//! Nothing here knows about SQL or Arrow.

mod decode;
mod error;
mod fast;
mod scan;
mod source;
mod trace;

pub use error::{IngestError, Problem};
pub use trace::{Bits, Column, EventKind, OpInputs, RawTrace, Strings};

/// Reads the trace at `path` (`-` for standard input).
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    let stream = source::open(path).map_err(fail)?;
    let mut sink = Sink(RawTrace::new(path));
    let metadata = scan::split_document(stream, &mut sink).map_err(fail)?;
    let Sink(mut trace) = sink;
    if trace.is_empty() {
        return Err(fail(Problem::NoEvents));
    }
    trace.metadata = metadata;
    trace.shrink_to_fit();
    Ok(trace)
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
        decode::push_decoded(&mut self.0, &event).map_err(|e| bad_event(index, offset, e))?;
        Ok(Some(len))
    }

    fn event(&mut self, index: u64, offset: u64, bytes: &[u8]) -> Result<(), Problem> {
        decode::push_event(&mut self.0, bytes).map_err(|e| bad_event(index, offset, e))
    }
}

fn bad_event(index: u64, offset: u64, e: decode::EventError) -> Problem {
    Problem::BadEvent {
        index,
        offset: offset + e.1,
        message: e.0,
    }
}
