-- name: perf_normalization
-- version: 3
-- kind: report
-- order: 13
-- sheet: Normalization
-- description: Normalization perf metrics (batch, layer, group, instance, RMS norm and their backward ops) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `Normalization` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- One pass over every instance (spec §7.10); the backward ops are their own
-- rows. Batch norm's training flag is parsed (the reference takes any
-- non-empty string, "False" included, as training).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: op_shape": the group's model param op_shape, Python text
--   "param: dtype_in_out": the group's model param dtype_in_out, Python text
--   "param: stride_input": the group's model param stride_input, Python text
--   "param: stride_output": the group's model param stride_output, Python text
--   "param: num_channels": the group's model param num_channels, Python text
--   "param: has_bias": the group's model param has_bias, Python text
--   "param: is_affine": the group's model param is_affine, Python text
--   "param: is_training": the group's model param is_training, Python text
--   "param: output_mask": the group's model param output_mask, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
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
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'Normalization'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
