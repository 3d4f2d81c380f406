-- name: gpu_time_totals
-- version: 1
-- kind: view
-- description: GPU time totals over all devices and streams pooled, in µs: computation, exposed communication and memcpy, busy, idle, total.
--
-- Counts linked GPU work (view linked_kernels, spec §4.3). Memsets count as computation.
-- One row per trace.
-- Columns:
--   trace: the trace file the row comes from
--   computation_time: busy time of compute kernels and memsets, µs
--   exposed_comm_time: communication not overlapped by computation, µs
--   exposed_memcpy_time: memcpy overlapped by neither computation nor communication, µs
--   busy_time: union of all linked GPU work, µs
--   idle_time: total_time - busy_time, µs
--   total_time: last end - first start of linked GPU work, µs
--   total_comm_time: busy time of communication, µs
--   total_memcpy_time: busy time of memcpy, µs
WITH work AS (
  SELECT trace, ts, t_end,
         CASE class WHEN 'memset' THEN 'compute' ELSE class END AS bucket
  FROM linked_kernels
),
sums AS (
  SELECT
    trace,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'compute'), 0.0) AS computation_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'communication') FILTER (WHERE bucket <> 'memcpy'), 0.0)
      AS exposed_comm_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'memcpy'), 0.0) AS exposed_memcpy_time,
    busy_time(ts, t_end) AS busy_time,
    max(t_end) - min(ts) AS total_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'communication'), 0.0) AS total_comm_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'memcpy'), 0.0) AS total_memcpy_time
  FROM work
  GROUP BY trace
)
SELECT trace, computation_time, exposed_comm_time, exposed_memcpy_time, busy_time,
       total_time - busy_time AS idle_time, total_time, total_comm_time, total_memcpy_time
FROM sums
