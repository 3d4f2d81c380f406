//! The op registry: every op name with a perf model or a fixed op category, with
//! its sheet family, model class, op category and backward category (spec Appendix
//! A and B), in the reference's insertion order.
//!
//! This table is the registry's only copy. The perf models resolve op names through
//! it ([`super::resolve`]); SQL reads it through the table function
//! `perf_op_registry()` ([`OpRegistryFunction`], registered by
//! [`crate::register_all`]), which the catalog's view `op_registry`
//! (queries/views/op_registry.sql) selects from for the op categories of the
//! reports. Rust owns it, not SQL, because `perf_model()` and `op_perf()` need the
//! name -> class map inside the UDFs, in any DataFusion session, with or without
//! tracesql's query catalog; a user who overrides the view changes the categories
//! reports print, never which model computes an op. A name maps to the class whose
//! model computes it; the class's model function is looked up in [`super::MODELS`].
//! Names starting with `triton_poi_`, `triton_red_` or `triton_per_` are resolved by
//! pattern instead (see [`super::resolve`]).

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{plan_err, Result};
use datafusion::datasource::MemTable;

/// One op of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// Exact cpu_op name (e.g. `aten::addmm`).
    pub name: &'static str,
    /// The perf-model class the op uses; `None` for ops that only fix a category.
    pub model_class: Option<&'static str>,
    /// The op category reported in `op category` columns.
    pub category: &'static str,
    /// The category of the op's backward pass, when its model has one.
    pub bwd_category: Option<&'static str>,
    /// Registered by inference extensions (vLLM, SGLang, aiter).
    pub is_extension: bool,
}

/// A perf sheet family and its ops; its position in [`FAMILIES`] is the sheet order.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub ops: &'static [Op],
}

/// An op with a perf model.
const fn m(name: &'static str, model_class: &'static str, category: &'static str) -> Op {
    Op {
        name,
        model_class: Some(model_class),
        category,
        bwd_category: None,
        is_extension: false,
    }
}

/// An op that only fixes a category (Appendix B).
const fn c(name: &'static str, category: &'static str) -> Op {
    Op {
        name,
        model_class: None,
        category,
        bwd_category: None,
        is_extension: false,
    }
}

impl Op {
    /// With the category of its backward pass.
    const fn bwd(self, category: &'static str) -> Op {
        Op {
            bwd_category: Some(category),
            ..self
        }
    }

    /// Registered by an inference extension.
    const fn ext(self) -> Op {
        Op {
            is_extension: true,
            ..self
        }
    }
}

