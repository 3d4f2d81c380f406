-- name: perf_summary
-- version: 1
-- kind: view
-- description: The perf sheets' rows (GEMM, SDPA_fwd/_bwd, CONV_fwd/_bwd, Binary/UnaryElementwise, Normalization, Reduce_fwd/_bwd): op instances grouped by name and model params, with first-instance metrics and per-instance rate and kernel-time statistics.
--
-- TraceLens's `summarize_df_perf_metrics` (spec §8.5) over view perf_metrics.
-- Which instances feed which sheet:
-- * GEMM, UnaryElementwise, BinaryElementwise, Normalization: the fwd pass.
-- * SDPA, CONV, Reduce: the fwd pass is `<family>_fwd`, the bwd pass `<family>_bwd`;
--   fwd rows of flash_attn::_flash_attn_varlen_backward, aten::convolution_backward,
--   ConvBias_Backward and ConvBiasReLU_Backward move to the end of `<family>_bwd`
--   (part 1), and the bwd rows of the forward convolutions are dropped.
-- * Instances whose model fails are left out.
-- Groups: one per (trace, sheet, part, name, params); params compare by value, as
-- the reference groups on their printed text. "first" is the first non-NULL value
-- in uid order; statistics skip NULLs (TraceLens's NaN); std is the sample std.
-- Columns:
--   trace, sheet, part (0, or 1 for rows moved to a _bwd sheet), name
--   params                         the group's model params (LIST<STRUCT<key, value, py_str, kind>>)
--   param_order                    the sheet's `param: <key>` column names, repeats
--                                  included; their first listings are in the order the
--                                  sheet's instances (part, then uid) first have them,
--                                  which is the reference's column order
--   "GFLOPS_first" … "UID_first"   the reference's summary columns, in its order
--   kernel_stats                   kernel_stats() of the group (py_kernel_details renders it)
WITH sheet_rows AS (
  SELECT *,
         CASE
           WHEN family IN ('GEMM', 'UnaryElementwise', 'BinaryElementwise', 'Normalization')
             THEN CASE WHEN pass = 'fwd' THEN family END
           WHEN pass = 'fwd' AND name IN ('flash_attn::_flash_attn_varlen_backward',
                                          'aten::convolution_backward', 'ConvBias_Backward',
                                          'ConvBiasReLU_Backward')
             THEN family || '_bwd'
           WHEN pass = 'fwd' THEN family || '_fwd'
           WHEN name IN ('aten::convolution', 'aten::miopen_convolution',
                         'aten::cudnn_convolution', 'ConvBias_', 'ConvBiasReLU_',
                         'vllm::unified_attention_with_output')
             THEN NULL
           ELSE family || '_bwd'
         END AS sheet,
         CASE
           WHEN family NOT IN ('GEMM', 'UnaryElementwise', 'BinaryElementwise', 'Normalization')
                AND pass = 'fwd'
                AND name IN ('flash_attn::_flash_attn_varlen_backward',
                             'aten::convolution_backward', 'ConvBias_Backward',
                             'ConvBiasReLU_Backward')
             THEN 1
           ELSE 0
         END AS part
  FROM perf_metrics
  WHERE model_error IS NULL
    AND family IN ('GEMM', 'SDPA', 'CONV', 'BinaryElementwise', 'UnaryElementwise',
                   'Normalization', 'Reduce')
),
kept AS (
  SELECT * FROM sheet_rows WHERE sheet IS NOT NULL
),
groups AS (
  SELECT trace, sheet, part, name, params,
         first_value("GFLOPS" ORDER BY uid) FILTER (WHERE "GFLOPS" IS NOT NULL)
           AS "GFLOPS_first",
         first_value("Data Moved (MB)" ORDER BY uid) FILTER (WHERE "Data Moved (MB)" IS NOT NULL)
           AS "Data Moved (MB)_first",
         first_value("FLOPS/Byte" ORDER BY uid) FILTER (WHERE "FLOPS/Byte" IS NOT NULL)
           AS "FLOPS/Byte_first",
         avg("TB/s") AS "TB/s_mean",
         median("TB/s") AS "TB/s_median",
         stddev("TB/s") AS "TB/s_std",
         min("TB/s") AS "TB/s_min",
         max("TB/s") AS "TB/s_max",
         avg("TFLOPS/s") AS "TFLOPS/s_mean",
         median("TFLOPS/s") AS "TFLOPS/s_median",
         stddev("TFLOPS/s") AS "TFLOPS/s_std",
         min("TFLOPS/s") AS "TFLOPS/s_min",
         max("TFLOPS/s") AS "TFLOPS/s_max",
         first_value(process_name ORDER BY uid) FILTER (WHERE process_name IS NOT NULL)
           AS process_name_first,
         first_value(process_label ORDER BY uid) FILTER (WHERE process_label IS NOT NULL)
           AS process_label_first,
         first_value(thread_name ORDER BY uid) FILTER (WHERE thread_name IS NOT NULL)
           AS thread_name_first,
         first_value(compute_spec ORDER BY uid) AS "Compute Spec",
         kernel_stats(CAST(uid AS DOUBLE), kernel_details) AS kernel_stats,
         first_value(input_dims_json ORDER BY uid) FILTER (WHERE input_dims_json IS NOT NULL)
           AS input_dims_json,
         first_value(input_types_json ORDER BY uid) FILTER (WHERE input_types_json IS NOT NULL)
           AS input_types_json,
         first_value(input_strides_json ORDER BY uid)
           FILTER (WHERE input_strides_json IS NOT NULL) AS input_strides_json,
         first_value(concrete_inputs_json ORDER BY uid)
           FILTER (WHERE concrete_inputs_json IS NOT NULL) AS concrete_inputs_json,
         avg(kernel_time) AS "Kernel Time (µs)_mean",
         median(kernel_time) AS "Kernel Time (µs)_median",
         stddev(kernel_time) AS "Kernel Time (µs)_std",
         min(kernel_time) AS "Kernel Time (µs)_min",
         max(kernel_time) AS "Kernel Time (µs)_max",
         sum(kernel_time) AS "Kernel Time (µs)_sum",
         count(*) AS name_count,
         min(uid) AS "UID_first"
  FROM kept
  GROUP BY trace, sheet, part, name, params
)
SELECT g.trace, g.sheet, g.part, g.name, g.params,
       -- Every group's keys, groups in (part, first uid) order: the first listing of
       -- a key is where the sheet's instances (in uid order) first have it.
       flatten(array_agg(perf_param_keys(g.params, 'param: ')) OVER (
         PARTITION BY g.trace, g.sheet ORDER BY g.part, g."UID_first"
         ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) AS param_order,
       g."GFLOPS_first", g."Data Moved (MB)_first", g."FLOPS/Byte_first",
       g."TB/s_mean", g."TB/s_median", g."TB/s_std", g."TB/s_min", g."TB/s_max",
       g."TFLOPS/s_mean", g."TFLOPS/s_median", g."TFLOPS/s_std", g."TFLOPS/s_min",
       g."TFLOPS/s_max",
       g.process_name_first, g.process_label_first, g.thread_name_first, g."Compute Spec",
       g.kernel_stats,
       py_kernel_details(g.kernel_stats) AS kernel_details__summarize_kernel_stats,
       py_trunc_kernel_details(g.kernel_stats) AS trunc_kernel_details,
       py_json(g.input_dims_json) AS "Input Dims_first",
       py_json(g.input_types_json) AS "Input type_first",
       py_json(g.input_strides_json) AS "Input Strides_first",
       py_json(g.concrete_inputs_json) AS "Concrete Inputs_first",
       g."Kernel Time (µs)_mean", g."Kernel Time (µs)_median", g."Kernel Time (µs)_std",
       g."Kernel Time (µs)_min", g."Kernel Time (µs)_max", g."Kernel Time (µs)_sum",
       g.name_count, g."UID_first"
FROM groups g
