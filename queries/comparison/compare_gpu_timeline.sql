-- name: compare_gpu_timeline
-- version: 1
-- kind: comparison
-- order: 2
-- sheet: compare_gpu_timeline
-- group: gpu_timeline
-- description: The GPU timeline of both sides, in the single-trace report's row order, with target − base per metric.
--
-- Times are each side's sums over its runs divided by its scale
-- (compare_basis: per run, or per profiler step). The first rows add up:
-- Δtotal_time = Δcomputation_time + Δexposed_comm_time + Δexposed_memcpy_time
-- + Δidle_time, as in one trace. TraceLens sorts these rows alphabetically and
-- compares raw sums (spec compare.md §2.4, §8 A10).
-- Columns:
--   type: the timeline metric (computation_time, exposed_comm_time, ...)
--   base_ms: the base's value, ms per run or per step
--   target_ms: the target's value, same unit
--   delta_ms: target_ms − base_ms
--   delta_pct: delta_ms as % of base_ms (NULL when base_ms is 0)
--   base_percent: the base's value as % of its total_time
--   target_percent: the target's value as % of its total_time
--   basis: per_run or per_step (compare_basis)
WITH pooled AS (
  SELECT t.side, t.type,
         sum(t."time ms") / b.scale AS ms,
         avg(t.percent) AS percent
  FROM report_gpu_timeline t
  JOIN compare_basis b ON b.side = t.side
  GROUP BY t.side, t.type, b.scale
),
keys AS (SELECT DISTINCT type FROM pooled),
basis AS (SELECT min(basis) AS basis FROM compare_basis)
SELECT k.type,
       base.ms AS base_ms,
       target.ms AS target_ms,
       target.ms - base.ms AS delta_ms,
       CASE WHEN base.ms <> 0 THEN 100.0 * (target.ms - base.ms) / base.ms END AS delta_pct,
       base.percent AS base_percent,
       target.percent AS target_percent,
       basis.basis
FROM keys k
CROSS JOIN basis
LEFT JOIN pooled base ON base.side = 'base' AND base.type = k.type
LEFT JOIN pooled target ON target.side = 'target' AND target.type = k.type
ORDER BY CASE k.type
           WHEN 'computation_time' THEN 1
           WHEN 'exposed_comm_time' THEN 2
           WHEN 'exposed_memcpy_time' THEN 3
           WHEN 'busy_time' THEN 4
           WHEN 'idle_time' THEN 5
           WHEN 'total_time' THEN 6
           WHEN 'total_comm_time' THEN 7
           WHEN 'total_memcpy_time' THEN 8
           ELSE 9
         END,
         k.type
