-- name: memory_peak_moment
-- version: 1
-- kind: view
-- description: Per trace and device, the moment allocated memory peaks (memory_events): the first event after which "Total Allocated" is at its largest, and the blocks of the trace live then (memory_peak, memory_live_at_peak read it).
--
-- One row per block allocated in the trace that is live at the peak: allocated
-- at or before the peak's event and freed after it (or not within the trace);
-- and one row with no block (block_uid NULL) per device, so that a peak
-- without live blocks of the trace still has its moment.
-- Columns:
--   trace: trace name
--   device_type: cpu, cuda, hip, ... (memory_events)
--   device_id: the device (-1: the host)
--   peak_allocated: the most allocated at once, bytes
--   peak_ts: when it was first reached, µs
--   peak_uid: the event that reached it
--   peak_op: the operator whose allocation reached it
--   peak_reserved: reserved bytes then
--   block_uid: a block live at the peak (NULL: the moment's own row)
--   rank: the block's trace's rank
--   bytes: its bytes
--   ts: when it was allocated, µs
--   op: the operator it is for (memory_events.owner_op)
--   top_op: the outermost operator when it was allocated
WITH per_device AS (
  SELECT trace, device_type, device_id, max(allocated) AS peak_allocated
  FROM memory_events GROUP BY trace, device_type, device_id
),
peak AS (
  SELECT m.trace, m.device_type, m.device_id, d.peak_allocated, m.ts AS peak_ts, m.uid AS peak_uid,
         m.owner_op AS peak_op, m.reserved AS peak_reserved,
         row_number() OVER (PARTITION BY m.trace, m.device_type, m.device_id ORDER BY m.ts, m.uid) AS nth
  FROM memory_events m
  JOIN per_device d ON d.trace = m.trace AND d.device_type = m.device_type
   AND d.device_id = m.device_id AND m.allocated = d.peak_allocated
),
moment AS (SELECT * FROM peak WHERE nth = 1)
SELECT p.trace, p.device_type, p.device_id, p.peak_allocated, p.peak_ts, p.peak_uid, p.peak_op, p.peak_reserved,
       CAST(NULL AS BIGINT) AS block_uid, CAST(NULL AS BIGINT) AS rank, CAST(NULL AS BIGINT) AS bytes,
       CAST(NULL AS DOUBLE) AS ts, CAST(NULL AS VARCHAR) AS op, CAST(NULL AS VARCHAR) AS top_op
FROM moment p
UNION ALL
SELECT p.trace, p.device_type, p.device_id, p.peak_allocated, p.peak_ts, p.peak_uid, p.peak_op, p.peak_reserved,
       m.uid, m.rank, m.bytes, m.ts, m.owner_op, m.top_op
FROM memory_events m
JOIN moment p ON p.trace = m.trace AND p.device_type = m.device_type AND p.device_id = m.device_id
WHERE m.bytes > 0
  AND (m.ts < p.peak_ts OR (m.ts = p.peak_ts AND m.uid <= p.peak_uid))
  AND (m.free_uid IS NULL OR m.freed_ts > p.peak_ts OR (m.freed_ts = p.peak_ts AND m.free_uid > p.peak_uid))