/// The ops with a perf model, by sheet family in sheet order.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "GEMM",
        ops: &[
            m("aten::mm", "aten_mm", "GEMM"),
            m("aten::addmm", "aten_addmm", "GEMM"),
            m("aten::_scaled_mm", "aten_scaled_mm", "GEMM"),
            m("trtllm::cublas_scaled_mm", "aten_scaled_mm", "GEMM"),
            m("bitsandbytes::int8_linear_matmul", "aten_scaled_mm", "GEMM"),
            m("aten::bmm", "aten_bmm", "GEMM"),
            m("tex_ts::te_gemm_ts", "tex_ts_te_gemm_ts", "GEMM"),
            m("aten::baddbmm", "aten_baddbmm", "GEMM"),
            m("vllm::gemm_with_dynamic_quant", "vllm_gemm_with_dynamic_quant", "GEMM"),
            m("_Linear_yfwd_mm", "tev2_pseudo_gemm", "GEMM"),
            m("_LinearBackward_xgrad_mm", "tev2_pseudo_gemm", "GEMM"),
            m("_LinearBackward_wgrad_mm", "tev2_pseudo_gemm", "GEMM"),
            m("_LayerNormLinear_yfwd_mm", "tev2_pseudo_gemm", "GEMM"),
            m("_LayerNormLinearBackward_xgrad_mm", "tev2_pseudo_gemm", "GEMM"),
            m("_LayerNormLinearBackward_wgrad_mm", "tev2_pseudo_gemm", "GEMM"),
            m("primus_turbo_cpp_extension::hipblaslt_gemm_fp8", "hipblaslt_gemm_fp8", "GEMM"),
            m("primus_turbo::hipblaslt_gemm_fp8", "hipblaslt_gemm_fp8", "GEMM"),
            m("primus_turbo_cpp_extension::hipblaslt_gemm_fp4", "hipblaslt_gemm_fp4", "GEMM"),
            m("primus_turbo::hipblaslt_gemm_fp4", "hipblaslt_gemm_fp4", "GEMM"),
            m("aiter::gemm_a4w4", "aiter_gemm_a4w4", "GEMM"),
            m("aiter::_gemm_a4w4_asm", "aiter_gemm_a4w4", "GEMM"),
            m("aiter::batched_gemm_a16wfp4_", "batched_gemm_a16wfp4", "GEMM").ext(),
            m("sglang_profiler::fp8_utils_gemm_a8w8_blockscale", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("sglang_profiler::gemm_a8w8_blockscale_gemm_a8w8_blockscale", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("vllm::rocm_aiter_triton_gemm_a8w8_blockscale", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_blockscale_ck", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_blockscale_cktile", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_blockscale_bpreshuffle_ck", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_blockscale_bpreshuffle_cktile", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::flatmm_a8w8_blockscale_asm", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gfx950_a8w8_blockscale_asm", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_ck", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_bpreshuffle_ck", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("aiter::gemm_a8w8_bpreshuffle", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("vllm::_rocm_aiter_preshuffled_per_token_w8a8_gemm", "gemm_a8w8_blockscale", "GEMM").ext(),
            m("vllm::rocm_unquantized_gemm", "vllm_rocm_unquantized_gemm", "GEMM").ext(),
            m("aiter::gemm_a16w16", "gemm_a16w16", "GEMM").ext(),
            m("aiter::gemm_a16w16_atomic_", "gemm_a16w16_atomic_", "GEMM").ext(),
            m("aiter::_gemm_a16w16_asm", "gemm_a16w16_asm", "GEMM").ext(),
            m("sglang_profiler::gemm_kernels_flydsl_hgemm", "gemm_a16w16_atomic_", "GEMM").ext(),
            m("aiter::gemm_afp4wfp4_", "gemm_afp4wfp4", "GEMM").ext(),
            m("sglang_profiler::batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant_batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant", "batched_gemm_a8w8", "GEMM").ext(),
            m("aiter::_gemm_a8w8_blockscale_bpreshuffle_asm", "gemm_a8w8_blockscale", "GEMM").ext(),
        ],
    },
    Family {
        name: "SDPA",
        ops: &[
            m("FlashAttnFunc", "flash_attention", "SDPA_fwd").bwd("SDPA_bwd"),
            m("flash_attn::_flash_attn_forward", "flash_attention", "SDPA_fwd").bwd("SDPA_bwd"),
            m("flash_attn::_flash_attn_backward", "flash_attention_backward", "SDPA_bwd").bwd("SDPA_bwd"),
            m("flash_attn::_flash_attn_varlen_forward", "flash_attention_varlen_forward", "SDPA_fwd").bwd("SDPA_bwd"),
            m("flash_attn::_flash_attn_varlen_backward", "flash_attention_varlen_backward", "SDPA_bwd").bwd("SDPA_bwd"),
            m("aten::_scaled_dot_product_cudnn_attention", "aten__scaled_dot_product_cudnn_attention", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aten::_scaled_dot_product_efficient_attention", "aten__scaled_dot_product_efficient_attention", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aten::_scaled_dot_product_flash_attention", "aten__scaled_dot_product_flash_attention", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aiter::_flash_attn_forward", "aiter__flash_attn_forward", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aiter::_flash_attn_backward", "aiter__flash_attn_backward", "SDPA_bwd").bwd("SDPA_bwd"),
            m("aiter::wrapper_fmha_v3_fwd", "aiter__fmha_v3_forward", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aiter::wrapper_fmha_v3_bwd", "aiter__fmha_v3_backward", "SDPA_bwd").bwd("SDPA_bwd"),
            m("aiter::mha_fwd", "aiter__mha_fwd", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aiter::fmha_v3_fwd", "aiter__fmha_v3_fwd", "SDPA_fwd").bwd("SDPA_bwd"),
            m("aiter::mha_bwd", "aiter__mha_bwd", "SDPA_bwd").bwd("SDPA_bwd"),
            m("flash_attn_3::fwd", "flash_attn_v3_forward", "SDPA_fwd").bwd("SDPA_bwd"),
            m("EvoformerAttention", "evoformer_attention", "SDPA_fwd").bwd("SDPA_bwd"),
        ],
    },
    Family {
        name: "CONV",
        ops: &[
            m("aten::convolution", "aten_conv", "CONV_fwd").bwd("CONV_bwd"),
            m("aten::convolution_backward", "aten_conv_bwd", "CONV_bwd").bwd("CONV_bwd"),
            m("ConvBias_", "ConvBias_", "CONV_fwd").bwd("CONV_bwd"),
            m("ConvBiasReLU_", "ConvBiasReLU_", "CONV_fwd").bwd("CONV_bwd"),
            m("ConvBias_Backward", "ConvBias_Backward", "CONV_bwd").bwd("CONV_bwd"),
            m("ConvBiasReLU_Backward", "ConvBiasReLU_Backward", "CONV_bwd").bwd("CONV_bwd"),
        ],
    },
    Family {
        name: "InferenceAttention",
        ops: &[
            m("vllm::unified_attention_with_output", "vllm_unified_attention_with_output", "InferenceAttention").ext(),
            m("aiter::mha_varlen_fwd", "mha_varlen_fwd", "InferenceAttention").ext(),
            m("aiter::fmha_v3_varlen_fwd", "aiter_fmha_v3_varlen_fwd", "InferenceAttention").ext(),
            m("aiter::mha_batch_prefill", "aiter_mha_batch_prefill", "InferenceAttention").ext(),
            m("sglang_profiler::attention_paged_attention_ragged", "aiter_paged_attention_ragged", "InferenceAttention").ext(),
            m("pseudo_mla_decode_fwd", "mla_decode_fwd", "InferenceAttention").ext(),
            m("pseudo_mla_prefill_fwd", "pseudo_mla_prefill_fwd", "InferenceAttention").ext(),
            m("aiter::pa_decode_gluon", "pa_decode_gluon", "InferenceAttention").ext(),
            m("pseudo_v4_paged_decode_swa", "pseudo_v4_paged_decode_swa", "InferenceAttention").ext(),
            m("pseudo_v4_paged_decode_csa", "pseudo_v4_paged_decode_csa", "InferenceAttention").ext(),
            m("pseudo_v4_paged_decode_hca", "pseudo_v4_paged_decode_hca", "InferenceAttention").ext(),
            m("aiter::pa_sparse_prefill_opus_fwd", "pa_sparse_prefill_opus_fwd", "InferenceAttention").ext(),
            m("sglang_profiler::tilelang_kernel_tilelang_sparse_fwd", "mla_tilelang_sparse_fwd", "InferenceAttention").ext(),
            m("vllm::gdn_attention_core", "gdn_attention_core", "InferenceAttention").ext(),
            m("aiter::linear_attention_with_output_base", "gdn_attention_core", "InferenceAttention").ext(),
            m("sglang::store_cache", "sglang_store_cache", "InferenceAttention").ext(),
        ],
    },
    Family {
        name: "BinaryElementwise",
        ops: &[
            m("LigerSiLUMulFunction", "liger_silu_mul_function", "elementwise"),
            m("aiter::dynamic_per_token_scaled_quant", "per_group_quant", "GroupQuant").ext(),
            m("aiter::dynamic_per_group_scaled_quant", "per_group_quant", "GroupQuant").ext(),
            m("vllm::triton_per_token_group_quant_fp8", "vllm_triton_per_token_group_quant_fp8", "GroupQuant").ext(),
            m("aiter::dynamic_per_tensor_quant", "per_group_quant", "GroupQuant").ext(),
            m("aten::div", "aten_binary_elementwise", "elementwise"),
            m("aten::div_", "aten_binary_elementwise", "elementwise"),
            m("aten::mul", "aten_binary_elementwise", "elementwise"),
            m("aten::mul_", "aten_binary_elementwise", "elementwise"),
            m("aten::add", "aten_binary_elementwise", "elementwise"),
            m("aten::add_", "aten_binary_elementwise", "elementwise"),
            m("aten::sigmoid_backward", "aten_binary_elementwise", "elementwise"),
            m("aten::threshold_backward", "aten_binary_elementwise", "elementwise"),
        ],
    },
    Family {
        name: "GroupedGEMM",
        ops: &[
            m("primus_turbo::grouped_gemm", "primus_turbo_grouped_gemm", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo::grouped_gemm_impl", "primus_turbo_grouped_gemm", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo_cpp_extension::grouped_gemm", "primus_turbo_grouped_gemm", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo::grouped_gemm_variable_k", "primus_turbo_grouped_gemm_variable_k", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo::grouped_gemm_variable_k_impl", "primus_turbo_grouped_gemm_variable_k", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo_cpp_extension::grouped_gemm_variable_k", "primus_turbo_grouped_gemm_variable_k", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo_cpp_extension::ck_grouped_gemm", "primus_turbo_grouped_gemm", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
            m("primus_turbo_cpp_extension::ck_grouped_gemm_variable_k", "primus_turbo_grouped_gemm_variable_k", "GroupedGEMM_fwd").bwd("GroupedGEMM_bwd"),
        ],
    },
    Family {
        name: "MoE_comm",
        ops: &[
            m("MoEDispatch", "moe_dispatch", "MoE_comm_fwd").bwd("MoE_comm_bwd"),
            m("MoECombine", "moe_combine", "MoE_comm_fwd").bwd("MoE_comm_bwd"),
        ],
    },
    Family {
        name: "SSM",
        ops: &[
            m("DaoAILab::_causal_conv1d_fwd_cpp", "causal_conv1d_fwd", "SSM_fwd"),
            m("MambaSplitConv1dScanCombinedFn", "mamba_ssd_fwd", "SSM_fwd").bwd("SSM_bwd"),
        ],
    },
    Family {
        name: "RoPE",
        ops: &[
            m("FusedRoPEFunc", "fused_rope_fwd", "RoPE_fwd"),
            m("aiter::rope_cached_positions_2c_fwd_impl", "aiter_rope_cached_positions_2c_fwd_impl", "RoPE_fwd").ext(),
            m("sgl_kernel::rotary_embedding", "sgl_kernel_rotary_embedding", "RoPE_fwd").ext(),
        ],
    },
    Family {
        name: "CrossEntropy",
        ops: &[
            m("CrossEntropyFunction", "cross_entropy_fwd", "CrossEntropy_fwd"),
        ],
    },
    Family {
        name: "UnaryElementwise",
        ops: &[
            m("primus_turbo_cpp_extension::quantize_fp8_tensorwise", "primus_turbo_quantize_fp8", "elementwise"),
            m("primus_turbo::quantize_fp8_tensorwise", "primus_turbo_quantize_fp8", "elementwise"),
            m("primus_turbo_cpp_extension::quantize_mxfp4_dual", "primus_turbo_quantize_mxfp4_dual", "elementwise"),
            m("primus_turbo::quantize_mxfp4_dual", "primus_turbo_quantize_mxfp4_dual", "elementwise"),
            m("primus::quantize_mxfp4_dual", "primus_turbo_quantize_mxfp4_dual", "elementwise"),
            m("aiter::silu_and_mul", "aiter_silu_and_mul", "elementwise").ext(),
            m("_C::silu_and_mul", "aiter_silu_and_mul", "elementwise").ext(),
            m("sgl_kernel::silu_and_mul", "sgl_kernel_silu_and_mul", "elementwise").ext(),
            m("aiter::gelu_and_mul", "aiter_gelu_and_mul", "elementwise").ext(),
            m("aiter::gelu_tanh_and_mul", "aiter_gelu_tanh_and_mul", "elementwise").ext(),
            m("aten::copy", "aten_unary_elementwise", "elementwise"),
            m("aten::copy_", "aten_unary_elementwise", "elementwise"),
            m("aten::clamp_min", "aten_unary_elementwise", "elementwise"),
            m("aten::clamp_min_", "aten_unary_elementwise", "elementwise"),
            m("aten::clamp_max", "aten_unary_elementwise", "elementwise"),
            m("aten::clamp_max_", "aten_unary_elementwise", "elementwise"),
            m("aten::sigmoid", "aten_unary_elementwise", "elementwise"),
            m("aten::rsqrt", "aten_unary_elementwise", "elementwise"),
            m("aten::silu", "aten_unary_elementwise", "elementwise"),
            m("aten::neg", "aten_unary_elementwise", "elementwise"),
            m("aten::pow", "aten_unary_elementwise", "elementwise"),
            m("aten::replication_pad1d", "aten_replication_pad", "elementwise"),
            m("aten::replication_pad2d", "aten_replication_pad", "elementwise"),
            m("aten::replication_pad3d", "aten_replication_pad", "elementwise"),
            m("aten::upsample_nearest1d", "aten_upsample_nearest", "elementwise"),
            m("aten::upsample_nearest2d", "aten_upsample_nearest", "elementwise"),
            m("aten::upsample_nearest3d", "aten_upsample_nearest", "elementwise"),
        ],
    },
    Family {
        name: "MoE_fused",
        ops: &[
            m("pseudo_op::moe_aiter_fused_1stage", "moe_aiter_fused_1stage", "MoE_fused").ext(),
            m("aiter::fmoe_fp8_blockscale_g1u1", "moe_aiter_fused_blockscale", "MoE_fused").ext(),
            m("aiter::fmoe_g1u1", "moe_aiter_fused_blockscale", "MoE_fused").ext(),
        ],
    },
    Family {
        name: "MoE_unfused",
        ops: &[
            m("aiter::moe_cktile2stages_gemm1_ck", "moe_aiter_unfused_up", "MoE_unfused").ext(),
            m("aiter::moe_cktile2stages_gemm2_ck", "moe_aiter_unfused_down", "MoE_unfused").ext(),
            m("aiter::ck_moe_stage1", "moe_aiter_ck_stage1", "MoE_unfused").ext(),
            m("aiter::ck_moe_stage2", "moe_aiter_ck_stage2", "MoE_unfused").ext(),
            m("pseudo_op::moe_triton_unfused_up", "moe_triton_unfused_up", "MoE_unfused").ext(),
            m("pseudo_op::moe_triton_unfused_down", "moe_triton_unfused_down", "MoE_unfused").ext(),
            m("pseudo_op::moe_gptq_awq_up", "moe_gptq_awq_up", "MoE_unfused").ext(),
            m("pseudo_op::moe_gptq_awq_down", "moe_gptq_awq_down", "MoE_unfused").ext(),
            m("pseudo_op::moe_flydsl_stage1", "moe_flydsl_stage1", "MoE_unfused").ext(),
            m("pseudo_op::moe_flydsl_stage2", "moe_flydsl_stage2", "MoE_unfused").ext(),
            m("sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel", "moe_triton_invoke_grouped_gemm", "MoE_unfused").ext(),
        ],
    },
    Family {
        name: "MoE_aux",
        ops: &[
            m("aiter::biased_grouped_topk_hip", "BiasedGroupedTopk", "MoE_aux").ext(),
            m("aiter::moe_sorting_fwd", "MoeSortScatterGather", "MoE_aux").ext(),
            m("aiter::mxfp4_moe_sort_hip", "MoeSortScatterGather", "MoE_aux").ext(),
            m("sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts", "sglang_fused_append_shared_experts", "MoE_aux").ext(),
            m("aiter::topk_softplus", "topk_softplus", "MoE_aux").ext(),
        ],
    },
    Family {
        name: "RMSNorm",
        ops: &[
            m("aiter::fused_add_rmsnorm_pad_", "vllm_rocm_aiter_triton_add_rmsnorm_pad", "RMSNorm").ext(),
            m("aiter::rms_norm", "aiter_rms_norm", "RMSNorm").ext(),
            m("aiter::rmsnorm", "aiter_rmsnorm", "RMSNorm").ext(),
            m("aiter::rmsnorm2d_fwd_ck", "aiter_rms_norm", "RMSNorm").ext(),
            m("aiter::rmsnorm2d_fwd_with_add_ck", "aiter_rmsnorm2d_fwd_with_add_ck", "RMSNorm").ext(),
            m("aiter::add_rmsnorm", "aiter_rmsnorm2d_fwd_with_add_ck", "RMSNorm").ext(),
            m("aiter::rmsnorm2d_fwd_with_dynamicquant_ck", "aiter_rmsnorm2d_fwd_with_dynamicquant_ck", "RMSNorm").ext(),
            m("vllm::rocm_aiter_rmsnorm_fp8_group_quant", "vllm_rocm_aiter_rmsnorm_fp8_group_quant", "RMSNorm").ext(),
            m("vllm::rocm_aiter_rmsnorm_with_add_fp8_group_quant", "vllm_rocm_aiter_rmsnorm_with_add_fp8_group_quant", "RMSNorm").ext(),
            m("vllm::rocm_aiter_triton_add_rmsnorm_pad", "vllm_rocm_aiter_triton_add_rmsnorm_pad", "RMSNorm").ext(),
            m("sglang_profiler::fused_mxfp4_quant_fused_rms_mxfp4_quant", "fused_rms_mxfp4_quant", "RMSNorm").ext(),
            m("aiter::_fuse_rmsnorm_fp4_quant", "fused_rms_mxfp4_quant", "RMSNorm").ext(),
            m("aiter::rmsnorm_quant", "aiter_rmsnorm_quant", "RMSNorm").ext(),
        ],
    },
    Family {
        name: "elementwise",
        ops: &[
            m("aiter::mixed_sample_outer_exponential", "mixed_sample_outer_exponential", "elementwise").ext(),
        ],
    },
    Family {
        name: "GroupQuant",
        ops: &[
            m("aiter::fused_dynamic_mx_quant_moe_sort_hip", "fused_dynamic_mx_quant_moe_sort_hip", "GroupQuant").ext(),
            m("sglang_profiler::fused_mxfp4_quant_fused_flatten_mxfp4_quant", "fused_flatten_mxfp4_quant", "GroupQuant").ext(),
            m("sglang_profiler::quant_dynamic_mxfp4_quant", "sglang_quant_dynamic_mxfp4_quant", "GroupQuant").ext(),
            m("aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", "aiter_fused_dynamic_mxfp4_quant_moe_sort_hip", "GroupQuant").ext(),
            m("aiter::dynamic_per_group_scaled_quant_fp4", "aiter_dynamic_per_group_scaled_quant_fp4", "GroupQuant").ext(),
        ],
    },
    Family {
        name: "FusedRoPE",
        ops: &[
            m("aiter::fused_qk_rope_concat_and_cache_mla", "fused_qk_rope_concat_and_cache_mla", "RoPE_fwd").ext(),
            m("aiter::fused_qk_rope_cat_and_cache_mla", "aiter_fused_qk_rope_cat_and_cache_mla", "RoPE_fwd").ext(),
        ],
    },
    Family {
        name: "CustomCollective",
        ops: &[
            m("aiter::fused_allreduce_rmsnorm", "aiter_fused_allreduce_rmsnorm", "CustomCollective").ext(),
            m("aiter::fused_allreduce_rmsnorm_", "aiter_fused_allreduce_rmsnorm_", "CustomCollective").ext(),
            m("_C_custom_ar::all_reduce", "custom_ar_all_reduce", "CustomCollective").ext(),
            m("aiter::reduce_scatter", "aiter_reduce_scatter", "CustomCollective").ext(),
            m("aiter::all_gather_reg", "aiter_all_gather_reg", "CustomCollective").ext(),
            m("sgl_kernel::all_reduce_reg", "sgl_kernel_all_reduce_reg", "CustomCollective").ext(),
            m("sgl_kernel::qr_all_reduce", "sgl_kernel_qr_all_reduce", "CustomCollective").ext(),
            m("sglang::reg_all_gather_into_tensor", "sgl_kernel_reg_all_gather_into_tensor", "CustomCollective").ext(),
            m("_C_custom_ar::qr_all_reduce", "custom_ar_qr_all_reduce", "CustomCollective").ext(),
        ],
    },
    Family {
        name: "mHC",
        ops: &[
            m("aiter::mhc_post", "mhc_post", "mHC").ext(),
            m("aiter::mhc_pre_gemm_sqrsum", "mhc_pre_gemm_sqrsum", "mHC").ext(),
            m("aiter::mhc_pre_big_fuse_rmsnorm", "mhc_pre_big_fuse_rmsnorm", "mHC").ext(),
            m("aiter::mhc_fused_post_pre_gemm_sqrsum", "mhc_fused_post_pre_gemm_sqrsum", "mHC").ext(),
        ],
    },
    Family {
        name: "Normalization",
        ops: &[
            m("aiter::_groupnorm_run", "GroupNorm", "NORM_fwd").bwd("NORM_bwd").ext(),
            m("aten::batch_norm", "BatchNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::native_batch_norm", "BatchNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::miopen_batch_norm", "BatchNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::cudnn_batch_norm", "BatchNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::layer_norm", "LayerNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::native_layer_norm", "LayerNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::miopen_layer_norm", "LayerNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::cudnn_layer_norm", "LayerNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::group_norm", "GroupNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::native_group_norm", "GroupNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::miopen_group_norm", "GroupNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::cudnn_group_norm", "GroupNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::instance_norm", "InstanceNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::native_instance_norm", "InstanceNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::miopen_instance_norm", "InstanceNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::cudnn_instance_norm", "InstanceNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::_fused_rms_norm", "RMSNorm", "NORM_fwd").bwd("NORM_bwd"),
            m("aten::batch_norm_backward", "BatchNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::native_batch_norm_backward", "BatchNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::miopen_batch_norm_backward", "BatchNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::cudnn_batch_norm_backward", "BatchNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::layer_norm_backward", "LayerNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::native_layer_norm_backward", "LayerNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::miopen_layer_norm_backward", "LayerNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::cudnn_layer_norm_backward", "LayerNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::group_norm_backward", "GroupNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::native_group_norm_backward", "GroupNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::miopen_group_norm_backward", "GroupNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::cudnn_group_norm_backward", "GroupNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::instance_norm_backward", "InstanceNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::native_instance_norm_backward", "InstanceNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::miopen_instance_norm_backward", "InstanceNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::cudnn_instance_norm_backward", "InstanceNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::rms_norm_backward", "RMSNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::native_rms_norm_backward", "RMSNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::miopen_rms_norm_backward", "RMSNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::cudnn_rms_norm_backward", "RMSNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("aten::_fused_rms_norm_backward", "RMSNormBwd", "NORM_bwd").bwd("NORM_bwd"),
            m("primus::fused_ln_modulate", "FusedLnModulate", "NORM_fwd").bwd("NORM_bwd"),
            m("primus::fused_ln_modulate_backward", "FusedLnModulateBackward", "NORM_bwd").bwd("NORM_bwd"),
        ],
    },
    Family {
        name: "Reduce",
        ops: &[
            m("aten::sum", "aten_reduce", "reduce"),
            m("aten::mean", "aten_reduce", "reduce"),
            m("aten::max", "aten_reduce", "reduce"),
            m("aten::min", "aten_reduce", "reduce"),
            m("aten::norm", "aten_reduce", "reduce"),
            m("aten::linalg_norm", "aten_reduce", "reduce"),
            m("aten::std", "aten_reduce", "reduce"),
            m("aten::var", "aten_reduce", "reduce"),
            m("aten::logsumexp", "aten_reduce", "reduce"),
            m("aten::cumsum", "aten_reduce", "reduce"),
            m("aten::cumprod", "aten_reduce", "reduce"),
            m("aten::amin", "aten_reduce", "reduce"),
            m("aten::amax", "aten_reduce", "reduce"),
        ],
    },
];

/// Ops without a perf model whose category is fixed by name (Appendix B).
pub static CATEGORY_ONLY: &[Op] = &[
    c("aten::miopen_convolution", "CONV_fwd"),
    c("aten::cudnn_convolution", "CONV_fwd"),
    c("FlashAttnFuncBackward", "SDPA_bwd"),
    c("FusedAttnFuncBackward", "SDPA_bwd"),
    c("aten::_scaled_dot_product_cudnn_attention_backward", "SDPA_bwd"),
    c("aten::_scaled_dot_product_efficient_attention_backward", "SDPA_bwd"),
    c("aten::_scaled_dot_product_flash_attention_backward", "SDPA_bwd"),
    c("aten::_efficient_attention_forward", "SDPA_fwd"),
    c("aten::_efficient_attention_backward", "SDPA_bwd"),
    c("MambaSplitConv1dScanCombinedFnBackward", "SSM_bwd"),
    c("DaoAILab::_causal_conv1d_bwd_cpp", "SSM_bwd"),
    c("TokenPermuteMaskMap", "MoE_comm_fwd"),
    c("_OperationFuserAutogradFunction", "MoE_comm_fwd"),
    c("MoEDispatchBackward", "MoE_comm_bwd"),
    c("MoECombineBackward", "MoE_comm_bwd"),
    c("TokenPermuteMaskMapBackward", "MoE_comm_bwd"),
    c("_OperationFuserAutogradFunctionBackward", "MoE_comm_bwd"),
    c("FusedRoPEFuncBackward", "RoPE_bwd"),
    c("CrossEntropyFunctionBackward", "CrossEntropy_bwd"),
    c("aiter::moe_sorting_opus_fwd", "MoE_aux"),
    c("aiter::moe_align_block_size", "MoE_aux"),
    c("_moe_C::moe_align_block_size", "MoE_aux"),
    c("aiter::fused_moe_->_fused_dynamic_mxfp4_quant_moe_sort_kernel (Synthetic Op)", "MoE_aux"),
    c("aiter::moe_sum", "MoE_aux"),
    c("aiter::topk_softmax", "MoE_aux"),
    c("aiter::topk_softmax_asm", "MoE_aux"),
    c("aiter::topk_sigmoid", "MoE_aux"),
    c("aiter::grouped_topk", "MoE_aux"),
    c("aiter::moe_fused_gate", "MoE_aux"),
    c("_C_cache_ops::reshape_and_cache_flash", "InferenceAttention"),
    c("_C_cache_ops::concat_and_cache_mla", "InferenceAttention"),
    c("aiter::unified_attention_with_output_base->_fused_qk_rope_reshape_and_cache_kernel (Synthetic Op)", "FusedRoPE").ext(),
    c("hipModuleLaunchKernel->kv_indices_generate_kernel (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::get_mla_metadata_v1", "InferenceAttention").ext(),
    c("aiter::indexer_score_topk", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->_inverse_rope_gptj_kernel (Synthetic Op)", "FusedRoPE").ext(),
    c("aiter::v4_attention_with_output->_update_compressor_states_kernel (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->_swa_write_kernel (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->qk_norm_rope_H32_D512_RD64_flydsl (Synthetic Op)", "FusedRoPE").ext(),
    c("aiter::v4_attention_with_output->qk_norm_rope_H64_D512_RD64_flydsl (Synthetic Op)", "FusedRoPE").ext(),
    c("aiter::v4_attention_with_output->hca_norm_rope_scatter_D512_RD64_R128_KB1_rmsbf16_flydsl (Synthetic Op)", "FusedRoPE").ext(),
    c("aiter::v4_attention_with_output->fused_compress_attn_D512_RD64_R4_OVL_SS8_KB32_rmsbf16_pf_flydsl (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->fused_compress_attn_D128_RD64_R4_OVL_SS8_KB32_Q_ue8m0_psh_rmsbf16_pf_flydsl (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->hca_compress_forward_D512_R128_NW4_SL256_S128_flydsl (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::v4_attention_with_output->hca_compress_forward_D512_R128_NW8_SL128_S128_flydsl (Synthetic Op)", "InferenceAttention").ext(),
    c("aiter::allgather_lastdim<std::bfloat16_t, 2>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, std::bfloat16_t*, int, int, int) (Synthetic Op)", "CustomCollective").ext(),
    c("aiter::allgather_lastdim<std::bfloat16_t, 4>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, std::bfloat16_t*, int, int, int) (Synthetic Op)", "CustomCollective").ext(),
];

/// `(op name, model class)` of every op with a model, in insertion order.
pub fn model_classes() -> impl Iterator<Item = (&'static str, &'static str)> {
    FAMILIES
        .iter()
        .flat_map(|f| f.ops)
        .filter_map(|op| Some((op.name, op.model_class?)))
}

/// The registry as one table: the rows of [`FAMILIES`] (family order from 1), then
/// [`CATEGORY_ONLY`] (no family, class or order).
fn registry_batch() -> RecordBatch {
    let rows: Vec<(Option<&Family>, Option<i64>, &Op)> = FAMILIES
        .iter()
        .zip(1..)
        .flat_map(|(family, order)| {
            family
                .ops
                .iter()
                .map(move |op| (Some(family), Some(order), op))
        })
        .chain(CATEGORY_ONLY.iter().map(|op| (None, None, op)))
        .collect();
    let text = |f: &dyn Fn(&(Option<&Family>, Option<i64>, &Op)) -> Option<&'static str>| {
        Arc::new(rows.iter().map(f).collect::<StringArray>()) as ArrayRef
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("name", text(&|r| Some(r.2.name))),
        ("family", text(&|r| r.0.map(|f| f.name))),
        ("model_class", text(&|r| r.2.model_class)),
        ("category", text(&|r| Some(r.2.category))),
        ("bwd_category", text(&|r| r.2.bwd_category)),
        (
            "family_order",
            Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
        ),
        (
            "is_extension",
            Arc::new(
                rows.iter()
                    .map(|r| Some(r.2.is_extension))
                    .collect::<BooleanArray>(),
            ),
        ),
    ];
    RecordBatch::try_from_iter(columns).expect("registry columns are of equal length")
}

static REGISTRY: LazyLock<RecordBatch> = LazyLock::new(registry_batch);

/// `perf_op_registry()`: the registry as a table (name, family, model_class,
/// category, bwd_category, family_order, is_extension), one row per op, in
/// registry order. The catalog's view `op_registry` documents its columns.
#[derive(Debug, Default)]
pub struct OpRegistryFunction;

impl TableFunctionImpl for OpRegistryFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        if !args.exprs().is_empty() {
            return plan_err!("perf_op_registry() takes no arguments");
        }
        let batch = REGISTRY.clone();
        Ok(Arc::new(MemTable::try_new(
            batch.schema(),
            vec![vec![batch]],
        )?))
    }
}
