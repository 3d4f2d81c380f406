-- name: kernel_summary
-- version: 3
-- kind: report
-- order: 20
-- description: GPU kernel time per (parent op category, parent cpu_op, kernel, stream), largest first, as % of all kernel time and of the GPU span.
-- integer_columns: Kernel duration (µs)_sum, Kernel duration (µs)_min, Kernel duration (µs)_max
-- when: (SELECT count(*) FROM ops) > 0
--
-- TraceLens sheet `kernel_summary` (spec §8.7): every kernel (memcpy and memset
-- excluded), linked or not, with raw durations. Kernels with no cpu_op above
-- their launch show the launch call as parent.
-- Columns:
--   "Parent op category": the parent cpu_op's category (or the launch kind without one)
--   "Parent cpu_op": the cpu_op directly above the launch, or the launch call
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
WITH rows AS (
  SELECT trace, parent_category AS "Parent op category",
         coalesce(parent_name, launcher_name) AS "Parent cpu_op",
         name AS "Kernel name", stream AS "Kernel stream", dur
  FROM kernel_parents
),
groups AS (
  SELECT trace, "Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream",
         sum(dur) AS "Kernel duration (µs)_sum",
         count(*) AS "Kernel duration (µs)_count",
         avg(dur) AS "Kernel duration (µs)_mean",
         min(dur) AS "Kernel duration (µs)_min",
         max(dur) AS "Kernel duration (µs)_max"
  FROM rows
  GROUP BY trace, "Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream"
)
SELECT g."Parent op category", g."Parent cpu_op", g."Kernel name", g."Kernel stream",
       g."Kernel duration (µs)_sum", g."Kernel duration (µs)_count",
       g."Kernel duration (µs)_mean", g."Kernel duration (µs)_min",
       g."Kernel duration (µs)_max",
       g."Kernel duration (µs)_sum" / sum(g."Kernel duration (µs)_sum") OVER () * 100
         AS "Percent of kernels time (%)",
       g."Kernel duration (µs)_sum" / t.total_time * 100 AS "Percent of total time (%)"
FROM groups g JOIN kernel_share_base t ON t.trace = g.trace
ORDER BY g."Kernel duration (µs)_sum" DESC, g."Parent op category", g."Parent cpu_op",
         g."Kernel name", g."Kernel stream"
