//! Helpers for the per-model tests, and the checks that span models.

use super::*;

/// Runs the model of `name` with the reference semantics.
pub(crate) fn run(
    name: &str,
    dims: &str,
    types: &str,
    strides: Option<&str>,
    concrete: &str,
    kernels: &[&str],
) -> Result<Perf, ModelError> {
    run_with(
        name,
        dims,
        types,
        strides,
        concrete,
        kernels,
        Semantics::TraceLens,
    )
}

/// Runs the model of `name`; panics when the name has no model.
pub(crate) fn run_with(
    name: &str,
    dims: &str,
    types: &str,
    strides: Option<&str>,
    concrete: &str,
    kernels: &[&str],
    semantics: Semantics,
) -> Result<Perf, ModelError> {
    let raw = RawArgs {
        input_dims: Some(dims),
        input_types: Some(types),
        input_strides: strides,
        concrete_inputs: Some(concrete),
        kernel_names: kernels,
    };
    compute(name, &raw, semantics).unwrap_or_else(|| panic!("{name} has no model"))
}

#[test]
fn resolution() {
    assert_eq!(resolve("aten::addmm"), Some("aten_addmm"));
    assert_eq!(resolve("trtllm::cublas_scaled_mm"), Some("aten_scaled_mm"));
    assert_eq!(resolve("aten::native_layer_norm"), Some("LayerNorm"));
    assert_eq!(resolve("triton_red_fused_sum_3"), Some(TRITON_CLASS));
    assert_eq!(resolve("triton_foo"), None);
    // Leaves and wrappers without a model.
    assert_eq!(resolve("aten::linear"), None);
    assert_eq!(resolve("aten::_flash_attention_forward"), None);
    assert_eq!(resolve("aten::cudnn_convolution"), None);
    assert!(compute("aten::gelu", &RawArgs::default(), Semantics::TraceLens).is_none());
}

#[test]
fn every_model_row_names_a_mapped_class() {
    let classes: std::collections::HashSet<&str> =
        registry::OP_CLASSES.iter().map(|(_, c)| *c).collect();
    for (class, _) in MODELS {
        assert!(
            classes.contains(class) || *class == TRITON_CLASS,
            "MODELS row {class} is not a class of the op map"
        );
    }
}

#[test]
fn unimplemented_classes_are_unsupported() {
    let err = run(
        "aiter::gemm_a16w16",
        "[[1, 2], [2, 3]]",
        "[]",
        None,
        "[]",
        &[],
    )
    .unwrap_err();
    assert!(matches!(err, ModelError::Unsupported(_)), "{err}");
    assert!(err.to_string().starts_with("unsupported: "));
    assert!(!is_implemented("gemm_a16w16"));
    assert!(is_implemented("aten_mm"));
}

#[test]
fn errors_print_their_kind() {
    assert_eq!(ModelError::Invalid("x".into()).to_string(), "invalid: x");
    assert_eq!(
        ModelError::NotImplemented("y".into()).to_string(),
        "not_implemented: y"
    );
}

/// The op → class map must agree with the SQL registry view, which holds the
/// same Appendix A data for the report queries.
#[test]
fn registry_matches_the_sql_view() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../queries/views/op_registry.sql"
    );
    let Ok(sql) = std::fs::read_to_string(path) else {
        eprintln!("skipping: {path} not found");
        return;
    };
    let mut from_sql = Vec::new();
    for line in sql.lines() {
        let line = line.trim();
        let Some(body) = line.strip_prefix("('") else {
            continue;
        };
        // ('name', family, model_class, ...): names hold no `', `.
        let Some((name, rest)) = body.split_once("', ") else {
            continue;
        };
        let fields: Vec<&str> = rest.splitn(3, ", ").collect();
        if fields.len() < 2 || fields[1] == "NULL" {
            continue;
        }
        let class = fields[1].trim_matches('\'');
        from_sql.push((name.replace("''", "'"), class.to_string()));
    }
    assert!(from_sql.len() > 200, "parsed only {} rows", from_sql.len());
    let ours: Vec<(String, String)> = registry::OP_CLASSES
        .iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
    assert_eq!(ours, from_sql);
}
