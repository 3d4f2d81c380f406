-- name: perf_conv_fwd
-- version: 3
-- kind: report
-- order: 9
-- sheet: CONV_fwd
-- description: Convolution forward perf metrics (aten::convolution, ConvBias_*) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- integer_columns: Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- mixed_numbers_as_float: param:
-- column_order_from: param_order
-- platform_columns: Roofline , Pct Roofline
--
-- TraceLens sheet `CONV_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the CONV family (spec §7.5). The bias is counted when the
-- op has one (the reference never counts it); mixed input/weight dtypes drop
-- the instance, as in the reference.
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
-- Columns:
--   name: op name
--   "param: convNd": the group's model param convNd, Python text
--   "param: input_shape": the group's model param input_shape, Python text
--   "param: filter_shape": the group's model param filter_shape, Python text
--   "param: dtype_input_weight": the group's model param dtype_input_weight, Python
--     text
--   "param: input_stride": the group's model param input_stride, Python text
--   "param: weight_stride": the group's model param weight_stride, Python text
--   "param: bias": the group's model param bias, Python text
--   "param: stride": the group's model param stride, Python text
--   "param: padding": the group's model param padding, Python text
--   "param: dilation": the group's model param dilation, Python text
--   "param: transposed_conv": the group's model param transposed_conv, Python text
--   "param: output_padding": the group's model param output_padding, Python text
--   "param: groups": the group's model param groups, Python text
--   perf_summary.*: param_order and the summary statistics columns of view
--     perf_summary, in its order, documented there (the sheet leaves out trace, sheet,
--     part, name, params, kernel_stats)
SELECT name,
       perf_param(params, 'convNd') AS "param: convNd",
       perf_param(params, 'input_shape') AS "param: input_shape",
       perf_param(params, 'filter_shape') AS "param: filter_shape",
       perf_param(params, 'dtype_input_weight') AS "param: dtype_input_weight",
       perf_param(params, 'input_stride') AS "param: input_stride",
       perf_param(params, 'weight_stride') AS "param: weight_stride",
       perf_param(params, 'bias') AS "param: bias",
       perf_param(params, 'stride') AS "param: stride",
       perf_param(params, 'padding') AS "param: padding",
       perf_param(params, 'dilation') AS "param: dilation",
       perf_param(params, 'transposed_conv') AS "param: transposed_conv",
       perf_param(params, 'output_padding') AS "param: output_padding",
       perf_param(params, 'groups') AS "param: groups",
       -- param_order and the summary columns, as view perf_summary computes them.
       * EXCLUDE (trace, sheet, part, name, params, kernel_stats)
FROM perf_summary
WHERE sheet = 'CONV_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
