-- name: unified_perf_summary
-- version: 3
-- kind: report
-- order: 5
-- description: Every op that owns GPU time, once: the topmost op with a perf model, else the op that launched the kernels (synthetic ops for the rest), grouped by name and exact inputs, with CPU duration, kernel time, FLOPs, bytes, rates and kernels.
-- integer_columns: total_duration_us, duration_us_min, duration_us_max, Kernel Time (µs)_sum, Kernel Time (µs)_min, Kernel Time (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
-- platform_columns: Roofline , Pct Roofline
-- drop_columns_if: GFLOPS, Data Moved (MB), FLOPS/Byte, Compute Spec, TB/s, TFLOPS/s when SELECT count(*) = 0 FROM unified_perf_events WHERE has_perf_model AND model_error IS NULL
--
-- The perf-model columns (GFLOPS ... TFLOPS/s_*) are left out when no op's
-- model computed, as TraceLens writes them only then: a trace taken without
-- record_shapes has none.
-- TraceLens sheet `unified_perf_summary` (spec §8.6), from view unified_perf_events.
-- Groups: name, op category, process/thread and the Python text of the inputs,
-- as the reference groups on their str(). "first" is the first non-NULL value in
-- collection order; statistics skip NULLs (TraceLens's NaN); std is the sample std.
-- Rows sorted by total kernel time, then first uid. Times in µs.
-- An argument the trace does not record (a trace taken without
-- record_shapes, or a launcher that is not an op) is an empty cell, as pandas
-- writes TraceLens's None; trace_health's shapes_not_recorded says so.
-- Columns:
--   name: op name
--   "op category": op category
--   process_name: process name
--   process_label: process label
--   thread_name: thread name
--   "Input Dims": input shapes, Python text
--   "Input type": input dtypes, Python text
--   "Input Strides": input strides, Python text
--   "Concrete Inputs": concrete inputs, Python text
--   ex_UID: uid of the first instance in collection order
--   operation_count: instances in the group
--   total_duration_us: summed CPU duration, µs
--   mean_duration_us: mean CPU duration, µs
--   std_duration_us: sample std of the CPU duration, µs
--   GFLOPS: GFLOPs of the first instance that has them
--   "Data Moved (MB)": MiB moved by the first instance that has them
--   "FLOPS/Byte": FLOPs per byte of the first instance
--   "Compute Spec": compute spec of the first instance
--   "Roofline Bound": COMPUTE_BOUND / MEMORY_BOUND of the first instance; NULL without
--     a platform
--   "TB/s_mean": mean TB/s
--   "TB/s_std": sample std of the TB/s
--   "TFLOPS/s_mean": mean TFLOPS/s
--   "TFLOPS/s_std": sample std of the TFLOPS/s
--   "Kernel Time (µs)_mean": mean kernel time, µs
--   "Kernel Time (µs)_std": sample std of the kernel time, µs
--   "Kernel Time (µs)_sum": summed kernel time, µs
--   duration_us_median: median CPU duration, µs
--   duration_us_min: minimum CPU duration, µs
--   duration_us_max: maximum CPU duration, µs
--   "TB/s_median": median TB/s
--   "TB/s_min": minimum TB/s
--   "TB/s_max": maximum TB/s
--   "TFLOPS/s_median": median TFLOPS/s
--   "TFLOPS/s_min": minimum TFLOPS/s
--   "TFLOPS/s_max": maximum TFLOPS/s
--   "Roofline Time (µs)": roofline time of the first instance, µs; NULL without a
--     platform
--   "Pct Roofline_mean": mean % of the roofline
--   "Pct Roofline_median": median % of the roofline
--   "Pct Roofline_std": sample std of the % of the roofline
--   "Pct Roofline_min": minimum % of the roofline
--   "Pct Roofline_max": maximum % of the roofline
--   "Kernel Time (µs)_median": median kernel time, µs
--   "Kernel Time (µs)_min": minimum kernel time, µs
--   "Kernel Time (µs)_max": maximum kernel time, µs
--   kernel_details_summary: the kernels with count and duration statistics, as the
--     reference prints them
--   trunc_kernel_details: the same, kernel names truncated
--   perf_params: the first instance's model params, a Python dict
--   has_perf_model: the ops have a perf model
--   "Percentage (%)": summed kernel time as % of all groups'
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
WITH signed AS (
  SELECT *,
         CASE WHEN input_dims_json IS NOT NULL THEN py_repr(input_dims_json) END AS "Input Dims",
         CASE WHEN input_types_json IS NOT NULL THEN py_repr(input_types_json) END AS "Input type",
         CASE WHEN input_strides_json IS NOT NULL THEN py_repr(input_strides_json) END AS "Input Strides",
         CASE WHEN concrete_inputs_json IS NOT NULL THEN py_repr(concrete_inputs_json) END AS "Concrete Inputs"
  FROM unified_perf_events
),
groups AS (
  SELECT name,
         op_category AS "op category",
         process_name, process_label, thread_name,
         "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
         -- first uid in collection order
         first_value(uid ORDER BY seq) AS "ex_UID",
         -- ops in the group
         count(*) AS operation_count,
         -- CPU duration of the ops: sum, mean, sample std, median, min, max (µs)
         sum(duration_us) AS total_duration_us,
         avg(duration_us) AS mean_duration_us,
         stddev(duration_us) AS std_duration_us,
         median(duration_us) AS duration_us_median,
         min(duration_us) AS duration_us_min,
         max(duration_us) AS duration_us_max,
         -- model FLOPs / 1e9, bytes / 2^20, FLOPs per byte, compute spec: first instance's
         first_value("GFLOPS" ORDER BY seq) FILTER (WHERE "GFLOPS" IS NOT NULL) AS "GFLOPS",
         first_value("Data Moved (MB)" ORDER BY seq) FILTER (WHERE "Data Moved (MB)" IS NOT NULL)
           AS "Data Moved (MB)",
         first_value("FLOPS/Byte" ORDER BY seq) FILTER (WHERE "FLOPS/Byte" IS NOT NULL)
           AS "FLOPS/Byte",
         first_value(compute_spec ORDER BY seq) FILTER (WHERE compute_spec IS NOT NULL)
           AS "Compute Spec",
         -- per-instance rates: mean, sample std, median, min, max
         avg("TB/s") AS "TB/s_mean",
         stddev("TB/s") AS "TB/s_std",
         median("TB/s") AS "TB/s_median",
         min("TB/s") AS "TB/s_min",
         max("TB/s") AS "TB/s_max",
         avg("TFLOPS/s") AS "TFLOPS/s_mean",
         stddev("TFLOPS/s") AS "TFLOPS/s_std",
         median("TFLOPS/s") AS "TFLOPS/s_median",
         min("TFLOPS/s") AS "TFLOPS/s_min",
         max("TFLOPS/s") AS "TFLOPS/s_max",
         -- busy time of each op's GPU work (µs): mean, sample std, sum, median, min, max
         avg(kernel_time) AS "Kernel Time (µs)_mean",
         stddev(kernel_time) AS "Kernel Time (µs)_std",
         sum(kernel_time) AS "Kernel Time (µs)_sum",
         median(kernel_time) AS "Kernel Time (µs)_median",
         min(kernel_time) AS "Kernel Time (µs)_min",
         max(kernel_time) AS "Kernel Time (µs)_max",
         -- per-position kernel statistics over the group's ops
         kernel_stats(CAST(seq AS DOUBLE), kernel_details) AS stats,
         -- the model's params (Python dict), first instance's
         first_value(perf_params ORDER BY seq) FILTER (WHERE perf_params IS NOT NULL)
           AS perf_params,
         -- roofline against the session platform (only written with a platform):
         -- first instance's bound and time (µs), % of the roofline reached
         first_value("Roofline Bound" ORDER BY seq) FILTER (WHERE "Roofline Bound" IS NOT NULL)
           AS "Roofline Bound",
         first_value("Roofline Time (µs)" ORDER BY seq)
           FILTER (WHERE "Roofline Time (µs)" IS NOT NULL) AS "Roofline Time (µs)",
         avg("Pct Roofline") AS "Pct Roofline_mean",
         median("Pct Roofline") AS "Pct Roofline_median",
         stddev("Pct Roofline") AS "Pct Roofline_std",
         min("Pct Roofline") AS "Pct Roofline_min",
         max("Pct Roofline") AS "Pct Roofline_max",
         -- the op has a perf model
         first_value(has_perf_model ORDER BY seq) AS has_perf_model
  FROM signed
  GROUP BY trace, name, op_category, process_name, process_label, thread_name,
           "Input Dims", "Input type", "Input Strides", "Concrete Inputs"
),
shares AS (
  SELECT *,
         -- share of the sheet's total kernel time, %
         "Kernel Time (µs)_sum" / sum("Kernel Time (µs)_sum") OVER () * 100 AS "Percentage (%)"
  FROM groups
)
SELECT name, "op category", process_name, process_label, thread_name,
       "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
       "ex_UID", operation_count, total_duration_us, mean_duration_us, std_duration_us,
       "GFLOPS", "Data Moved (MB)", "FLOPS/Byte", "Compute Spec", "Roofline Bound",
       "TB/s_mean", "TB/s_std", "TFLOPS/s_mean", "TFLOPS/s_std",
       "Kernel Time (µs)_mean", "Kernel Time (µs)_std", "Kernel Time (µs)_sum",
       duration_us_median, duration_us_min, duration_us_max,
       "TB/s_median", "TB/s_min", "TB/s_max",
       "TFLOPS/s_median", "TFLOPS/s_min", "TFLOPS/s_max",
       "Roofline Time (µs)", "Pct Roofline_mean", "Pct Roofline_median", "Pct Roofline_std",
       "Pct Roofline_min", "Pct Roofline_max",
       "Kernel Time (µs)_median", "Kernel Time (µs)_min", "Kernel Time (µs)_max",
       -- kernels per position: name, stream, count and duration statistics (µs)
       py_kernel_details(stats, (SELECT integer_times FROM integer_times))
         AS kernel_details_summary,
       -- the same, names cut to 64 characters, mean rounded to 0.01 µs
       py_trunc_kernel_details(stats) AS trunc_kernel_details,
       perf_params, has_perf_model,
       "Percentage (%)",
       -- running sum of Percentage in row order, %
       sum("Percentage (%)") OVER (ORDER BY "Kernel Time (µs)_sum" DESC, "ex_UID"
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)"
FROM shares
ORDER BY "Kernel Time (µs)_sum" DESC, "ex_UID"
