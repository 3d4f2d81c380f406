-- name: memory_timeline
-- version: 1
-- kind: report
-- order: 920
-- runs: on request
-- description: The memory timeline of profile_memory=True traces: per rank and device, every allocation and free with the device's allocated and reserved bytes after it and the operator it is for (memory_peak gives the peak, memory_live_at_peak what is live there).
--
-- HTA has no memory timeline (its users have asked for one since 2023); this
-- reads the `[memory]` instant events (memory_events) that PyTorch's profiler
-- records with profile_memory=True. A trace recorded without it has none:
-- the report is empty. Plot allocated_bytes and reserved_bytes over ts per
-- device; reserved minus allocated is the caching allocator's free cache.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   device_type: cpu, cuda, hip, ... (memory_events)
--   device_id: the device (-1: the host)
--   ts: time, µs
--   bytes: allocated (> 0) or freed (< 0)
--   allocated_bytes: the device's allocated bytes after it
--   reserved_bytes: the device's reserved bytes after it
--   op: the operator the block is for (memory_events.owner_op; empty: none)
--   top_op: the outermost operator running then
SELECT coalesce(rank, 0) AS rank, device_type, device_id, ts, bytes,
       allocated AS allocated_bytes, reserved AS reserved_bytes,
       owner_op AS op, top_op
FROM memory_events
ORDER BY rank, trace, device_type, device_id, ts, uid
