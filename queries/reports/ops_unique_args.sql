-- name: ops_unique_args
-- version: 3
-- kind: report
-- order: 4
-- description: Kernel time per op name and exact input signature (shapes, dtypes, strides, concrete inputs), with per-instance statistics and the kernels each signature runs.
-- integer_columns: total_direct_kernel_time_sum, total_subtree_kernel_time_sum, total_direct_kernel_time_min, total_subtree_kernel_time_min, total_direct_kernel_time_max, total_subtree_kernel_time_max
-- when: (SELECT count(*) FROM ops) > 0
--
-- TraceLens sheet `ops_unique_args` (spec §8.4). Inputs print as Python values
-- (tuples), as the reference groups on their str(). std is the sample std.
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
--   operation_count: instances in the group
--   total_direct_kernel_time_mean: mean direct kernel time per instance, µs
--   total_subtree_kernel_time_mean: mean subtree kernel time per instance, µs
--   total_direct_kernel_time_median: median direct kernel time per instance, µs
--   total_subtree_kernel_time_median: median subtree kernel time per instance, µs
--   total_direct_kernel_time_std: sample std of direct kernel time per instance, µs
--   total_subtree_kernel_time_std: sample std of subtree kernel time per instance, µs
--   total_direct_kernel_time_min: minimum direct kernel time per instance, µs
--   total_subtree_kernel_time_min: minimum subtree kernel time per instance, µs
--   total_direct_kernel_time_max: maximum direct kernel time per instance, µs
--   total_subtree_kernel_time_max: maximum subtree kernel time per instance, µs
--   total_direct_kernel_time_sum: summed direct kernel time per instance, µs
--   total_subtree_kernel_time_sum: summed subtree kernel time per instance, µs
--   ex_UID: uid of the first instance
--   kernel_details_summary: its kernels with count and duration statistics, as the
--     reference prints them
--   trunc_kernel_details: the same, kernel names truncated
--   "Percentage (%)": summed direct kernel time as % of all groups'
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
WITH signed AS (
  SELECT *,
         CASE WHEN input_dims_json IS NOT NULL THEN py_repr(input_dims_json) END AS "Input Dims",
         CASE WHEN input_types_json IS NOT NULL THEN py_repr(input_types_json) END AS "Input type",
         CASE WHEN input_strides_json IS NOT NULL THEN py_repr(input_strides_json) END AS "Input Strides",
         CASE WHEN concrete_inputs_json IS NOT NULL THEN py_repr(concrete_inputs_json) END AS "Concrete Inputs"
  FROM launchers
),
groups AS (
  SELECT name, op_category AS "op category", process_name, process_label, thread_name,
         "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
         count(*) AS operation_count,
         avg(total_direct_kernel_time) AS total_direct_kernel_time_mean,
         avg(total_subtree_kernel_time) AS total_subtree_kernel_time_mean,
         median(total_direct_kernel_time) AS total_direct_kernel_time_median,
         median(total_subtree_kernel_time) AS total_subtree_kernel_time_median,
         stddev(total_direct_kernel_time) AS total_direct_kernel_time_std,
         stddev(total_subtree_kernel_time) AS total_subtree_kernel_time_std,
         min(total_direct_kernel_time) AS total_direct_kernel_time_min,
         min(total_subtree_kernel_time) AS total_subtree_kernel_time_min,
         max(total_direct_kernel_time) AS total_direct_kernel_time_max,
         max(total_subtree_kernel_time) AS total_subtree_kernel_time_max,
         sum(total_direct_kernel_time) AS total_direct_kernel_time_sum,
         sum(total_subtree_kernel_time) AS total_subtree_kernel_time_sum,
         first_value(uid ORDER BY ts, uid) AS "ex_UID",
         kernel_stats(ts, kernel_details) AS stats
  FROM signed
  GROUP BY trace, name, op_category, process_name, process_label, thread_name,
           "Input Dims", "Input type", "Input Strides", "Concrete Inputs"
),
shares AS (
  SELECT *, total_direct_kernel_time_sum / sum(total_direct_kernel_time_sum) OVER () * 100
              AS "Percentage (%)"
  FROM groups
)
SELECT name, "op category", process_name, process_label, thread_name,
       "Input Dims", "Input type", "Input Strides", "Concrete Inputs", operation_count,
       total_direct_kernel_time_mean, total_subtree_kernel_time_mean,
       total_direct_kernel_time_median, total_subtree_kernel_time_median,
       total_direct_kernel_time_std, total_subtree_kernel_time_std,
       total_direct_kernel_time_min, total_subtree_kernel_time_min,
       total_direct_kernel_time_max, total_subtree_kernel_time_max,
       total_direct_kernel_time_sum, total_subtree_kernel_time_sum, "ex_UID",
       py_kernel_details(stats, (SELECT integer_times FROM integer_times))
         AS kernel_details_summary,
       py_trunc_kernel_details(stats) AS trunc_kernel_details,
       "Percentage (%)",
       sum("Percentage (%)") OVER (ORDER BY total_direct_kernel_time_sum DESC, "ex_UID"
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)"
FROM shares
ORDER BY total_direct_kernel_time_sum DESC, "ex_UID"
