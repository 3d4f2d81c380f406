-- name: chart_compare_waterfall
-- version: 1
-- kind: comparison
-- description: Where the GPU span's difference went, as the waterfall of `compare --html`: the base's span, the change of each op category's kernel time (the 8 largest changes, the rest together), the rest of computation, exposed communication, exposed memcpy and idle, then the target's span.
--
-- From compare_gpu_timeline and compare_ops_by_category. The steps add up
-- exactly: Δspan = Δcomputation + Δexposed comm + Δexposed memcpy + Δidle
-- (compare_gpu_timeline), and Δcomputation is split into the categories'
-- kernel-time changes plus "other computation", the remainder: kernels no op
-- launched, kernels overlapping each other, and memcpy work of ops, which
-- categories count and computation does not.
-- Columns:
--   step_order: the waterfall's order
--   step: the label
--   total: true for the two spans (bars from zero), false for changes
--   value_ms: the span (total) or the change (target − base), ms per run or step
--   running_ms: the running total after the step, ms
WITH timeline AS (
  SELECT max(base_ms) FILTER (WHERE type = 'total_time') AS base_total,
         max(target_ms) FILTER (WHERE type = 'total_time') AS target_total,
         max(delta_ms) FILTER (WHERE type = 'computation_time') AS d_compute,
         max(delta_ms) FILTER (WHERE type = 'exposed_comm_time') AS d_comm,
         max(delta_ms) FILTER (WHERE type = 'exposed_memcpy_time') AS d_memcpy,
         max(delta_ms) FILTER (WHERE type = 'idle_time') AS d_idle
  FROM compare_gpu_timeline
),
ranked AS (
  SELECT CAST(category AS VARCHAR) AS category, delta_us / 1e3 AS delta_ms,
         row_number() OVER (ORDER BY abs(delta_us) DESC, category) AS r
  FROM compare_ops_by_category
  WHERE delta_us <> 0
),
categories AS (
  SELECT min(r) AS r,
         CASE WHEN r <= 8 THEN category || ' kernels' ELSE 'other categories' END AS step,
         sum(delta_ms) AS delta_ms
  FROM ranked
  GROUP BY 2
),
steps(step_order, step, total, value_ms) AS (
  SELECT 0, 'base GPU span', true, base_total FROM timeline
  UNION ALL
  SELECT r, step, false, delta_ms FROM categories
  UNION ALL
  SELECT 100, 'other computation', false,
         coalesce(d_compute, 0) - coalesce((SELECT sum(delta_ms) FROM categories), 0)
  FROM timeline
  UNION ALL SELECT 101, 'exposed communication', false, coalesce(d_comm, 0) FROM timeline
  UNION ALL SELECT 102, 'exposed memcpy', false, coalesce(d_memcpy, 0) FROM timeline
  UNION ALL SELECT 103, 'idle', false, coalesce(d_idle, 0) FROM timeline
  UNION ALL SELECT 200, 'target GPU span', true, target_total FROM timeline
)
SELECT CAST(row_number() OVER (ORDER BY step_order) AS BIGINT) AS step_order, step, total, value_ms,
       CASE WHEN total THEN value_ms
            ELSE (SELECT base_total FROM timeline)
                 + sum(value_ms) FILTER (WHERE NOT total) OVER (ORDER BY step_order
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
       END AS running_ms
FROM steps
WHERE value_ms IS NOT NULL
ORDER BY step_order
