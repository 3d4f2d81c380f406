-- name: perf_reduce_fwd
-- version: 3
-- kind: report
-- order: 14
-- sheet: Reduce_fwd
-- description: Reduction forward perf metrics (aten::sum, mean, max, norm, amax, cumsum, ...) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `Reduce_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the Reduce family (spec §7.8). The output size follows
-- dim/keepdim (the reference always takes 1 element).
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: num_input_elems": the group's model param num_input_elems, Python text
--   "param: num_output_elems": the group's model param num_output_elems, Python text
--   "param: dtype_in_out": the group's model param dtype_in_out, Python text
--   "param: reduce_type": the group's model param reduce_type, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
SELECT name,
       perf_param(params, 'num_input_elems') AS "param: num_input_elems",
       perf_param(params, 'num_output_elems') AS "param: num_output_elems",
       perf_param(params, 'dtype_in_out') AS "param: dtype_in_out",
       perf_param(params, 'reduce_type') AS "param: reduce_type",
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'Reduce_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
