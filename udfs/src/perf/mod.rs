//! Perf models: FLOPs, bytes moved and `param:` values of one op instance, from its
//! trace arguments (spec §7).
//!
//! Each model is a plain function `fn(&OpArgs, Semantics) -> Result<Perf, ModelError>`
//! in the file of its family ([`gemm`], [`conv`], [`sdpa`], [`elementwise`],
//! [`reduce`], [`norm`], [`triton`], [`other`]). Resolution is by exact op name
//! through the reference's op → class map (`registry.rs`, spec Appendix A), then by
//! the `triton_{poi,red,per}_` prefix; [`MODELS`] maps a class to its function.
//! Adding a model is one function, one [`MODELS`] row and one test.
//!
//! Three semantics ([`Semantics`]): `TraceLens` reproduces the reference's numbers,
//! quirks included; `BugFixes` fixes exactly the reference's four counting bugs
//! ([`Fix::BUGS`]: convolution bias never counted, reduce output size always 1,
//! the batch-norm training flag always true, causal attention with `N_Q != N_KV`
//! dropped) and keeps every other number, which is what the perf sheets report;
//! `Corrected` fixes every quirk we know of ([`Fix`], and each model's doc lists
//! its switches). Param keys and their order are the same in all three, so rows
//! can be compared key by key.
//!
//! ```
//! use tracesql_udfs::perf::{compute, RawArgs, Semantics};
//! let raw = RawArgs {
//!     input_dims: Some("[[512], [141, 512], [512, 512], [], []]"),
//!     input_types: Some(r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]"#),
//!     input_strides: Some("[[1], [512, 1], [1, 512], [], []]"),
//!     concrete_inputs: Some(r#"["", "", "", "1", "1"]"#),
//!     kernel_names: &[],
//! };
//! let perf = compute("aten::addmm", &raw, Semantics::TraceLens).unwrap().unwrap();
//! assert_eq!(perf.flops, 73_996_800.0);
//! assert_eq!(perf.bytes, Some(814_080.0));
//! assert_eq!(perf.compute_spec.as_deref(), Some("matrix_bf16"));
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;

pub mod args;
pub mod conv;
pub mod dtype;
pub mod elementwise;
pub mod gemm;
pub mod norm;
pub mod other;
pub mod reduce;
pub mod registry;
pub mod sdpa;
pub mod sheet;
pub mod triton;
pub mod udf;
pub mod value;

pub use args::{OpArgs, RawArgs};
pub use value::{params_dict_repr, ParamValue};

/// Which numbers a model reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Semantics {
    /// The reference's numbers, quirks included (spec §7, §11 items 8–13).
    #[default]
    TraceLens,
    /// The reference's numbers with exactly its four counting bugs fixed
    /// ([`Fix::BUGS`]); what tracesql's perf sheets report.
    BugFixes,
    /// Every quirk fixed ([`Fix`]); see each model's doc for what changes.
    Corrected,
}

impl Semantics {
    /// `'tracelens'`, `'bugfixes'` or `'corrected'` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "tracelens" => Some(Semantics::TraceLens),
            "bugfixes" => Some(Semantics::BugFixes),
            "corrected" => Some(Semantics::Corrected),
            _ => None,
        }
    }

    /// Whether these semantics are `Corrected` (every fix applied).
    pub fn is_corrected(self) -> bool {
        self == Semantics::Corrected
    }

    /// Whether these semantics apply `fix`: never for `TraceLens`, the four bugs
    /// for `BugFixes`, always for `Corrected`.
    pub fn fixes(self, fix: Fix) -> bool {
        match self {
            Semantics::TraceLens => false,
            Semantics::BugFixes => fix.is_bug(),
            Semantics::Corrected => true,
        }
    }
}

