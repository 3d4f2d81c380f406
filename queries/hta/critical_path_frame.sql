-- name: critical_path_frame
-- version: 1
-- kind: view
-- cluster: in process
-- description: hta_events with what HTA's critical path analysis reads besides: each event's stream and correlation as HTA writes them (-1: none), and its linked event (HTA's index_correlation).
--
-- HTA links a runtime call and the GPU work it launched by their
-- correlation: GPU work (a stream and a correlation) and the device-wide
-- sync events (Event Sync, Context Sync) on one side, the other events
-- with a correlation on the other; where several match, the last in the
-- trace. An event with a correlation but no match links to 0, one without
-- a correlation to -1.
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: event uid
--   cat: event category
--   name: event name
--   correlation: args.correlation (-1: none)
--   stream: args.stream (-1: none)
--   ts: start, whole µs (hta_events)
--   t_end: end, whole µs
--   dur: t_end - ts
--   index_correlation: the uid of the linked event (0: not in the trace, -1: no correlation)
WITH frame AS (
  SELECT trace, rank, uid, cat, name, coalesce(correlation, -1) AS correlation,
         coalesce(stream, -1) AS stream, ts, t_end, t_end - ts AS dur
  FROM hta_events
),
sides AS (
  SELECT trace, uid, correlation,
         (stream >= 0 AND correlation >= 0) OR name IN ('Event Sync', 'Context Sync') AS on_gpu
  FROM frame
  WHERE correlation <> -1
),
linked AS (
  SELECT a.trace, a.uid, max(b.uid) AS other
  FROM sides a JOIN sides b ON b.trace = a.trace AND b.correlation = a.correlation AND b.on_gpu <> a.on_gpu
  GROUP BY a.trace, a.uid
)
SELECT f.*, coalesce(l.other, least(f.correlation, 0)) AS index_correlation
FROM frame f
LEFT JOIN linked l ON l.trace = f.trace AND l.uid = f.uid
