-- name: memory_events
-- version: 1
-- kind: view
-- description: The allocator's record (`[memory]` instant events of profile_memory=True): one row per allocation or free, with the device's allocated and reserved bytes after it and the operator that made it.
--
-- PyTorch's profiler, with profile_memory=True, writes an instant event named
-- `[memory]` for every allocation (Bytes > 0) and free (Bytes < 0) of the
-- caching allocator, on the thread that asked, with the device's totals after
-- it. The operator is the innermost cpu_op running on that thread at that
-- moment: host events are cut at their starts and ends per thread, and the
-- open operator at an instant is the last one that started at the instant's
-- nesting depth (ops of zero length contain nothing). A free's operator is
-- the one that dropped the last reference (often not the allocating one);
-- alloc_uid ties a free to its allocation (the previous event of the same
-- address on the device).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: the instant's uid
--   pid: process
--   tid: thread
--   ts: time, µs
--   device_type: c10's device type: cpu (Device Type 0), cuda (1), hip (6: ROCm), xpu (12), mtia (19), else the number
--   device_id: Device Id (-1 for the host)
--   addr: the block's address
--   bytes: allocated (> 0) or freed (< 0) bytes
--   allocated: the device's allocated bytes after it (Total Allocated)
--   reserved: the device's reserved bytes after it (Total Reserved: allocated plus the allocator's cache)
--   op_uid: the cpu_op it happened in (NULL: none)
--   op_name: that op's name
--   owner_op: the op the block is for: op_name, or the op that called it when
--     op_name only allocates (aten::empty*, aten::new_empty*, aten::resize_)
--   top_op: the outermost cpu_op running on the thread then
--   alloc_uid: for a free, the allocation it frees (NULL when that was before the trace)
--   freed_ts: for an allocation, when it was freed (NULL: still live at the trace's end)
--   free_uid: the free's uid
WITH instants AS (
  SELECT trace, rank, uid, pid, tid, ts,
         json_get_int(args, 'Device Type') AS device_kind,
         json_get_int(args, 'Device Id') AS device_id,
         json_get_int(args, 'Addr') AS addr,
         json_get_int(args, 'Bytes') AS bytes,
         json_get_int(args, 'Total Allocated') AS allocated,
         json_get_int(args, 'Total Reserved') AS reserved
  FROM events
  WHERE name = '[memory]'
),
cuts AS (
  -- Per thread, in time order: op ends (0), op starts (1, outer first), then
  -- the instants (2); depth is the number of ops open after each cut.
  SELECT trace, pid, tid, ts, 1 AS step, -dur AS within, uid, 1 AS delta
  FROM events WHERE cat = 'cpu_op' AND dur > 0
  UNION ALL
  SELECT trace, pid, tid, t_end AS ts, 0 AS step, 0.0 AS within, uid, -1 AS delta
  FROM events WHERE cat = 'cpu_op' AND dur > 0
  UNION ALL
  SELECT trace, pid, tid, ts, 2 AS step, 0.0 AS within, uid, 0 AS delta
  FROM instants
),
depths AS (
  SELECT *, sum(delta) OVER (PARTITION BY trace, pid, tid ORDER BY ts, step, within, uid
                             ROWS UNBOUNDED PRECEDING) AS depth
  FROM cuts
),
starts AS (
  -- Numbers the op starts of each depth, and those at depth 1, in time order:
  -- a row's number is that of the last start at or before it. (Not
  -- last_value IGNORE NULLS: a cluster's plans lose IGNORE NULLS.)
  SELECT *,
         sum(CASE WHEN step = 1 THEN 1 ELSE 0 END)
           OVER (PARTITION BY trace, pid, tid, depth ORDER BY ts, step, within, uid
                 ROWS UNBOUNDED PRECEDING) AS op_no,
         sum(CASE WHEN step = 1 AND depth = 1 THEN 1 ELSE 0 END)
           OVER (PARTITION BY trace, pid, tid ORDER BY ts, step, within, uid
                 ROWS UNBOUNDED PRECEDING) AS top_no
  FROM depths
  WHERE step <> 0
),
opened AS (
  -- The op an instant is in: the last op start at the same depth before it
  -- (the first row of its number). The outermost: the last start at depth 1.
  SELECT trace, uid, step, depth,
         CASE WHEN op_no > 0 THEN
           first_value(uid) OVER (PARTITION BY trace, pid, tid, depth, op_no
                                  ORDER BY ts, step, within, uid ROWS UNBOUNDED PRECEDING)
         END AS op_uid,
         CASE WHEN top_no > 0 THEN
           first_value(uid) OVER (PARTITION BY trace, pid, tid, top_no
                                  ORDER BY ts, step, within, uid ROWS UNBOUNDED PRECEDING)
         END AS top_uid
  FROM starts
),
placed AS (
  SELECT i.*, CASE WHEN o.depth > 0 THEN o.op_uid END AS op_uid,
         CASE WHEN o.depth > 0 THEN o.top_uid END AS top_uid
  FROM instants i JOIN opened o ON o.trace = i.trace AND o.uid = i.uid AND o.step = 2
),
paired AS (
  SELECT *,
         lag(uid) OVER block AS previous_uid,
         lag(bytes) OVER block AS previous_bytes,
         lead(ts) OVER block AS next_ts,
         lead(uid) OVER block AS next_uid,
         lead(bytes) OVER block AS next_bytes
  FROM placed
  WINDOW block AS (PARTITION BY trace, device_kind, device_id, addr ORDER BY ts, uid)
)
SELECT p.trace, p.rank, p.uid, p.pid, p.tid, p.ts,
       CASE p.device_kind WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda' WHEN 6 THEN 'hip' WHEN 12 THEN 'xpu'
            WHEN 19 THEN 'mtia' ELSE CAST(p.device_kind AS VARCHAR) END AS device_type,
       p.device_id, p.addr, p.bytes, p.allocated, p.reserved,
       p.op_uid, e.name AS op_name,
       CASE WHEN regexp_like(e.name, '^aten::(empty|new_empty|resize_)') AND caller.cat = 'cpu_op'
            THEN caller.name ELSE e.name END AS owner_op,
       t.name AS top_op,
       CASE WHEN p.bytes < 0 AND p.previous_bytes > 0 THEN p.previous_uid END AS alloc_uid,
       CASE WHEN p.bytes > 0 AND p.next_bytes < 0 THEN p.next_ts END AS freed_ts,
       CASE WHEN p.bytes > 0 AND p.next_bytes < 0 THEN p.next_uid END AS free_uid
FROM paired p
LEFT JOIN events e ON e.trace = p.trace AND e.uid = p.op_uid
LEFT JOIN events caller ON caller.trace = p.trace AND caller.uid = e.parent_uid
LEFT JOIN events t ON t.trace = p.trace AND t.uid = p.top_uid