/// One quirk of the reference's perf models that tracesql can fix.
///
/// The first four ([`Fix::BUGS`]) are counting bugs: the reference's own code
/// means to count something and fails to (spec §11 items 8–11). The others are
/// modelling choices of the reference that `Corrected` replaces by a better
/// model; `BugFixes` keeps them, so its numbers are the reference's everywhere
/// else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fix {
    /// `aten::convolution` tests `len(Input Dims) == 3` for its bias, but the op
    /// always records 9 inputs, so the bias is never counted; likewise the bias
    /// of `aten::convolution_backward` (§11 item 8). Fixed: counted when present.
    ConvBias,
    /// Non-cumulative reduces look for `dim`/`keepdim` as Python values among
    /// the concrete inputs, which are strings, so the output always has 1
    /// element (§11 item 9). Fixed: the reduced shape.
    ReduceOutputSize,
    /// Batch norm (and instance norm, which parses it the same way) takes
    /// `is_training = bool(string)`, so `"False"` is training (§11 item 11).
    /// Fixed: the flag is parsed.
    NormTrainingFlag,
    /// Causal attention with `N_Q != N_KV` raises, dropping the instance (§11
    /// item 10). Fixed: the causal mask's share of the score matrix.
    CausalUnequalLengths,
    /// SDPA forward bytes use 2 bytes per element whatever the dtype.
    SdpaBytesDtype,
    /// Norm `is_affine`/`has_bias` test `Input Dims[i] is not None`, always true;
    /// the batch-norm backward ignores its `output_mask` and takes cudnn/miopen
    /// backward as not training.
    NormArgs,
    /// A norm input dtype of unknown size fails the instance instead of leaving
    /// bytes unknown.
    NormUnknownDtype,
    /// `upsample_nearest` without `output_size` fails instead of using the scale
    /// factors.
    UpsampleScaleFactors,
    /// Triton kernels count 0 bytes for dtypes outside the C10 size table and
    /// report the dtype suffix as precision (`vector_bfloat16`).
    TritonDtypes,
}

impl Fix {
    /// The reference's counting bugs: what `BugFixes` fixes.
    pub const BUGS: [Fix; 4] = [
        Fix::ConvBias,
        Fix::ReduceOutputSize,
        Fix::NormTrainingFlag,
        Fix::CausalUnequalLengths,
    ];

    /// Whether this is one of [`Fix::BUGS`].
    pub fn is_bug(self) -> bool {
        Fix::BUGS.contains(&self)
    }
}

/// Forward metrics (`flops()`/`bytes()`) or backward ones (`flops_bwd()`/`bytes_bwd()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    #[default]
    Fwd,
    Bwd,
}

impl Direction {
    /// `'fwd'` or `'bwd'` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "fwd" => Some(Direction::Fwd),
            "bwd" => Some(Direction::Bwd),
            _ => None,
        }
    }
}

/// Why a model gives no numbers for an instance.
///
/// The variants matter downstream because the reference treats them differently
/// (spec §8.5, §8.6): every error drops the instance from a perf sheet, but in
/// `unified_perf_summary` a `NotImplemented` row is dropped while an `Invalid` row
/// stays with empty metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The reference raises `NotImplementedError` (e.g. the backward of `aten::mm`,
    /// `aten::instance_norm_backward`, a Triton kernel's backward).
    NotImplemented(String),
    /// Any other failure the reference would hit (`KeyError`, `ValueError`, ...):
    /// missing or ill-typed args, mixed conv dtypes, unbroadcastable shapes, causal
    /// attention with `N_Q != N_KV`.
    Invalid(String),
    /// The model's `can_model` test fails (TritonCompiled without usable args): the
    /// reference then treats the op as having no model at all.
    CannotModel(String),
    /// The reference has a model for this class but tracesql does not implement it
    /// (extension ops, ops needing state across events). Not a reference outcome.
    Unsupported(String),
}

impl ModelError {
    /// The prefix of [`fmt::Display`]: `not_implemented`, `invalid`,
    /// `cannot_model` or `unsupported`.
    pub fn kind(&self) -> &'static str {
        match self {
            ModelError::NotImplemented(_) => "not_implemented",
            ModelError::Invalid(_) => "invalid",
            ModelError::CannotModel(_) => "cannot_model",
            ModelError::Unsupported(_) => "unsupported",
        }
    }

    fn reason(&self) -> &str {
        match self {
            ModelError::NotImplemented(r)
            | ModelError::Invalid(r)
            | ModelError::CannotModel(r)
            | ModelError::Unsupported(r) => r,
        }
    }
}

impl fmt::Display for ModelError {
    /// `kind: reason`, e.g. `invalid: Input Dims has no index 2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.reason())
    }
}

impl std::error::Error for ModelError {}

/// FLOPs and bytes of one direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Floating-point operations (integer counts converted to f64 at the end, as
    /// Python's `int / 1e9` does).
    pub flops: f64,
    /// Bytes moved; `None` when a dtype has no known size.
    pub bytes: Option<f64>,
}

