-- name: perf_unary_elementwise
-- version: 3
-- kind: report
-- order: 12
-- sheet: UnaryElementwise
-- description: Unary elementwise perf metrics (aten::copy_, clamp, sigmoid, silu, pow, pad, upsample, ...) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `UnaryElementwise` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- One pass over every instance (spec §7.7), CPU-side copies without kernels
-- included (Kernel Time 0, no rates).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: input_shape": the group's model param input_shape, Python text
--   "param: output_shape": the group's model param output_shape, Python text
--   "param: padding": the group's model param padding, Python text
--   "param: op_shape": the group's model param op_shape, Python text
--   "param: dtype_in_out": the group's model param dtype_in_out, Python text
--   "param: stride_input": the group's model param stride_input, Python text
--   "param: stride_output": the group's model param stride_output, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
SELECT name,
       perf_param(params, 'input_shape') AS "param: input_shape",
       perf_param(params, 'output_shape') AS "param: output_shape",
       perf_param(params, 'padding') AS "param: padding",
       perf_param(params, 'op_shape') AS "param: op_shape",
       perf_param(params, 'dtype_in_out') AS "param: dtype_in_out",
       perf_param(params, 'stride_input') AS "param: stride_input",
       perf_param(params, 'stride_output') AS "param: stride_output",
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'UnaryElementwise'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
