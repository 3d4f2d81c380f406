-- name: comparative_summary
-- version: 1
-- kind: comparison
-- description: The executive table of a comparative analysis: GPU timeline metrics and op time of the reference and the target, with the difference.
--
-- Neutral: differences, not winners. ms per run or per step (compare_basis).
-- Columns:
--   metric: the quantity
--   reference: the reference's value, ms
--   target: the target's value, ms
--   delta: target − reference, ms
--   delta_pct: delta as % of the reference
SELECT metric, reference, target, target - reference AS delta,
       CASE WHEN reference <> 0 THEN 100.0 * (target - reference) / reference END AS delta_pct
FROM (
  SELECT CASE type
           WHEN 'total_time' THEN 1 WHEN 'busy_time' THEN 2 WHEN 'computation_time' THEN 3
           WHEN 'exposed_comm_time' THEN 4 WHEN 'exposed_memcpy_time' THEN 5 ELSE 6
         END AS ord,
         type AS metric, base_ms AS reference, target_ms AS target
  FROM compare_gpu_timeline
  WHERE type IN ('total_time', 'busy_time', 'computation_time', 'exposed_comm_time', 'exposed_memcpy_time', 'idle_time')
  UNION ALL
  SELECT 7, 'op kernel time (ops both sides run)',
         sum(base_us) / 1000.0, sum(target_us) / 1000.0
  FROM compare_unified_perf_summary
  WHERE status = 'both'
) rows
ORDER BY ord