/// The model's view of one op instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Perf {
    /// The reference's class name (`aten_addmm`, `LayerNorm`, ...).
    pub model_class: &'static str,
    /// Forward FLOPs (`flops()`).
    pub flops: f64,
    /// Forward bytes (`bytes()`), `None` when a dtype size is unknown.
    pub bytes: Option<f64>,
    /// Backward metrics (`flops_bwd()`/`bytes_bwd()`), or why there are none
    /// (`NotImplemented` where the reference raises it, `Invalid` where the class has
    /// no backward method at all).
    pub backward: Result<Metrics, ModelError>,
    /// `maf_precision`, e.g. `matrix_bf16`; `None` prints as an empty cell.
    pub compute_spec: Option<String>,
    /// `param_details`, in the reference's key order.
    pub params: Vec<(String, ParamValue)>,
}

impl Perf {
    /// A forward-only result; the model sets `backward` and `compute_spec` after.
    pub(crate) fn new(flops: f64, bytes: Option<f64>, params: Vec<(String, ParamValue)>) -> Self {
        Self {
            model_class: "",
            flops,
            bytes,
            backward: Err(ModelError::Invalid(
                "the model class has no backward method".into(),
            )),
            compute_spec: None,
            params,
        }
    }

    pub(crate) fn with_backward(mut self, backward: Result<Metrics, ModelError>) -> Self {
        self.backward = backward;
        self
    }

    pub(crate) fn with_compute_spec(mut self, spec: Option<String>) -> Self {
        self.compute_spec = spec;
        self
    }

    /// The metrics of `direction`.
    pub fn metrics(&self, direction: Direction) -> Result<Metrics, ModelError> {
        match direction {
            Direction::Fwd => Ok(Metrics {
                flops: self.flops,
                bytes: self.bytes,
            }),
            Direction::Bwd => self.backward.clone(),
        }
    }

    /// Backward FLOPs, when the model has a backward.
    pub fn flops_bwd(&self) -> Option<f64> {
        self.backward.as_ref().ok().map(|m| m.flops)
    }

    /// Backward bytes, when the model has a backward and the dtype size is known.
    pub fn bytes_bwd(&self) -> Option<f64> {
        self.backward.as_ref().ok().and_then(|m| m.bytes)
    }

    /// The value of param `key`.
    pub fn param(&self, key: &str) -> Option<&ParamValue> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The params as a Python dict: the unified sheet's `perf_params` cell.
    pub fn params_repr(&self) -> String {
        params_dict_repr(&self.params)
    }
}

/// `(key, value)` for a params list.
pub(crate) fn param(key: &str, value: impl Into<ParamValue>) -> (String, ParamValue) {
    (key.to_string(), value.into())
}

/// A model function.
pub type ModelFn = fn(&OpArgs, Semantics) -> Result<Perf, ModelError>;

/// The class of Triton kernels launched by torch.compile (§7.9).
pub const TRITON_CLASS: &str = "TritonCompiledPerfModel";

