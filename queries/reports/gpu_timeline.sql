-- name: gpu_timeline
-- version: 1
-- kind: report
-- order: 1
-- description: Where GPU time went: computation, exposed communication and memcpy, idle, as ms and % of the trace's GPU span.
--
-- TraceLens sheet `gpu_timeline` (spec §4.5). One row per metric, in a fixed order.
-- Columns:
--   type: metric name (computation_time, exposed_comm_time, ...)
--   "time ms": the metric, ms
--   percent: the metric as % of total_time
WITH t AS (SELECT * FROM gpu_time_totals),
metrics(row_order, type, us) AS (
            SELECT 1, 'computation_time', computation_time FROM t
  UNION ALL SELECT 2, 'exposed_comm_time', exposed_comm_time FROM t
  UNION ALL SELECT 3, 'exposed_memcpy_time', exposed_memcpy_time FROM t
  UNION ALL SELECT 4, 'busy_time', busy_time FROM t
  UNION ALL SELECT 5, 'idle_time', idle_time FROM t
  UNION ALL SELECT 6, 'total_time', total_time FROM t
  UNION ALL SELECT 7, 'total_comm_time', total_comm_time FROM t
  UNION ALL SELECT 8, 'total_memcpy_time', total_memcpy_time FROM t
)
SELECT m.type, m.us / 1e3 AS "time ms", m.us / t.total_time * 100 AS percent
FROM metrics m CROSS JOIN t
ORDER BY m.row_order
