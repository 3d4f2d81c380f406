-- name: jax_kernel_launchers_unique_args
-- version: 1
-- kind: report
-- formats: jax
-- order: 45
-- sheet: kernel_launchers_unique_args
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: JAX XPlane: kernel time per kernel name, category and HLO operand signature (shapes, dtypes), with per-kernel statistics and the kernel's HLO details.
--
-- TraceLens sheet `kernel_launchers_unique_args` of its JAX report (spec
-- formats.md §C.7 item 7): [PT §8.4] (`ops_unique_args`) over the kernel
-- rows of view jax_kernel_rows with agg_metrics mean, median, std, min, max
-- (+ sum) and include_pct. Group keys: name, op category, Input Dims, Input
-- type, Input Strides, Concrete Inputs (the JAX rows have no process or
-- thread columns). std is the sample std (pandas). kernel_details_summary
-- holds one entry: the group's first kernel's details (name,
-- custom_call_target, operands, outputs, metadata) with count, total, mean,
-- median, population std, min and max of the durations (kernel_stats:
-- numpy's pairwise sums, instances in UID order), printed as numpy scalars.
-- No trunc_kernel_details column. ex_UID: UID of the group's first
-- kernel (see jax_kernel_launchers: TraceLens's only on the first GPU).
-- Sorted by summed time descending, then ex_UID.
-- Columns:
--   name: kernel name
--   "op category": TraceLens's JAX kernel category
--   "Input Dims": the HLO operand shapes, Python text
--   "Input type": their dtypes, Python text
--   "Input Strides": always ()
--   "Concrete Inputs": te_fused_attn's bias operand shape, else ()
--   operation_count: kernels in the group
--   total_direct_kernel_time_mean: mean duration, µs
--   total_subtree_kernel_time_mean: the same, µs
--   total_direct_kernel_time_median: median duration, µs
--   total_subtree_kernel_time_median: the same, µs
--   total_direct_kernel_time_std: sample std of the durations, µs
--   total_subtree_kernel_time_std: the same, µs
--   total_direct_kernel_time_min: shortest, µs
--   total_subtree_kernel_time_min: the same, µs
--   total_direct_kernel_time_max: longest, µs
--   total_subtree_kernel_time_max: the same, µs
--   total_direct_kernel_time_sum: summed duration, µs
--   total_subtree_kernel_time_sum: the same, µs
--   ex_UID: UID of the group's first kernel
--   kernel_details_summary: the kernel's HLO details with duration statistics, Python text
--   "Percentage (%)": summed time as % of all groups'
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
WITH groups AS (
  SELECT trace, name, op_category AS "op category",
         "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
         count(*) AS operation_count,
         avg(dur) AS mean_us, median(dur) AS median_us, stddev(dur) AS std_us,
         min(dur) AS min_us, max(dur) AS max_us, sum(dur) AS sum_us,
         min(uid_order) AS "ex_UID",
         first_value(details_template ORDER BY uid_order) AS template,
         kernel_stats(CAST(uid_order AS DOUBLE), make_array(named_struct('name', name, 'dur', dur)))[1] AS ks
  FROM jax_kernel_rows
  GROUP BY trace, name, op_category, "Input Dims", "Input type", "Input Strides", "Concrete Inputs"
),
shares AS (
  SELECT *, sum_us / sum(sum_us) OVER (PARTITION BY trace) * 100 AS "Percentage (%)"
  FROM groups
)
SELECT name, "op category", "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
       operation_count,
       mean_us AS total_direct_kernel_time_mean, mean_us AS total_subtree_kernel_time_mean,
       median_us AS total_direct_kernel_time_median, median_us AS total_subtree_kernel_time_median,
       std_us AS total_direct_kernel_time_std, std_us AS total_subtree_kernel_time_std,
       min_us AS total_direct_kernel_time_min, min_us AS total_subtree_kernel_time_min,
       max_us AS total_direct_kernel_time_max, max_us AS total_subtree_kernel_time_max,
       sum_us AS total_direct_kernel_time_sum, sum_us AS total_subtree_kernel_time_sum,
       "ex_UID",
       '[' || template
         || ', ''count'': ' || CAST(operation_count AS VARCHAR)
         || ', ''total_duration_us'': np.float64(' || py_repr(CAST(ks['total_duration_us'] AS VARCHAR)) || ')'
         || ', ''mean_duration_us'': np.float64(' || py_repr(CAST(ks['mean_duration_us'] AS VARCHAR)) || ')'
         || ', ''median_duration_us'': np.float64(' || py_repr(CAST(ks['median_duration_us'] AS VARCHAR)) || ')'
         || ', ''std_dev_duration_us'': np.float64(' || py_repr(CAST(ks['std_dev_duration_us'] AS VARCHAR)) || ')'
         || ', ''min_duration_us'': np.float64(' || py_repr(CAST(ks['min_duration_us'] AS VARCHAR)) || ')'
         || ', ''max_duration_us'': np.float64(' || py_repr(CAST(ks['max_duration_us'] AS VARCHAR)) || ')}]'
         AS kernel_details_summary,
       "Percentage (%)",
       sum("Percentage (%)") OVER (PARTITION BY trace ORDER BY sum_us DESC, "ex_UID"
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)"
FROM shares
ORDER BY trace, sum_us DESC, "ex_UID"
