-- name: perf_reduce_fwd
-- version: 1
-- kind: report
-- order: 14
-- sheet: Reduce_fwd
-- description: Reduction forward perf metrics (aten::sum, mean, max, norm, amax, cumsum, ...) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- column_order_from: param_order
--
-- TraceLens sheet `Reduce_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the Reduce family (spec §7.8). The output size follows
-- dim/keepdim (the reference always takes 1 element).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
SELECT name,
       perf_param(params, 'num_input_elems') AS "param: num_input_elems",
       perf_param(params, 'num_output_elems') AS "param: num_output_elems",
       perf_param(params, 'dtype_in_out') AS "param: dtype_in_out",
       perf_param(params, 'reduce_type') AS "param: reduce_type",
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
WHERE sheet = 'Reduce_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
