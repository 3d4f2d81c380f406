-- name: memory_peak
-- version: 1
-- kind: report
-- order: 921
-- runs: on request
-- description: Per rank and device, the peak of allocated memory in a profile_memory=True trace: when, how much, the reserved bytes then and at their own peak, and how much of the peak the trace saw being allocated.
--
-- From memory_events and memory_peak_moment. The peak is the largest "Total Allocated" after an
-- allocation, at its first time. Blocks allocated before the profiler started
-- (weights, the optimizer state) are part of the totals but have no event:
-- untracked_bytes is the part of the peak no allocation in the trace explains.
-- memory_live_at_peak lists the rest by operator.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   device_type: cpu, cuda, hip, ... (memory_events)
--   device_id: the device (-1: the host)
--   allocations: allocation events
--   frees: free events
--   allocated_bytes_total: bytes allocated over the trace
--   peak_allocated_bytes: the most allocated at once
--   peak_ts: when it was first reached, µs
--   peak_op: the operator whose allocation reached it
--   reserved_at_peak_bytes: reserved bytes then
--   peak_reserved_bytes: the most reserved at once
--   live_at_peak_bytes: bytes of allocations in the trace still live at the peak
--   untracked_bytes: peak_allocated_bytes - live_at_peak_bytes (allocated before the trace)
WITH per_device AS (
  SELECT trace, coalesce(rank, 0) AS rank, device_type, device_id,
         count(*) FILTER (WHERE bytes > 0) AS allocations,
         count(*) FILTER (WHERE bytes < 0) AS frees,
         coalesce(sum(bytes) FILTER (WHERE bytes > 0), 0) AS allocated_bytes_total,
         max(reserved) AS peak_reserved_bytes
  FROM memory_events
  GROUP BY trace, rank, device_type, device_id
),
peak AS (
  SELECT trace, device_type, device_id, peak_allocated, peak_ts, peak_op, peak_reserved,
         coalesce(sum(bytes), 0) AS live_bytes
  FROM memory_peak_moment
  GROUP BY trace, device_type, device_id, peak_allocated, peak_ts, peak_op, peak_reserved
)
SELECT d.rank, d.device_type, d.device_id, d.allocations, d.frees, d.allocated_bytes_total,
       p.peak_allocated AS peak_allocated_bytes, p.peak_ts, p.peak_op,
       p.peak_reserved AS reserved_at_peak_bytes, d.peak_reserved_bytes,
       p.live_bytes AS live_at_peak_bytes,
       p.peak_allocated - p.live_bytes AS untracked_bytes
FROM per_device d
JOIN peak p ON p.trace = d.trace AND p.device_type = d.device_type AND p.device_id = d.device_id
ORDER BY d.rank, d.trace, d.device_type, d.device_id
