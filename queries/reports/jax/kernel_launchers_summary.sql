-- name: jax_kernel_launchers_summary
-- version: 1
-- kind: report
-- formats: jax
-- order: 43
-- sheet: kernel_launchers_summary
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: JAX XPlane: kernel time per kernel name, largest first, with count, categories, share, running share and time per GPU.
--
-- TraceLens sheet `kernel_launchers_summary` of its JAX report (spec
-- formats.md §C.7 item 5): [PT §8.3] (`ops_summary`) over the kernel rows of
-- view jax_kernel_rows, where the launcher is the kernel, so direct and
-- subtree times are both the kernel's duration; plus time ms per gpu =
-- total_direct_kernel_time_ms / the number of distinct GPU pids among the
-- kernels. Categories is the sorted list of the name's distinct op
-- categories (Im3d2Col is Conv when it has an hlo_op, else Uncategorized).
-- Sorted by time descending (ties by name).
-- Columns:
--   name: kernel name
--   total_direct_kernel_time_sum: summed duration, µs
--   total_subtree_kernel_time_sum: the same, µs
--   total_direct_kernel_time_ms: summed duration, ms
--   total_subtree_kernel_time_ms: the same, ms
--   Count: kernels
--   Categories: the distinct op categories of its kernels, a Python list
--   "Percentage (%)": its time as % of all kernels' time
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
--   "time ms per gpu": total_direct_kernel_time_ms / number of GPUs with kernels
WITH by_name AS (
  SELECT trace, name,
         sum(dur) AS total_direct_kernel_time_sum,
         sum(dur) AS total_subtree_kernel_time_sum,
         count(*) AS "Count",
         py_str_list(array_sort(array_agg(DISTINCT op_category))) AS "Categories"
  FROM jax_kernel_rows
  GROUP BY trace, name
),
gpus AS (
  SELECT trace, count(DISTINCT pid) AS num_gpus FROM jax_kernel_rows GROUP BY trace
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