/// Model class → function. Classes of the map without a row here are
/// [`ModelError::Unsupported`].
pub static MODELS: &[(&str, ModelFn)] = &[
    // GEMM (§7.4)
    ("aten_mm", gemm::aten_mm),
    ("aten_addmm", gemm::aten_addmm),
    ("aten_scaled_mm", gemm::aten_scaled_mm),
    ("aten_bmm", gemm::aten_bmm),
    ("aten_baddbmm", gemm::aten_baddbmm),
    ("tev2_pseudo_gemm", gemm::tev2_pseudo_gemm),
    ("tex_ts_te_gemm_ts", gemm::tex_ts_te_gemm_ts),
    // CONV (§7.5)
    ("aten_conv", conv::aten_conv),
    ("aten_conv_bwd", conv::aten_conv_bwd),
    ("ConvBias_", conv::conv_bias),
    ("ConvBiasReLU_", conv::conv_bias),
    // SDPA (§7.6)
    (
        "aten__scaled_dot_product_flash_attention",
        sdpa::aten_sdpa_flash,
    ),
    (
        "aten__scaled_dot_product_efficient_attention",
        sdpa::aten_sdpa_efficient,
    ),
    (
        "aten__scaled_dot_product_cudnn_attention",
        sdpa::aten_sdpa_efficient,
    ),
    ("flash_attention", sdpa::flash_attention),
    ("flash_attention_backward", sdpa::flash_attention_backward),
    (
        "flash_attention_varlen_forward",
        sdpa::flash_attention_varlen_forward,
    ),
    (
        "flash_attention_varlen_backward",
        sdpa::flash_attention_varlen_backward,
    ),
    ("aiter__flash_attn_forward", sdpa::aiter_flash_attn_forward),
    (
        "aiter__flash_attn_backward",
        sdpa::aiter_flash_attn_backward,
    ),
    ("aiter__fmha_v3_forward", sdpa::aiter_wrapper_fmha_v3_fwd),
    ("aiter__fmha_v3_backward", sdpa::aiter_wrapper_fmha_v3_bwd),
    ("aiter__mha_fwd", sdpa::aiter_mha_fwd),
    ("aiter__fmha_v3_fwd", sdpa::aiter_mha_fwd),
    ("aiter__mha_bwd", sdpa::aiter_mha_bwd),
    ("flash_attn_v3_forward", sdpa::flash_attn_v3_forward),
    ("evoformer_attention", sdpa::evoformer_attention),
    // Elementwise (§7.7)
    ("aten_unary_elementwise", elementwise::aten_unary),
    ("aten_replication_pad", elementwise::aten_replication_pad),
    ("aten_upsample_nearest", elementwise::aten_upsample_nearest),
    ("aten_binary_elementwise", elementwise::aten_binary),
    ("liger_silu_mul_function", elementwise::liger_silu_mul),
    // Reduce (§7.8)
    ("aten_reduce", reduce::aten_reduce),
    // Normalization (§7.10)
    ("BatchNorm", norm::batch_norm),
    ("BatchNormBwd", norm::batch_norm_bwd),
    ("LayerNorm", norm::layer_norm),
    ("LayerNormBwd", norm::layer_norm_bwd),
    ("GroupNorm", norm::group_norm),
    ("GroupNormBwd", norm::group_norm_bwd),
    ("InstanceNorm", norm::instance_norm),
    ("InstanceNormBwd", norm::instance_norm_bwd),
    ("RMSNorm", norm::rms_norm),
    ("RMSNormBwd", norm::rms_norm_bwd),
    ("FusedLnModulate", norm::fused_ln_modulate),
    ("FusedLnModulateBackward", norm::fused_ln_modulate_bwd),
    // Other built-in models (§7.11)
    ("moe_dispatch", other::moe_comm),
    ("moe_combine", other::moe_comm),
    ("causal_conv1d_fwd", other::causal_conv1d_fwd),
    ("fused_rope_fwd", other::fused_rope_fwd),
    ("cross_entropy_fwd", other::cross_entropy_fwd),
    // TritonCompiled (§7.9), resolved by name prefix
    (TRITON_CLASS, triton::triton_compiled),
];

static OP_INDEX: LazyLock<HashMap<&'static str, &'static str>> = LazyLock::new(|| {
    let mut index = HashMap::new();
    for (op, class) in registry::model_classes() {
        // A name listed twice keeps its first class, like the reference's map.
        index.entry(op).or_insert(class);
    }
    index
});

static MODEL_INDEX: LazyLock<HashMap<&'static str, ModelFn>> =
    LazyLock::new(|| MODELS.iter().copied().collect());

/// The model class of op `name` (the reference's `resolve`, §7.1): the exact name
/// in the op → class map, else [`TRITON_CLASS`] for `triton_poi_`/`triton_red_`/
/// `triton_per_` names, else `None`.
pub fn resolve(name: &str) -> Option<&'static str> {
    if let Some(class) = OP_INDEX.get(name) {
        return Some(class);
    }
    let triton = ["triton_poi_", "triton_red_", "triton_per_"];
    triton
        .iter()
        .any(|prefix| name.starts_with(prefix))
        .then_some(TRITON_CLASS)
}

/// Whether tracesql implements the model of `class`.
pub fn is_implemented(class: &str) -> bool {
    MODEL_INDEX.contains_key(class)
}

/// Runs the model of op `name` on its raw args. `None` when the name has no model.
pub fn compute(
    name: &str,
    raw: &RawArgs,
    semantics: Semantics,
) -> Option<Result<Perf, ModelError>> {
    let class = resolve(name)?;
    Some(compute_class(class, name, raw, semantics))
}

fn compute_class(
    class: &'static str,
    name: &str,
    raw: &RawArgs,
    semantics: Semantics,
) -> Result<Perf, ModelError> {
    let Some(model) = MODEL_INDEX.get(class) else {
        return Err(ModelError::Unsupported(format!(
            "tracesql has no implementation of the {class} model ({name})"
        )));
    };
    let op = OpArgs::parse(name, raw)?;
    let mut perf = model(&op, semantics)?;
    perf.model_class = class;
    Ok(perf)
}

#[cfg(test)]
mod tests;
