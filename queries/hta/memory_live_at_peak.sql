-- name: memory_live_at_peak
-- version: 1
-- kind: report
-- order: 922
-- runs: on request
-- description: Per rank and device, the blocks live at the peak of allocated memory (memory_peak), by the operator they were allocated for: what to shrink, recompute or free earlier to lower the peak.
--
-- A block allocated in the trace (memory_events) is live at the peak when it
-- was allocated at or before the peak's event and freed after it (or never,
-- within the trace). Grouped by the operator the block is for (owner_op) under
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
WITH per_device AS (
  SELECT trace, device_type, device_id, max(allocated) AS peak_allocated
  FROM memory_events GROUP BY trace, device_type, device_id
),
peak AS (
  SELECT m.trace, m.device_type, m.device_id, m.ts, m.uid, d.peak_allocated,
         row_number() OVER (PARTITION BY m.trace, m.device_type, m.device_id ORDER BY m.ts, m.uid) AS nth
  FROM memory_events m
  JOIN per_device d ON d.trace = m.trace AND d.device_type = m.device_type
   AND d.device_id = m.device_id AND m.allocated = d.peak_allocated
)
SELECT coalesce(m.rank, 0) AS rank, m.device_type, m.device_id, m.top_op, m.owner_op AS op,
       count(*) AS blocks, sum(m.bytes) AS bytes,
       100.0 * sum(m.bytes) / nullif(max(p.peak_allocated), 0) AS share_of_peak_pct,
       min(m.ts) AS first_allocated_ts
FROM memory_events m
JOIN peak p ON p.trace = m.trace AND p.device_type = m.device_type AND p.device_id = m.device_id AND p.nth = 1
WHERE m.bytes > 0
  AND (m.ts < p.ts OR (m.ts = p.ts AND m.uid <= p.uid))
  AND (m.free_uid IS NULL OR m.freed_ts > p.ts OR (m.freed_ts = p.ts AND m.free_uid > p.uid))
GROUP BY m.trace, m.rank, m.device_type, m.device_id, m.top_op, m.owner_op
ORDER BY rank, m.trace, m.device_type, m.device_id, bytes DESC, top_op, op
