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
        registry::model_classes().map(|(_, c)| c).collect();
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

/// `perf_op_registry()` is the registry the models resolve with: one row per op,
/// names unique, a model row's class is what `resolve` gives, a category-only row
/// has no model, and the family order is the family's position.
#[tokio::test]
async fn the_registry_table_is_the_resolution_map() {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::Int64Type;
    let ctx = datafusion::prelude::SessionContext::new();
    crate::register_all(&ctx);
    let batches = ctx
        .sql("SELECT name, model_class, family, family_order FROM perf_op_registry()")
        .await
        .expect("plans")
        .collect()
        .await
        .expect("runs");
    let mut names = std::collections::HashSet::new();
    let mut rows = 0;
    for b in &batches {
        let (name, class) = (
            b.column(0).as_string::<i32>(),
            b.column(1).as_string::<i32>(),
        );
        let (family, order) = (
            b.column(2).as_string::<i32>(),
            b.column(3).as_primitive::<Int64Type>(),
        );
        for i in 0..b.num_rows() {
            rows += 1;
            assert!(
                names.insert(name.value(i)),
                "{} listed twice",
                name.value(i)
            );
            let class = class.is_valid(i).then(|| class.value(i));
            assert_eq!(resolve(name.value(i)), class, "{}", name.value(i));
            if order.is_valid(i) {
                let position = order.value(i) as usize - 1;
                assert_eq!(registry::FAMILIES[position].name, family.value(i));
            } else {
                assert!(family.is_null(i) && class.is_none(), "{}", name.value(i));
            }
        }
    }
    assert_eq!(
        rows,
        registry::model_classes().count() + registry::CATEGORY_ONLY.len()
    );
    assert!(rows > 280, "{rows} rows");
}

