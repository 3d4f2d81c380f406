//! Reading profiler traces into columnar Rust structures ([`RawTrace`]).
//!
//! One reader per input format, each in its own folder and each producing the
//! same [`RawTrace`], so everything after this module (the call tree, the
//! tables, SQL) is the same whatever the format:
//!
//! | reader | format |
//! |---|---|
//! | [`kineto`] | PyTorch profiler (Kineto) JSON: `.json`, `.json.gz`, `.zip`, stdin |
//! | `rocprof` | rocprofv3 JSON (`*_results.json`) |
//! | `perfetto` | Perfetto-style JSON (rocprofv3 pftrace through traceconv) |
//! | [`xplane`] | JAX profiler XPlane protobuf (`*.xplane.pb`) |
//!
//! [`format`] tells them apart by content; what the non-Kineto formats record
//! beyond Kineto-shaped events goes to [`native`].
//!
//! Shared by the readers: opening and decompressing a file (`source`), the
//! decoded trace (`trace`), the errors, which name the file (`error`), and
//! per-event work read on a second thread and applied in order (`chunks`).
//! A new format (rocpd SQLite, Nsight Systems SQLite) is a new reader beside
//! these, a [`SourceFormat`] variant, a rule in [`format`] and one arm in
//! [`load`].
//! Nothing here knows about SQL or Arrow.

pub mod cancel;
pub mod format;
pub mod kineto;
pub mod native;
mod perfetto;
mod rocprof;
pub mod xplane;

mod chunks;
mod dump;
mod error;
mod source;
mod trace;

pub use error::{IngestError, Problem};
pub use kineto::reread::{ArgsInFile, FileStamp};
pub use native::SourceFormat;
#[doc(hidden)]
pub use perfetto::load_both_ways as perfetto_load_both_ways;
#[doc(hidden)]
pub use rocprof::load_both_ways as rocprof_load_both_ways;
pub use trace::{ArgsText, Bits, Column, EventKind, FxMap, OpInputs, RawTrace, Strings};

/// The whole decompressed document at `path` (plain, gzip or zip, with the
/// readers' size limits), for writing a trace back (`export --counters`).
pub fn read_document(path: &str) -> Result<Vec<u8>, IngestError> {
    source::read_all(path).map_err(|p| IngestError::new(path, p))
}

/// Reads the trace at `path` (`-` for standard input) with the reader of its
/// format ([`format::detect`]).
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    load_as(path, format::detect(path)?)
}

/// Reads the trace at `path` with the reader of `format`, whatever its
/// content says.
pub fn load_as(path: &str, format: SourceFormat) -> Result<RawTrace, IngestError> {
    match format {
        SourceFormat::Kineto => kineto::load(path),
        SourceFormat::Rocprofv3 => rocprof::load(path),
        SourceFormat::Pftrace => perfetto::load(path),
        SourceFormat::Jax => xplane::load(path),
    }
}
