-- name: jax_xla_summary
-- version: 1
-- kind: report
-- formats: jax
-- order: 47
-- sheet: xla_summary
-- empty: write
-- description: JAX XPlane: time of the uncategorized XLA kernels per name with its digits removed (fusion families), largest first, with count, share and time per GPU.
--
-- TraceLens sheet `xla_summary` of its JAX report (spec formats.md §C.7
-- item 9): the df_xla_perf rows (op category 'Uncategorized Events/XLA') with
-- every digit removed from the name (`input_transpose_fusion_1.kd` →
-- `input_transpose_fusion_.kd`, `Im3d2Col.kd` → `ImdCol.kd`), then the
-- kernel_launchers_summary formulas ([PT §8.3]); time ms per gpu divides by
-- the number of distinct GPU pids among these XLA kernels. Percentages are
-- of the XLA kernels' time. Sorted by time descending (ties by name).
-- TraceLens crashes when a trace has no such kernel; this sheet is then
-- header-only.
-- Columns:
--   name: kernel name without its digits
--   total_direct_kernel_time_sum: summed duration, µs
--   total_subtree_kernel_time_sum: the same, µs
--   total_direct_kernel_time_ms: summed duration, ms
--   total_subtree_kernel_time_ms: the same, ms
--   Count: kernels
--   Categories: always ['Uncategorized Events/XLA']
--   "Percentage (%)": its time as % of all XLA kernels' time
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
--   "time ms per gpu": total_direct_kernel_time_ms / number of GPUs with XLA kernels
WITH xla AS (
  SELECT trace, regexp_replace(name, '[0-9]', '', 'g') AS name, op_category, dur, pid
  FROM jax_kernel_rows
  WHERE op_category = 'Uncategorized Events/XLA'
),
by_name AS (
  SELECT trace, name,
         sum(dur) AS total_direct_kernel_time_sum,
         sum(dur) AS total_subtree_kernel_time_sum,
         count(*) AS "Count",
         py_str_list(array_sort(array_agg(DISTINCT op_category))) AS "Categories"
  FROM xla
  GROUP BY trace, name
),
gpus AS (
  SELECT trace, count(DISTINCT pid) AS num_gpus FROM xla GROUP BY trace
),
shares AS (
  SELECT b.*, g.num_gpus,
         total_direct_kernel_time_sum / 1000 AS total_direct_kernel_time_ms,
         total_subtree_kernel_time_sum / 1000 AS total_subtree_kernel_time_ms,
         total_direct_kernel_time_sum / sum(total_direct_kernel_time_sum) OVER (PARTITION BY b.trace) * 100
           AS "Percentage (%)"
  FROM by_name b JOIN gpus g ON g.trace = b.trace
)
SELECT name, total_direct_kernel_time_sum, total_subtree_kernel_time_sum,
       total_direct_kernel_time_ms, total_subtree_kernel_time_ms, "Count", "Categories",
       "Percentage (%)",
       sum("Percentage (%)") OVER (PARTITION BY trace ORDER BY total_direct_kernel_time_sum DESC, name
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)",
       total_direct_kernel_time_ms / num_gpus AS "time ms per gpu"
FROM shares
ORDER BY trace, total_direct_kernel_time_sum DESC, name
