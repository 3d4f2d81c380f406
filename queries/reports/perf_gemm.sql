-- name: perf_gemm
-- version: 3
-- kind: report
-- order: 6
-- sheet: GEMM
-- description: GEMM perf metrics (aten::mm, addmm, bmm, baddbmm, _scaled_mm, ...): FLOPs, bytes, TFLOPS/s and TB/s per op name and shape, with kernel-time statistics.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `GEMM` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- The GEMM models have no backward (spec §7.4): one pass over every instance.
-- `param: transpose` exists only when a kernel name tells it (ROCm Cijk_…,
-- NVIDIA nvjet…); `param: B` comes first when a batched GEMM is seen first.
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: B": the group's model param B, Python text
--   "param: M": the group's model param M, Python text
--   "param: N": the group's model param N, Python text
--   "param: K": the group's model param K, Python text
--   "param: bias": the group's model param bias, Python text
--   "param: stride_A": the group's model param stride_A, Python text
--   "param: stride_B": the group's model param stride_B, Python text
--   "param: dtype_A_B": the group's model param dtype_A_B, Python text
--   "param: transpose": the group's model param transpose, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
SELECT name,
       perf_param(params, 'B') AS "param: B",
       perf_param(params, 'M') AS "param: M",
       perf_param(params, 'N') AS "param: N",
       perf_param(params, 'K') AS "param: K",
       perf_param(params, 'bias') AS "param: bias",
       perf_param(params, 'stride_A') AS "param: stride_A",
       perf_param(params, 'stride_B') AS "param: stride_B",
       perf_param(params, 'dtype_A_B') AS "param: dtype_A_B",
       perf_param(params, 'transpose') AS "param: transpose",
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'GEMM'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
