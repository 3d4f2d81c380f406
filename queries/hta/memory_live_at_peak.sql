-- name: memory_live_at_peak
-- version: 1
-- kind: report
-- order: 922
-- runs: on request
-- description: Per rank and device, the blocks live at the peak of allocated memory (memory_peak), by the operator they were allocated for: what to shrink, recompute or free earlier to lower the peak.
--
-- The blocks of memory_peak_moment: allocated in the trace at or before the
-- peak's event and freed after it (or never, within the trace). Grouped by the operator the block is for (owner_op) under
-- the outermost operator running then (top_op: a module's forward, an
-- optimizer step), largest first. Blocks from before the trace are not here:
-- memory_peak's untracked_bytes.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   device_type: cpu, cuda, hip, ... (memory_events)
--   device_id: the device (-1: the host)
--   top_op: the outermost operator when allocated (empty: none)
--   op: the operator the blocks are for (empty: none)
--   blocks: live blocks
--   bytes: their bytes
--   share_of_peak_pct: bytes, % of the peak's allocated bytes
--   first_allocated_ts: the earliest of them was allocated then, µs
SELECT coalesce(rank, 0) AS rank, device_type, device_id, top_op, op,
       count(*) AS blocks, sum(bytes) AS bytes,
       100.0 * sum(bytes) / nullif(max(peak_allocated), 0) AS share_of_peak_pct,
       min(ts) AS first_allocated_ts
FROM memory_peak_moment
WHERE block_uid IS NOT NULL
GROUP BY trace, rank, device_type, device_id, top_op, op
ORDER BY rank, trace, device_type, device_id, bytes DESC, top_op, op
