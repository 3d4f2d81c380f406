//! The dtype tables of spec §7.3: bytes per element and compute precision of the
//! dtype strings PyTorch's profiler writes in `Input type` (`float`,
//! `c10::BFloat16`, `long int`, ...).
//!
//! Both lookups are case-insensitive, like the reference's `name.lower()`. Unknown
//! names (`bool`, `Long`, `''`, `ScalarList`) have no entry: a model then reports
//! no bytes (empty Data Moved / FLOPS/Byte / TB/s cells) and no Compute Spec.

/// Bytes per element of a dtype string (`name2bpe`), or `None` when unknown.
///
/// ```
/// use tracesql_udfs::perf::dtype::bpe;
/// assert_eq!(bpe("c10::BFloat16"), Some(2));
/// assert_eq!(bpe("Scalar"), Some(4));
/// assert_eq!(bpe("bool"), None);
/// ```
pub fn bpe(name: &str) -> Option<i64> {
    let bytes = match name.to_ascii_lowercase().as_str() {
        "double" | "long int" => 8,
        "float" | "scalar" | "int" => 4,
        "c10::half" | "c10::bfloat16" => 2,
        "c10::float8_e4m3fnuz"
        | "c10::float8_e4m3fn"
        | "c10::float8_e5m2"
        | "c10::float8_e8m0fnu"
        | "unsigned char"
        | "signed char"
        | "fp8"
        | "c10::float4_e2m1fn_x2"
        | "fp4" => 1,
        _ => return None,
    };
    Some(bytes)
}

/// Compute precision of a dtype string (`torch_dtype_map`): `fp32`, `bf16`, ...
///
/// `c10::Float8_e5m2` has a byte size but no precision, as in the reference.
pub fn precision(name: &str) -> Option<&'static str> {
    let precision = match name.to_ascii_lowercase().as_str() {
        "float" => "fp32",
        "double" => "fp64",
        "c10::half" => "fp16",
        "c10::bfloat16" => "bf16",
        "c10::float8_e4m3fnuz" | "c10::float8_e4m3fn" | "unsigned char" | "fp8" => "fp8",
        "fp4" | "mxfp4" | "c10::float4_e2m1fn_x2" => "fp4",
        _ => return None,
    };
    Some(precision)
}

/// The MAF (multiply-accumulate function) unit a model's work runs on, the first
/// half of a Compute Spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maf {
    /// Tensor/matrix cores: GEMM, CONV, SDPA.
    Matrix,
    /// Vector units: elementwise, reduce, normalization, Triton.
    Vector,
}

impl Maf {
    pub fn as_str(self) -> &'static str {
        match self {
            Maf::Matrix => "matrix",
            Maf::Vector => "vector",
        }
    }
}

/// `Compute Spec` = `maf + "_" + precision` (e.g. `matrix_bf16`), or `None` when
/// the dtype is missing, empty or has no precision.
pub fn compute_spec(maf: Maf, dtype: Option<&str>) -> Option<String> {
    let precision = precision(dtype.filter(|d| !d.is_empty())?)?;
    Some(format!("{}_{precision}", maf.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_follow_the_spec() {
        assert_eq!(bpe("double"), Some(8));
        assert_eq!(bpe("long int"), Some(8));
        assert_eq!(bpe("Float"), Some(4));
        assert_eq!(bpe("int"), Some(4));
        assert_eq!(bpe("c10::Half"), Some(2));
        assert_eq!(bpe("c10::Float8_e5m2"), Some(1));
        assert_eq!(bpe("c10::Float4_e2m1fn_x2"), Some(1));
        assert_eq!(bpe("Long"), None);
        assert_eq!(bpe(""), None);
        assert_eq!(precision("c10::BFloat16"), Some("bf16"));
        assert_eq!(precision("c10::Float8_e4m3fn"), Some("fp8"));
        assert_eq!(precision("c10::Float8_e5m2"), None);
        assert_eq!(precision("long int"), None);
        assert_eq!(precision("Scalar"), None);
        assert_eq!(
            compute_spec(Maf::Matrix, Some("c10::BFloat16")).as_deref(),
            Some("matrix_bf16")
        );
        assert_eq!(
            compute_spec(Maf::Vector, Some("float")).as_deref(),
            Some("vector_fp32")
        );
        assert_eq!(compute_spec(Maf::Vector, Some("")), None);
        assert_eq!(compute_spec(Maf::Vector, None), None);
    }
}
