-- name: trace_health
-- version: 1
-- kind: view
-- description: Can the reports be trusted on this trace? One row per check per trace: how many events a known trace defect touches, the GPU time it affects, example uids and what it means.
--
-- Every check runs on every trace, so a clean trace shows each one with count 0.
-- `warning`: the defect changes what the reports count (GPU time left out or
-- double counted, launches tied to the wrong op). `info`: worth knowing, the
-- reports hold. The one-line summary `report` and `analyze` print is the view
-- trace_health_summary; the analyzer's rule `trace_health_warnings` turns the warnings
-- into findings.
--
-- Checks:
-- * unlinked_gpu_work: GPU events that no launch call claims (view
--   linked_kernels): the timeline and the op tables leave them out.
-- * stream_overlap: kernels that start before the previous kernel on the same
--   device and stream ended (by more than 0.5 ns). One stream runs one kernel
--   at a time, so the trace's timestamps are off (clock skew, a profiler bug).
-- * duplicate_correlation: correlation ids carried by several runtime / driver
--   calls: GPU work with such an id may be tied to the wrong launch.
-- * launch_after_op_end: ops (cpu_op) whose launch calls (the runtime calls
--   carrying the op's External id) start after the op ended, e.g. work queued
--   on another thread: the launch is not nested in the op, so its GPU time is
--   not the op's in the reports.
-- * zero_durations: complete events (ph X) whose dur is 0.
-- * flows_missing_an_end: flow ids (ac2g, fwdbwd, ...) with a start and no
--   end, or an end and no start. Common and harmless for launches without GPU
--   work; linking goes by correlation id anyway.
-- * outside_profiled_window: events that start before or end after the
--   profiler's own span (the `Trace` event), e.g. kernels still running when
--   profiling stopped.
-- * timestamps_backwards: events that start before the previous event of the
--   same category on their thread, in file order (the profiler writes each
--   thread's events in start order).
-- * missing_device_properties: a trace with GPU work and no deviceProperties:
--   no platform is detected for roofline columns (give --platform).
-- Columns:
--   trace: the trace file the row comes from
--   check: the check's name (above)
--   severity: warning | info
--   count: events (ops for launch_after_op_end, flow ids, correlation ids, 1 for
--     missing_device_properties) the check found; 0 when the trace is clean
--   gpu_time_us: busy time of the GPU events involved (the overlapped time for
--     stream_overlap), µs; NULL when the check is not about GPU work
--   gpu_time_pct: gpu_time_us as % of the busy time of all GPU events
--   example_uids: up to 5 uids (events.uid) to look at, smallest first
--   explanation: what the check means for the reports
WITH traces AS (
  SELECT DISTINCT trace FROM trace_meta
),
gpu AS (
  SELECT trace, busy_time(ts, t_end) AS busy FROM kernels GROUP BY trace
),
checks (check, severity, explanation) AS (
  VALUES
    ('unlinked_gpu_work', 'warning',
     'GPU events no launch call claims: the timeline and the op tables leave their time out.'),
    ('stream_overlap', 'warning',
     'Kernels starting before the previous kernel on their stream ended: timestamps are off, busy and idle time are not exact.'),
    ('duplicate_correlation', 'warning',
     'Correlation ids shared by several launch calls: their GPU work may be tied to the wrong launch and op.'),
    ('launch_after_op_end', 'warning',
     'Ops whose kernels are launched after the op ended: their kernel time may belong to another op.'),
    ('zero_durations', 'info',
     'Complete events with a duration of 0.'),
    ('flows_missing_an_end', 'info',
     'Flow ids with only a start or only an end (common for launches without GPU work); links go by correlation id.'),
    ('outside_profiled_window', 'info',
     'Events starting before or ending after the profiler''s own span (e.g. kernels still running when profiling stopped).'),
    ('timestamps_backwards', 'info',
     'Events starting before the previous event of their category on their thread, in file order.'),
    ('missing_device_properties', 'info',
     'GPU work but no deviceProperties: no platform is detected for roofline columns (give --platform).')
),
unlinked AS (
  SELECT k.trace, 'unlinked_gpu_work' AS check, count(*) AS count,
         busy_time(k.ts, k.t_end) AS gpu_time_us,
         array_agg(k.uid ORDER BY k.uid) AS uids
  FROM kernels k
  WHERE NOT EXISTS (
    SELECT 1 FROM linked_kernels l WHERE l.trace = k.trace AND l.uid = k.uid
  )
  GROUP BY k.trace
),
stream_order AS (
  SELECT trace, uid, ts, t_end,
         max(t_end) OVER (PARTITION BY trace, device, stream ORDER BY ts, uid
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM kernels
),
overlap AS (
  SELECT trace, 'stream_overlap' AS check, count(*) AS count,
         sum(least(prev_end, t_end) - ts) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM stream_order
  WHERE prev_end - ts > 0.0005
  GROUP BY trace
),
launch_calls AS (
  SELECT trace, uid, correlation
  FROM events
  WHERE ph = 'X' AND cat IN ('cuda_runtime', 'cuda_driver') AND correlation IS NOT NULL
),
shared_ids AS (
  SELECT trace, correlation, min(uid) AS uid
  FROM launch_calls
  GROUP BY trace, correlation
  HAVING count(*) > 1
),
duplicates AS (
  SELECT s.trace, 'duplicate_correlation' AS check, count(*) AS count,
         max(g.gpu_us) AS gpu_time_us,
         array_agg(s.uid ORDER BY s.uid) AS uids
  FROM shared_ids s
  LEFT JOIN (
    SELECT k.trace, busy_time(k.ts, k.t_end) AS gpu_us
    FROM kernels k JOIN shared_ids d ON d.trace = k.trace AND d.correlation = k.correlation
    GROUP BY k.trace
  ) g ON g.trace = s.trace
  GROUP BY s.trace
),
late AS (
  SELECT k.trace, o.uid AS op_uid, k.ts, k.t_end
  FROM kernels k
  JOIN events c ON c.trace = k.trace AND c.uid = k.launch_uid
  JOIN ops o ON o.trace = k.trace AND o.external_id = c.external_id AND o.pid = c.pid
  WHERE c.ts - (o.ts + o.dur) > 0.0005
),
late_op_uids AS (
  SELECT trace, array_agg(op_uid ORDER BY op_uid) AS uids
  FROM (SELECT DISTINCT trace, op_uid FROM late)
  GROUP BY trace
),
late_ops AS (
  SELECT l.trace, 'launch_after_op_end' AS check, count(DISTINCT l.op_uid) AS count,
         busy_time(l.ts, l.t_end) AS gpu_time_us, max(u.uids) AS uids
  FROM late l JOIN late_op_uids u ON u.trace = l.trace
  GROUP BY l.trace
),
zero AS (
  SELECT trace, 'zero_durations' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM events
  WHERE ph = 'X' AND dur = 0
  GROUP BY trace
),
flow_ends AS (
  SELECT trace, cat, flow_id, min(uid) AS uid,
         bool_or(ph = 's') AS has_start, bool_or(ph = 'f') AS has_end
  FROM events
  WHERE ph IN ('s', 'f') AND flow_id IS NOT NULL
  GROUP BY trace, cat, flow_id
),
flows AS (
  SELECT trace, 'flows_missing_an_end' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM flow_ends
  WHERE NOT (has_start AND has_end)
  GROUP BY trace
),
span AS (
  SELECT trace, min(ts) AS t0, max(t_end) AS t1
  FROM events
  WHERE ph = 'X' AND cat = 'Trace'
  GROUP BY trace
),
outside_events AS (
  SELECT e.trace, e.uid, e.cat, e.ts, e.t_end
  FROM events e JOIN span s ON s.trace = e.trace
  WHERE e.ph = 'X' AND e.cat <> 'Trace'
    AND (s.t0 - e.ts > 0.0005 OR e.t_end - s.t1 > 0.0005)
),
outside_gpu AS (
  SELECT trace, busy_time(ts, t_end) AS gpu_us
  FROM outside_events
  WHERE cat IN ('kernel', 'gpu_memcpy', 'gpu_memset')
  GROUP BY trace
),
outside AS (
  SELECT o.trace, 'outside_profiled_window' AS check, count(*) AS count,
         max(g.gpu_us) AS gpu_time_us,
         array_agg(o.uid ORDER BY o.uid) AS uids
  FROM outside_events o LEFT JOIN outside_gpu g ON g.trace = o.trace
  GROUP BY o.trace
),
thread_order AS (
  SELECT trace, uid, ts,
         lag(ts) OVER (PARTITION BY trace, pid, tid, cat ORDER BY uid) AS prev_ts
  FROM events
  WHERE ph = 'X' AND cat NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Trace')
),
backwards AS (
  SELECT trace, 'timestamps_backwards' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM thread_order
  WHERE prev_ts - ts > 0.0005
  GROUP BY trace
),
no_devices AS (
  SELECT g.trace, 'missing_device_properties' AS check, CAST(1 AS BIGINT) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         CAST(make_array() AS BIGINT[]) AS uids
  FROM gpu g
  WHERE g.busy > 0 AND NOT EXISTS (
    SELECT 1 FROM trace_meta m WHERE m.trace = g.trace AND m.key = 'deviceProperties'
  )
),
found AS (
  SELECT * FROM unlinked
  UNION ALL SELECT * FROM overlap
  UNION ALL SELECT * FROM duplicates
  UNION ALL SELECT * FROM late_ops
  UNION ALL SELECT * FROM zero
  UNION ALL SELECT * FROM flows
  UNION ALL SELECT * FROM outside
  UNION ALL SELECT * FROM backwards
  UNION ALL SELECT * FROM no_devices
)
SELECT t.trace, c.check, c.severity,
       coalesce(f.count, 0) AS count,
       f.gpu_time_us,
       CASE WHEN g.busy > 0 THEN f.gpu_time_us / g.busy * 100 END AS gpu_time_pct,
       coalesce(array_slice(f.uids, 1, 5), CAST(make_array() AS BIGINT[])) AS example_uids,
       c.explanation
FROM traces t
CROSS JOIN checks c
LEFT JOIN found f ON f.trace = t.trace AND f.check = c.check
LEFT JOIN gpu g ON g.trace = t.trace
ORDER BY t.trace, c.severity DESC, c.check
