-- name: trace_health
-- version: 2
-- kind: view
-- description: Can the reports be trusted on this trace? One row per check per trace: how many events a known trace defect touches, the GPU time it affects, example uids and what it means.
--
-- Every check runs on every trace, so a clean trace shows each one with count 0.
-- The warning checks come from the view trace_health_warning_checks (what
-- report and analyze read on every run); the info checks are here.
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
zero AS (
  SELECT trace, 'zero_durations' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM events
  WHERE ph = 'X' AND dur = 0
  GROUP BY trace
),flow_ends AS (
  SELECT trace, cat, flow_id, min(uid) AS uid,
         bool_or(ph = 's') AS has_start, bool_or(ph = 'f') AS has_end
  FROM events
  WHERE ph IN ('s', 'f') AND flow_id IS NOT NULL
  GROUP BY trace, cat, flow_id
),flows AS (
  SELECT trace, 'flows_missing_an_end' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM flow_ends
  WHERE NOT (has_start AND has_end)
  GROUP BY trace
),span AS (
  SELECT trace, min(ts) AS t0, max(t_end) AS t1
  FROM events
  WHERE ph = 'X' AND cat = 'Trace'
  GROUP BY trace
),outside_events AS (
  SELECT e.trace, e.uid, e.cat, e.ts, e.t_end
  FROM events e JOIN span s ON s.trace = e.trace
  WHERE e.ph = 'X' AND e.cat <> 'Trace'
    AND (s.t0 - e.ts > 0.0005 OR e.t_end - s.t1 > 0.0005)
),outside_gpu AS (
  SELECT trace, busy_time(ts, t_end) AS gpu_us
  FROM outside_events
  WHERE cat IN ('kernel', 'gpu_memcpy', 'gpu_memset')
  GROUP BY trace
),outside AS (
  SELECT o.trace, 'outside_profiled_window' AS check, count(*) AS count,
         max(g.gpu_us) AS gpu_time_us,
         array_agg(o.uid ORDER BY o.uid) AS uids
  FROM outside_events o LEFT JOIN outside_gpu g ON g.trace = o.trace
  GROUP BY o.trace
),thread_order AS (
  SELECT trace, uid, ts,
         lag(ts) OVER (PARTITION BY trace, pid, tid, cat ORDER BY uid) AS prev_ts
  FROM events
  WHERE ph = 'X' AND cat NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Trace')
),backwards AS (
  SELECT trace, 'timestamps_backwards' AS check, count(*) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM thread_order
  WHERE prev_ts - ts > 0.0005
  GROUP BY trace
),no_devices AS (
  SELECT g.trace, 'missing_device_properties' AS check, CAST(1 AS BIGINT) AS count,
         CAST(NULL AS DOUBLE) AS gpu_time_us,
         CAST(make_array() AS BIGINT[]) AS uids
  FROM gpu g
  WHERE g.busy > 0 AND NOT EXISTS (
    SELECT 1 FROM trace_meta m WHERE m.trace = g.trace AND m.key = 'deviceProperties'
  )
),found AS (
  SELECT * FROM zero
  UNION ALL SELECT * FROM flows
  UNION ALL SELECT * FROM outside
  UNION ALL SELECT * FROM backwards
  UNION ALL SELECT * FROM no_devices
),
info_rows AS (
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
)
SELECT * FROM trace_health_warning_checks
UNION ALL
SELECT * FROM info_rows
ORDER BY trace, severity DESC, check
