-- name: rocprofv3_gpu_timeline
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 1
-- sheet: gpu_timeline
-- empty: write
-- description: rocprofv3 JSON: the process's lifetime split into kernel, memory-copy, busy and idle time (all GPUs, queues and streams pooled).
--
-- TraceLens sheet `gpu_timeline` of its rocprof report (spec formats.md §A.3). Intervals
-- are start/1000.0 .. end/1000.0 µs; each metric is the length of a union of them.
-- total_time runs from the tool's init to its fini (metadata init_time, fini_time),
-- so process start-up and tear-down count as idle. No rows without kernels.
-- Columns:
--   type: total_time, kernel, memory, busy_time or idle
--   "time ms": the metric, ms
--   percent: the metric as % of total_time (0 when total_time is not positive)
WITH work AS (
  SELECT trace, CAST(begin_ns AS DOUBLE) / 1000.0 AS ts, CAST(end_ns AS DOUBLE) / 1000.0 AS t_end,
         'kernel' AS what
  FROM kernel_dispatches
  UNION ALL
  SELECT trace, CAST(begin_ns AS DOUBLE) / 1000.0, CAST(end_ns AS DOUBLE) / 1000.0, 'memory'
  FROM memory_copies
),
span AS (
  SELECT trace,
         CAST(max(CASE WHEN key = 'fini_time' THEN value END) AS BIGINT) / 1000.0
           - CAST(max(CASE WHEN key = 'init_time' THEN value END) AS BIGINT) / 1000.0 AS total
  FROM trace_meta
  WHERE key IN ('init_time', 'fini_time')
  GROUP BY trace
),
sums AS (
  SELECT w.trace, s.total,
         coalesce(busy_time(w.ts, w.t_end) FILTER (WHERE w.what = 'kernel'), 0.0) AS kernel,
         coalesce(busy_time(w.ts, w.t_end) FILTER (WHERE w.what = 'memory'), 0.0) AS memory,
         busy_time(w.ts, w.t_end) AS busy
  FROM work w JOIN span s ON s.trace = w.trace
  GROUP BY w.trace, s.total
  HAVING count(*) FILTER (WHERE w.what = 'kernel') > 0
),
metrics(row_order, type, us, trace) AS (
            SELECT 1, 'total_time', total, trace FROM sums
  UNION ALL SELECT 2, 'kernel', kernel, trace FROM sums
  UNION ALL SELECT 3, 'memory', memory, trace FROM sums
  UNION ALL SELECT 4, 'busy_time', busy, trace FROM sums
  UNION ALL SELECT 5, 'idle', greatest(0.0, total - busy), trace FROM sums
)
SELECT m.type, m.us / 1000 AS "time ms",
       CASE WHEN m.type = 'total_time' THEN 100.0
            WHEN s.total <= 0 THEN 0.0
            ELSE m.us / s.total * 100 END AS percent
FROM metrics m JOIN sums s ON s.trace = m.trace
ORDER BY m.trace, m.row_order
