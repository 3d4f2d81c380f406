-- name: comparison
-- version: 1
-- kind: comparison
-- description: Every compared row in one table, for gates (`compare --fail-if PREDICATE`) and ad hoc questions: timeline metrics, categories, ops, op shapes and kernels, each with base, target and delta in µs.
--
-- `--fail-if` runs `SELECT * FROM comparison WHERE (PREDICATE)`: any row
-- fails the gate (exit code 3). E.g. `level = 'op' AND category = 'GEMM' AND
-- delta_pct > 5 AND delta_us > 50`, or `level = 'timeline' AND name =
-- 'busy_time' AND delta_pct > 3`.
-- Columns:
--   level: timeline, category, op, shape or kernel
--   name: the metric, category, op, "op Input Dims" or kernel
--   category: the op category (NULL for timeline rows)
--   status: both, base_only or target_only
--   base_us: the base's time, µs per run or per step
--   target_us: the target's time, µs
--   delta_us: target_us − base_us (a missing side counts as 0)
--   delta_pct: delta_us as % of base_us (NULL without a base time)
SELECT level, name, category, status, base_us, target_us, delta_us, delta_pct
FROM (
  SELECT 'timeline' AS level, type AS name, CAST(NULL AS VARCHAR) AS category,
         CASE WHEN base_ms IS NULL THEN 'target_only' WHEN target_ms IS NULL THEN 'base_only' ELSE 'both' END AS status,
         base_ms * 1000.0 AS base_us, target_ms * 1000.0 AS target_us,
         delta_ms * 1000.0 AS delta_us, delta_pct
  FROM compare_gpu_timeline
  UNION ALL
  SELECT 'category', category AS name, category, status, base_us, target_us, delta_us, delta_pct
  FROM compare_ops_by_category
  UNION ALL
  SELECT 'op', name, category, status, base_us, target_us, delta_us, delta_pct
  FROM compare_ops_summary
  UNION ALL
  SELECT 'shape', name || ' ' || coalesce("Input Dims", ''), "op category", status,
         base_us, target_us, delta_us, delta_pct
  FROM compare_unified_perf_summary
  UNION ALL
  SELECT 'kernel', "Kernel name", "Parent op category", status, base_us, target_us, delta_us, delta_pct
  FROM compare_kernel_summary
) rows
ORDER BY CASE level WHEN 'timeline' THEN 1 WHEN 'category' THEN 2 WHEN 'op' THEN 3 WHEN 'shape' THEN 4 ELSE 5 END,
         abs(delta_us) DESC, name, category, status
