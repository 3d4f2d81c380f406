-- name: perf_normalization
-- version: 1
-- kind: report
-- order: 13
-- sheet: Normalization
-- description: Normalization perf metrics (batch, layer, group, instance, RMS norm and their backward ops) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- column_order_from: param_order
--
-- TraceLens sheet `Normalization` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- One pass over every instance (spec §7.10); the backward ops are their own
-- rows. Batch norm's training flag is parsed (the reference takes any
-- non-empty string, "False" included, as training).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
SELECT name,
       perf_param(params, 'op_shape') AS "param: op_shape",
       perf_param(params, 'dtype_in_out') AS "param: dtype_in_out",
       perf_param(params, 'stride_input') AS "param: stride_input",
       perf_param(params, 'stride_output') AS "param: stride_output",
       perf_param(params, 'num_channels') AS "param: num_channels",
       perf_param(params, 'has_bias') AS "param: has_bias",
       perf_param(params, 'is_affine') AS "param: is_affine",
       perf_param(params, 'is_training') AS "param: is_training",
       perf_param(params, 'output_mask') AS "param: output_mask",
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
WHERE sheet = 'Normalization'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
