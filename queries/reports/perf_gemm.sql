-- name: perf_gemm
-- version: 1
-- kind: report
-- order: 6
-- sheet: GEMM
-- description: GEMM perf metrics (aten::mm, addmm, bmm, baddbmm, _scaled_mm, ...): FLOPs, bytes, TFLOPS/s and TB/s per op name and shape, with kernel-time statistics.
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- column_order_from: param_order
--
-- TraceLens sheet `GEMM` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- The GEMM models have no backward (spec §7.4): one pass over every instance.
-- `param: transpose` exists only when a kernel name tells it (ROCm Cijk_…,
-- NVIDIA nvjet…); `param: B` comes first when a batched GEMM is seen first.
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
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
WHERE sheet = 'GEMM'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
