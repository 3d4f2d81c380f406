-- name: perf_binary_elementwise
-- version: 3
-- kind: report
-- order: 11
-- sheet: BinaryElementwise
-- description: Binary elementwise perf metrics (aten::add, mul, div and in-place forms, *_backward) per op name and shapes: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `BinaryElementwise` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- One pass over every instance (spec §7.7). Shapes broadcast as numpy does;
-- unbroadcastable instances are left out, as in the reference.
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: shape_in1": the group's model param shape_in1, Python text
--   "param: shape_in2": the group's model param shape_in2, Python text
--   "param: dtype_in1_in2_out": the group's model param dtype_in1_in2_out, Python text
--   "param: stride_input1": the group's model param stride_input1, Python text
--   "param: stride_input2": the group's model param stride_input2, Python text
--   "param: stride_output": the group's model param stride_output, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
SELECT name,
       perf_param(params, 'shape_in1') AS "param: shape_in1",
       perf_param(params, 'shape_in2') AS "param: shape_in2",
       perf_param(params, 'dtype_in1_in2_out') AS "param: dtype_in1_in2_out",
       perf_param(params, 'stride_input1') AS "param: stride_input1",
       perf_param(params, 'stride_input2') AS "param: stride_input2",
       perf_param(params, 'stride_output') AS "param: stride_output",
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'BinaryElementwise'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
