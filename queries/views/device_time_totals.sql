-- name: device_time_totals
-- version: 1
-- kind: view
-- description: gpu_time_totals per GPU: computation, exposed communication and memcpy, busy, idle and total time of each device of each trace, in µs.
--
-- gpu_time_totals pools every device of a trace into one timeline, as
-- TraceLens does; a process driving several GPUs, or a merged trace, then shows
-- one GPU's idle time hidden under another's work. Same counting, one row per
-- (trace, device).
-- Columns:
--   trace: the trace
--   device: the GPU (args.device, else the pid)
--   computation_time: busy time of compute kernels and memsets, µs
--   exposed_comm_time: communication not overlapped by computation, µs
--   exposed_memcpy_time: memcpy overlapped by neither computation nor communication, µs
--   busy_time: union of the device's linked GPU work, µs
--   idle_time: total_time - busy_time, µs
--   total_time: last end - first start of the device's linked GPU work, µs
--   total_comm_time: busy time of communication, µs
--   total_memcpy_time: busy time of memcpy, µs
WITH work AS (
  SELECT trace, device, ts, t_end,
         CASE class WHEN 'memset' THEN 'compute' ELSE class END AS bucket
  FROM linked_kernels
),
sums AS (
  SELECT
    trace, device,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'compute'), 0.0) AS computation_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'communication') FILTER (WHERE bucket <> 'memcpy'), 0.0)
      AS exposed_comm_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'memcpy'), 0.0) AS exposed_memcpy_time,
    busy_time(ts, t_end) AS busy_time,
    max(t_end) - min(ts) AS total_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'communication'), 0.0) AS total_comm_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'memcpy'), 0.0) AS total_memcpy_time
  FROM work
  GROUP BY trace, device
)
SELECT trace, device, computation_time, exposed_comm_time, exposed_memcpy_time, busy_time,
       total_time - busy_time AS idle_time, total_time, total_comm_time, total_memcpy_time
FROM sums