/// `BugFixes` applies exactly the four counting bugs of [`Fix::BUGS`]; every
/// other number is the reference's (`TraceLens`), where `Corrected` may differ.
#[test]
fn bugfixes_fix_the_four_bugs_and_nothing_else() {
    use Semantics::{BugFixes, Corrected, TraceLens};
    for fix in Fix::BUGS {
        assert!(BugFixes.fixes(fix) && Corrected.fixes(fix) && !TraceLens.fixes(fix));
    }
    for fix in [
        Fix::SdpaBytesDtype,
        Fix::NormArgs,
        Fix::NormUnknownDtype,
        Fix::UpsampleScaleFactors,
        Fix::TritonDtypes,
    ] {
        assert!(!BugFixes.fixes(fix) && Corrected.fixes(fix) && !TraceLens.fixes(fix));
    }
    assert_eq!(Semantics::parse("BugFixes"), Some(BugFixes));
    assert_eq!(Semantics::parse("fixed"), None);

    let bf16 = "c10::BFloat16";
    // 1. Convolution bias: counted.
    let conv = |s| {
        run_with(
            "aten::convolution",
            "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
            &format!(r#"["{bf16}", "{bf16}", "{bf16}", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"]"#),
            Some("[[150528, 50176, 224, 1], [768, 256, 16, 1], [1], [], [], [], [], [], []]"),
            r#"["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"]"#,
            &[],
            s,
        )
        .unwrap()
    };
    let out = 4.0 * 768.0 * 14.0 * 14.0;
    assert_eq!(conv(TraceLens).flops, 2.0 * 768.0 * out);
    assert_eq!(conv(BugFixes).flops, 2.0 * 768.0 * out + out);
    assert_eq!(conv(BugFixes), conv(Corrected));

    // 2. Reduce output size: mean over the last dim keeps 16·559 elements.
    let mean = |s| {
        run_with(
            "aten::mean",
            "[[16, 559, 1024], [], [], []]",
            r#"["float", "ScalarList", "Scalar", ""]"#,
            Some("[[572416, 1024, 1], [], [], []]"),
            r#"["", "[-1]", "True", ""]"#,
            &[],
            s,
        )
        .unwrap()
    };
    assert_eq!(
        mean(TraceLens).param("num_output_elems"),
        Some(&ParamValue::Int(1))
    );
    assert_eq!(
        mean(BugFixes).param("num_output_elems"),
        Some(&ParamValue::Int(16 * 559))
    );

    // 3. Batch-norm training flag: parsed; but affine/bias stay the reference's.
    let batch_norm = |s| {
        run_with(
            "aten::batch_norm",
            "[[8, 16, 32, 32], [], [], [16], [16], [], [], [], []]",
            r#"["float", "", "", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar"]"#,
            Some("[[16384, 1024, 32, 1], [], [], [1], [1], [], [], [], []]"),
            r#"["", "", "", "", "", "False", "0.1", "1e-05", "True"]"#,
            &[],
            s,
        )
        .unwrap()
    };
    let (reference, fixed, corrected) = (
        batch_norm(TraceLens),
        batch_norm(BugFixes),
        batch_norm(Corrected),
    );
    assert_eq!(
        reference.param("is_training"),
        Some(&ParamValue::Bool(true))
    );
    assert_eq!(fixed.param("is_training"), Some(&ParamValue::Bool(false)));
    assert_eq!(fixed.param("is_affine"), reference.param("is_affine"));
    assert_eq!(fixed.param("has_bias"), Some(&ParamValue::Bool(true)));
    assert_eq!(corrected.param("has_bias"), Some(&ParamValue::Bool(false)));
    let (e, c) = (8.0 * 16.0 * 1024.0, 16.0);
    assert_eq!(fixed.flops, 6.0 * c + 2.0 * e);
    // Not training: 2 + affine 1 + bias 1 channel vectors.
    assert_eq!(fixed.bytes, Some(2.0 * e * 4.0 + 4.0 * c * 4.0));

    // 4. Causal attention with N_Q != N_KV: counted; fp32 bytes stay at 2 bytes
    //    per element, as in the reference.
    let sdpa = |s| {
        run_with(
            "aten::_scaled_dot_product_efficient_attention",
            "[[2, 4, 16, 32], [2, 4, 64, 32], [2, 4, 64, 32], [], [], [], [], []]",
            r#"["float", "float", "float", "", "", "", "", ""]"#,
            None,
            r#"["", "", "", "", "", "0.", "True", ""]"#,
            &[],
            s,
        )
    };
    assert!(sdpa(TraceLens).is_err());
    let fixed = sdpa(BugFixes).unwrap();
    let corrected = sdpa(Corrected).unwrap();
    assert_eq!(fixed.flops, corrected.flops);
    let elems = 2.0 * 4.0 * 32.0 * (16.0 + 64.0 + 64.0 + 16.0);
    assert_eq!(fixed.bytes, Some(elems * 2.0));
    assert_eq!(corrected.bytes, Some(elems * 4.0));
}

/// Shapes and scalars no tensor can have (found by fuzzing `py_literals`: the
/// models' integer arithmetic overflowed, a panic in debug builds and wrapped
/// numbers in release): every model gives an error or a number, for every
/// model class, with each extreme in every shape and every scalar.
#[test]
fn extreme_inputs_give_an_error_or_a_number_never_an_overflow() {
    let extremes = [
        i64::MAX.to_string(),
        i64::MIN.to_string(),
        (1i64 << 40).to_string(),
        "-1".to_string(),
        "0".to_string(),
    ];
    let mut ops: Vec<&str> = registry::model_classes().map(|(op, _)| op).collect();
    ops.push("triton_poi_fused_add_0");
    let shapes = [
        "[{x}, {x}, {x}, {x}]",
        "[1, 1, {x}]",
        "[1, {x}]",
        "[2, 3, 8, 8]",
    ];
    for (x, shape) in extremes.iter().flat_map(|x| shapes.map(|s| (x, s))) {
        let shape = shape.replace("{x}", x);
        let dims = format!("[{shape}, {shape}, {shape}, [{x}], [{x}, {x}], [], [], [], [], []]");
        let types = r#"["float", "float", "float", "float", "c10::BFloat16", "Scalar", "ScalarList", "Scalar", "", ""]"#;
        let list = format!("[{x}, {x}]");
        let concrete = format!(
            r#"["", "", "", "{list}", "{list}", "{list}", "False", "{list}", "{x}", "{x}"]"#
        );
        let strides = Some(dims.as_str());
        for op in &ops {
            for semantics in [
                Semantics::TraceLens,
                Semantics::BugFixes,
                Semantics::Corrected,
            ] {
                let raw = RawArgs {
                    input_dims: Some(&dims),
                    input_types: Some(types),
                    input_strides: strides,
                    concrete_inputs: Some(&concrete),
                    kernel_names: &[],
                };
                if let Some(Ok(perf)) = compute(op, &raw, semantics) {
                    let _ = (perf.metrics(Direction::Fwd), perf.metrics(Direction::Bwd));
                }
            }
        }
    }
}
