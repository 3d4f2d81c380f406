-- name: perf_conv_fwd
-- version: 1
-- kind: report
-- order: 9
-- sheet: CONV_fwd
-- description: Convolution forward perf metrics (aten::convolution, ConvBias_*) per op name and shape: FLOPs, bytes, TFLOPS/s, TB/s, kernel time.
-- when: (SELECT count(*) FROM ops) > 0
-- drop_null_columns: param: 
-- column_order_from: param_order
--
-- TraceLens sheet `CONV_fwd` (spec §8.5), from view perf_summary. Rows sorted by
-- total kernel time, then first uid. Times in µs, GFLOPS and MB per instance.
-- Forward pass of the CONV family (spec §7.5). The bias is counted when the
-- op has one (the reference never counts it); mixed input/weight dtypes drop
-- the instance, as in the reference.
-- The `param: <key>` columns below are every key the sheet's models can give;
-- only those the data has are written, in the order the reference writes them.
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
WHERE sheet = 'CONV_fwd'
ORDER BY part, "Kernel Time (µs)_sum" DESC, "UID_first"
