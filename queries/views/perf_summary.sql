-- name: perf_summary
-- version: 3
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
--   trace: the trace file the row comes from
--   sheet: the perf sheet the row belongs to (GEMM, SDPA_fwd, ...)
--   part: 0, or 1 for rows moved to the end of a _bwd sheet
--   name: op name
--   params: the group's model params (LIST<STRUCT<key, value, py_str, kind>>)
--   param_order: the sheet's `param: <key>` column names, in the order the sheet's
--     instances (part, then uid) first have them: the reference's column order
--   GFLOPS_first: GFLOPs of the first instance (uid order) that has them
--   "Data Moved (MB)_first": MiB moved by the first instance that has them
--   "FLOPS/Byte_first": FLOPs per byte of the first instance that has them
--   "TB/s_mean": mean TB/s over the instances
--   "TB/s_median": median TB/s
--   "TB/s_std": sample std of TB/s
--   "TB/s_min": minimum TB/s
--   "TB/s_max": maximum TB/s
--   "TFLOPS/s_mean": mean TFLOPS/s over the instances
--   "TFLOPS/s_median": median TFLOPS/s
--   "TFLOPS/s_std": sample std of TFLOPS/s
--   "TFLOPS/s_min": minimum TFLOPS/s
--   "TFLOPS/s_max": maximum TFLOPS/s
--   process_name_first: process name of the first instance
--   process_label_first: process label of the first instance
--   thread_name_first: thread name of the first instance
--   "Compute Spec": the first instance's compute spec (e.g. matrix_bf16)
--   "Roofline Time (µs)_first": roofline time of the first instance that has one, µs;
--     NULL without a session platform
--   "Roofline Bound_first": COMPUTE_BOUND / MEMORY_BOUND of the first instance that has
--     one; NULL without a platform
--   "Pct Roofline_mean": mean % of the roofline reached; NULL without a platform
--   "Pct Roofline_median": median % of the roofline
--   "Pct Roofline_std": sample std of the % of the roofline
--   "Pct Roofline_min": minimum % of the roofline
--   "Pct Roofline_max": maximum % of the roofline
--   kernel_stats: kernel_stats() of the group (py_kernel_details renders it)
--   kernel_details__summarize_kernel_stats: the group's kernels with count and duration
--     statistics, as the reference prints them
--   trunc_kernel_details: the same, kernel names truncated
--   "Input Dims_first": the first instance's input shapes, Python text
--   "Input type_first": the first instance's input dtypes, Python text
--   "Input Strides_first": the first instance's input strides, Python text
--   "Concrete Inputs_first": the first instance's concrete inputs, Python text
--   "Kernel Time (µs)_mean": mean kernel time per instance, µs
--   "Kernel Time (µs)_median": median kernel time, µs
--   "Kernel Time (µs)_std": sample std of the kernel time, µs
--   "Kernel Time (µs)_min": minimum kernel time, µs
--   "Kernel Time (µs)_max": maximum kernel time, µs
--   "Kernel Time (µs)_sum": summed kernel time, µs
--   name_count: instances in the group
--   UID_first: smallest uid of the group
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
         first_value("Roofline Time (µs)" ORDER BY uid)
           FILTER (WHERE "Roofline Time (µs)" IS NOT NULL) AS "Roofline Time (µs)_first",
         first_value("Roofline Bound" ORDER BY uid)
           FILTER (WHERE "Roofline Bound" IS NOT NULL) AS "Roofline Bound_first",
         avg("Pct Roofline") AS "Pct Roofline_mean",
         median("Pct Roofline") AS "Pct Roofline_median",
         stddev("Pct Roofline") AS "Pct Roofline_std",
         min("Pct Roofline") AS "Pct Roofline_min",
         max("Pct Roofline") AS "Pct Roofline_max",
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
),
-- Every group's keys, groups in (part, first uid) order: the first listing of
-- a key is where the sheet's instances (in uid order) first have it. (An
-- aggregate joined back rather than a window over the sheet: the same list,
-- and a plan that a cluster's stages keep intact.)
orders AS (
  SELECT trace, sheet,
         flatten(array_agg(perf_param_keys(params, 'param: ') ORDER BY part, "UID_first"))
           AS param_order
  FROM groups
  GROUP BY trace, sheet
)
SELECT g.trace, g.sheet, g.part, g.name, g.params,
       o.param_order,
       g."GFLOPS_first", g."Data Moved (MB)_first", g."FLOPS/Byte_first",
       g."TB/s_mean", g."TB/s_median", g."TB/s_std", g."TB/s_min", g."TB/s_max",
       g."TFLOPS/s_mean", g."TFLOPS/s_median", g."TFLOPS/s_std", g."TFLOPS/s_min",
       g."TFLOPS/s_max",
       g.process_name_first, g.process_label_first, g.thread_name_first, g."Compute Spec",
       g."Roofline Time (µs)_first", g."Roofline Bound_first", g."Pct Roofline_mean",
       g."Pct Roofline_median", g."Pct Roofline_std", g."Pct Roofline_min",
       g."Pct Roofline_max",
       g.kernel_stats,
       py_kernel_details(g.kernel_stats, (SELECT integer_times FROM integer_times))
         AS kernel_details__summarize_kernel_stats,
       py_trunc_kernel_details(g.kernel_stats) AS trunc_kernel_details,
       py_json(g.input_dims_json) AS "Input Dims_first",
       py_json(g.input_types_json) AS "Input type_first",
       py_json(g.input_strides_json) AS "Input Strides_first",
       py_json(g.concrete_inputs_json) AS "Concrete Inputs_first",
       g."Kernel Time (µs)_mean", g."Kernel Time (µs)_median", g."Kernel Time (µs)_std",
       g."Kernel Time (µs)_min", g."Kernel Time (µs)_max", g."Kernel Time (µs)_sum",
       g.name_count, g."UID_first"
FROM groups g
JOIN orders o ON o.trace = g.trace AND o.sheet = g.sheet
