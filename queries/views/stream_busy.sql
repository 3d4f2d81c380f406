-- name: stream_busy
-- version: 1
-- kind: view
-- description: Each GPU stream's busy time and what ran on it, per device: the first half of stream_overlap.
--
-- Counts linked GPU work (linked_kernels), by class (classified_kernels), so a
-- stream of DeepEP or NVSHMEM kernels is a communication stream.
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   device: the GPU
--   stream: the stream
--   kernels: GPU events on it
--   busy_time: union of their intervals, µs
--   compute_time: busy time of its compute kernels and memsets, µs
--   comm_time: busy time of its communication kernels, µs
--   memcpy_time: busy time of its memcpy, µs
--   busy_share_pct: busy_time / the device's busy time (the union over all its
--     streams), %: shares of the busy union, never above 100
--   main_class: the class with the most busy time on the stream
WITH work AS (
  SELECT trace, rank, device, stream, ts, t_end,
    CASE class WHEN 'memset' THEN 'compute' ELSE class END AS bucket
  FROM linked_kernels
),
per_stream AS (
  SELECT trace, rank, device, stream, count(*) AS kernels,
    busy_time(ts, t_end) AS busy_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'compute'), 0.0) AS compute_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'communication'), 0.0) AS comm_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'memcpy'), 0.0) AS memcpy_time
  FROM work GROUP BY trace, rank, device, stream
),
per_device AS (
  SELECT trace, device, busy_time(ts, t_end) AS device_busy FROM work GROUP BY trace, device
)
SELECT s.trace, s.rank, s.device, s.stream, s.kernels, s.busy_time, s.compute_time,
  s.comm_time, s.memcpy_time,
  CASE WHEN d.device_busy > 0 THEN s.busy_time / d.device_busy * 100 END AS busy_share_pct,
  CASE
    WHEN s.comm_time >= s.compute_time AND s.comm_time >= s.memcpy_time THEN 'communication'
    WHEN s.memcpy_time > s.compute_time THEN 'memcpy'
    ELSE 'compute'
  END AS main_class
FROM per_stream s JOIN per_device d ON d.trace = s.trace AND d.device = s.device
