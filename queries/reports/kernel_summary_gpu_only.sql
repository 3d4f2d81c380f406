-- name: kernel_summary_gpu_only
-- version: 3
-- kind: report
-- order: 20
-- sheet: kernel_summary
-- description: kernel_summary for traces without cpu_ops: kernel time per (launch kind, kernel, stream).
-- integer_columns: Kernel duration (µs)_sum, Kernel duration (µs)_min, Kernel duration (µs)_max
-- when: (SELECT count(*) FROM ops) = 0
--
-- TraceLens writes this shape of `kernel_summary` for GPU-only traces (spec §2.6):
-- the parent category is the launch kind (runtime, or graph for graph launches).
-- Columns:
--   "Parent op category": the launch kind: runtime, or graph for graph launches
--   "Kernel name": kernel name
--   "Kernel stream": its stream
--   "Kernel duration (µs)_sum": summed duration of the kernel, µs
--   "Kernel duration (µs)_count": kernel instances
--   "Kernel duration (µs)_mean": mean duration, µs
--   "Kernel duration (µs)_min": minimum duration, µs
--   "Kernel duration (µs)_max": maximum duration, µs
--   "Percent of kernels time (%)": summed duration as % of all kernels' duration
--   "Percent of total time (%)": summed duration as % of the GPU span of all GPU
--     work, linked or not (kernel_share_base; the linked span under --tracelens-compat)
WITH groups AS (
  SELECT trace, parent_category AS "Parent op category", name AS "Kernel name",
         stream AS "Kernel stream",
         sum(dur) AS "Kernel duration (µs)_sum",
         count(*) AS "Kernel duration (µs)_count",
         avg(dur) AS "Kernel duration (µs)_mean",
         min(dur) AS "Kernel duration (µs)_min",
         max(dur) AS "Kernel duration (µs)_max"
  FROM kernel_parents
  GROUP BY trace, parent_category, name, stream
)
SELECT g."Parent op category", g."Kernel name", g."Kernel stream",
       g."Kernel duration (µs)_sum", g."Kernel duration (µs)_count",
       g."Kernel duration (µs)_mean", g."Kernel duration (µs)_min",
       g."Kernel duration (µs)_max",
       g."Kernel duration (µs)_sum" / sum(g."Kernel duration (µs)_sum") OVER () * 100
         AS "Percent of kernels time (%)",
       g."Kernel duration (µs)_sum" / t.total_time * 100 AS "Percent of total time (%)"
FROM groups g JOIN kernel_share_base t ON t.trace = g.trace
ORDER BY g."Kernel duration (µs)_sum" DESC, g."Parent op category", g."Kernel name",
         g."Kernel stream"
