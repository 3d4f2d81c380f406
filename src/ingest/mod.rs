//! Reading profiler traces into columnar Rust structures ([`RawTrace`]).
//!
//! One reader per input format, each in its own folder and each producing the
//! same [`RawTrace`], so everything after this module (the call tree, the
//! tables, SQL) is the same whatever the format:
//!
//! | reader | format |
//! |---|---|
//! | [`kineto`] | PyTorch profiler (Kineto) JSON: `.json`, `.json.gz`, `.zip`, stdin |
//!
//! Shared by the readers: opening and decompressing a file (`source`), the
//! decoded trace (`trace`) and the errors, which name the file (`error`). A new
//! format (rocprofv3 JSON, Perfetto JSON, JAX XPlane) is a new folder beside
//! `kineto/` and one arm in [`load`]. Nothing here knows about SQL or Arrow.

pub mod kineto;

mod error;
mod source;
mod trace;

pub use error::{IngestError, Problem};
pub use kineto::reread::{ArgsInFile, FileStamp};
pub use trace::{ArgsText, Bits, Column, EventKind, FxMap, OpInputs, RawTrace, Strings};

/// Reads the trace at `path` (`-` for standard input) with the reader of its
/// format; Kineto JSON is the one format read today.
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    kineto::load(path)
}
