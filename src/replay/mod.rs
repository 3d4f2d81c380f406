//! Replay IRs and packages: a traced op turned into a description of its call
//! (schema-matched arguments, tensor shapes, strides, dtypes, scalar values)
//! and a standalone Python script that rebuilds the inputs and times the op.
//!
//! The pipeline: [`event::OpEvent`] (the op's four recorded argument lists) →
//! the op's overloads from the shipped [`catalog`] → [`native::build`] (the
//! default: TraceLens's bugs fixed, every assumption written down) or
//! [`compat::build`] (TraceLens's IR exactly) → [`package`] (IR + script +
//! README + manifest, one deterministic zip). No torch is needed anywhere
//! here; the script needs torch where it runs.
//!
//! This module knows nothing of the SQL session: the `replay_ir` SQL function
//! (engine) and the `replay` command (reproduce) call it.

pub mod catalog;
pub mod compat;
pub mod event;
pub mod json;
pub mod native;
pub mod package;
pub mod schema;

pub use event::OpEvent;
pub use json::Json;

/// Which IR to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// TraceLens's IR, JSON-equal to its `get_repro_info()`.
    Compat,
    /// tracesql's IR: fixes, provenance, explicit assumptions.
    Native,
}

/// Whether an IR was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Refused,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Refused => "refused",
        }
    }
}

/// The result of building one op's IR.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// Why it was refused: a stable class (`no_matching_schema`,
    /// `arity_mismatch`, `unknown_type:ScalarType`, ...); None when ok.
    pub reason: Option<String>,
    /// The refusal in words (compat: TraceLens's exception text).
    pub error: Option<String>,
    /// TraceLens's `warnings.warn` texts (compat), or the native mode's
    /// assumptions, one line each.
    pub warnings: Vec<String>,
    /// `str(schema)` of the overload chosen.
    pub matched_schema: Option<String>,
    /// The IR: TraceLens's `repro_info` (compat) or the native IR entry.
    pub ir: Option<Json>,
}

/// The IR of `event` in `mode`, from the shipped catalog.
pub fn build(event: &OpEvent, mode: Mode) -> Outcome {
    let catalog = catalog::shipped();
    match mode {
        Mode::Compat => compat::build(event, catalog),
        Mode::Native => native::build(event, catalog),
    }
}

/// `aten::scaled_dot_product_attention` → `aten_scaled_dot_product_attention`:
/// a name safe in a file name (TraceLens's rule: `::`, `/` and space become `_`,
/// and anything else outside `[A-Za-z0-9._-]` too).
pub fn safe_name(name: &str) -> String {
    name.replace("::", "_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<safe op name>__<8 hex>`: a signature's id, the same for the same name
/// and argument lists (`Input type`, `Input Dims`, `Input Strides`,
/// `Concrete Inputs` as JSON text, None when absent) in any trace. Package
/// names, IR entries, the runner's results and `replay_ir.id` all use it.
pub fn signature_id(name: &str, lists: [Option<&str>; 4]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for text in std::iter::once(Some(name)).chain(lists) {
        hash.update(text.unwrap_or("\u{0}").as_bytes());
        hash.update([0xff]);
    }
    let digest = package::hex(&hash.finalize());
    format!("{}__{}", safe_name(name), &digest[..8])
}
