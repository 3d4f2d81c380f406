-- name: perf_sdpa_fwd
-- version: 1
-- kind: report
-- order: 7
-- sheet: SDPA_fwd
-- description: Attention (scaled_dot_product_*, flash_attn, aiter) forward perf metrics per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- column_order_from: param_order
--
-- TraceLens sheet `SDPA_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the SDPA family (spec §7.6). Backward-named ops other than
-- flash_attn::_flash_attn_varlen_backward stay here, as in the reference.
-- Causal attention with N_Q != N_KV is counted (the reference drops it).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
SELECT name,
       perf_param(params, 'B') AS "param: B",
       perf_param(params, 'N_Q') AS "param: N_Q",
       perf_param(params, 'H_Q') AS "param: H_Q",
       perf_param(params, 'N_KV') AS "param: N_KV",
       perf_param(params, 'H_KV') AS "param: H_KV",
       perf_param(params, 'd_h_qk') AS "param: d_h_qk",
       perf_param(params, 'd_h_v') AS "param: d_h_v",
       perf_param(params, 'q_stride') AS "param: q_stride",
       perf_param(params, 'k_stride') AS "param: k_stride",
       perf_param(params, 'v_stride') AS "param: v_stride",
       perf_param(params, 'dropout') AS "param: dropout",
       perf_param(params, 'causal') AS "param: causal",
       perf_param(params, 'flash_impl') AS "param: flash_impl",
       perf_param(params, 'dtype_A_B') AS "param: dtype_A_B",
       perf_param(params, 'num_seqs_q') AS "param: num_seqs_q",
       perf_param(params, 'num_seqs_kv') AS "param: num_seqs_kv",
       perf_param(params, 'max_seqlen_q') AS "param: max_seqlen_q",
       perf_param(params, 'max_seqlen_kv') AS "param: max_seqlen_kv",
       param_order,
       "GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first",
       "TB/s_mean", "TB/s_median", "TB/s_std", "TB/s_min", "TB/s_max",
       "TFLOPS/s_mean", "TFLOPS/s_median", "TFLOPS/s_std", "TFLOPS/s_min", "TFLOPS/s_max",
       process_name_first, process_label_first, thread_name_first, "Compute Spec",
       kernel_details__summarize_kernel_stats, trunc_kernel_details,
       "Input Dims_first", "Input type_first", "Input Strides_first", "Concrete Inputs_first",
       "Kernel Time (µs)_mean", "Kernel Time (µs)_median", "Kernel Time (µs)_std",
       "Kernel Time (µs)_min", "Kernel Time (µs)_max", "Kernel Time (µs)_sum",
       name_count, "UID_first"
FROM perf_summary
WHERE sheet = 'SDPA_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
