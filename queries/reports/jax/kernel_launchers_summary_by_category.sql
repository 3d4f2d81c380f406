-- name: jax_kernel_launchers_summary_by_category
-- version: 1
-- kind: report
-- formats: jax
-- order: 44
-- sheet: kernel_launchers_summary_by_category
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: JAX XPlane: kernel time per op category (GEMM, FA, Conv, TE, communication, uncategorized XLA), largest first, with count, share, running share and time per GPU.
--
-- TraceLens sheet `kernel_launchers_summary_by_category` of its JAX report
-- (spec formats.md §C.7 item 6): [PT §8.2] (`ops_summary_by_category`) over
-- the kernel rows of view jax_kernel_rows, plus time ms per gpu =
-- total_direct_kernel_time_ms / the number of distinct GPU pids among the
-- kernels. Percentages are of the kernels' summed time (memcpy and memset
-- events excluded). Sorted by time descending (ties by category).
-- Columns:
--   "op category": TraceLens's JAX kernel category
--   Count: kernels
--   total_direct_kernel_time_ms: summed duration, ms
--   "Percentage (%)": % of all kernels' time
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
--   "time ms per gpu": total_direct_kernel_time_ms / number of GPUs with kernels
WITH by_category AS (
  SELECT trace, op_category AS "op category",
         count(*) AS "Count",
         sum(dur) / 1000 AS total_direct_kernel_time_ms
  FROM jax_kernel_rows
  GROUP BY trace, op_category
),
gpus AS (
  SELECT trace, count(DISTINCT pid) AS num_gpus FROM jax_kernel_rows GROUP BY trace
),
shares AS (
  SELECT b.*, g.num_gpus,
         total_direct_kernel_time_ms / sum(total_direct_kernel_time_ms) OVER (PARTITION BY b.trace) * 100
           AS "Percentage (%)"
  FROM by_category b JOIN gpus g ON g.trace = b.trace
)
SELECT "op category", "Count", total_direct_kernel_time_ms, "Percentage (%)",
       sum("Percentage (%)") OVER (PARTITION BY trace ORDER BY total_direct_kernel_time_ms DESC, "op category"
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)",
       total_direct_kernel_time_ms / num_gpus AS "time ms per gpu"
FROM shares
ORDER BY trace, total_direct_kernel_time_ms DESC, "op category"
