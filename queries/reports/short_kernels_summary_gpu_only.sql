-- name: short_kernels_summary_gpu_only
-- version: 3
-- kind: report
-- order: 22
-- sheet: short_kernels_summary
-- empty: write
-- description: short_kernels_summary for traces without cpu_ops: kernels shorter than 10 µs grouped by kernel name.
-- integer_columns: Short Kernel duration (µs) sum
-- when: (SELECT count(*) FROM ops) = 0
--
-- TraceLens groups by kernel name alone for GPU-only traces (spec §8.8).
-- Columns:
--   "Kernel name": kernel name
--   "Short Kernel duration (µs) sum": summed duration of its kernels under 10 µs, µs
--   "Short Kernel count": those kernels
--   "Short Kernel duration (µs) mean": their mean duration, µs
--   "Short Kernel duration (µs) percent of total time": summed duration as % of the
--     GPU span of all GPU work, linked or not (kernel_share_base; the linked span
--     under --tracelens-compat)
WITH groups AS (
  SELECT trace, name AS "Kernel name",
         sum(dur) AS "Short Kernel duration (µs) sum",
         count(*) AS "Short Kernel count",
         avg(dur) AS "Short Kernel duration (µs) mean",
         min(uid) AS first_uid
  FROM kernels
  WHERE cat = 'kernel' AND dur < 10
  GROUP BY trace, name
)
SELECT g."Kernel name", g."Short Kernel duration (µs) sum", g."Short Kernel count",
       g."Short Kernel duration (µs) mean",
       g."Short Kernel duration (µs) sum" / t.total_time * 100
         AS "Short Kernel duration (µs) percent of total time"
FROM groups g JOIN kernel_share_base t ON t.trace = g.trace
ORDER BY g."Short Kernel duration (µs) sum" DESC, g."Short Kernel count",
         g."Short Kernel duration (µs) mean", g.first_uid
