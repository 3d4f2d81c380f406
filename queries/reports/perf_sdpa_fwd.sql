-- name: perf_sdpa_fwd
-- version: 3
-- kind: report
-- order: 7
-- sheet: SDPA_fwd
-- description: Attention (scaled_dot_product_*, flash_attn, aiter) forward perf metrics per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `SDPA_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the SDPA family (spec §7.6). Backward-named ops other than
-- flash_attn::_flash_attn_varlen_backward stay here, as in the reference.
-- Causal attention with N_Q != N_KV is counted (the reference drops it).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: B": the group's model param B, Python text
--   "param: N_Q": the group's model param N_Q, Python text
--   "param: H_Q": the group's model param H_Q, Python text
--   "param: N_KV": the group's model param N_KV, Python text
--   "param: H_KV": the group's model param H_KV, Python text
--   "param: d_h_qk": the group's model param d_h_qk, Python text
--   "param: d_h_v": the group's model param d_h_v, Python text
--   "param: q_stride": the group's model param q_stride, Python text
--   "param: k_stride": the group's model param k_stride, Python text
--   "param: v_stride": the group's model param v_stride, Python text
--   "param: dropout": the group's model param dropout, Python text
--   "param: causal": the group's model param causal, Python text
--   "param: flash_impl": the group's model param flash_impl, Python text
--   "param: dtype_A_B": the group's model param dtype_A_B, Python text
--   "param: num_seqs_q": the group's model param num_seqs_q, Python text
--   "param: num_seqs_kv": the group's model param num_seqs_kv, Python text
--   "param: max_seqlen_q": the group's model param max_seqlen_q, Python text
--   "param: max_seqlen_kv": the group's model param max_seqlen_kv, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
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
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'SDPA_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
