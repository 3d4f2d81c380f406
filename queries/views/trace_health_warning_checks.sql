-- name: trace_health_warning_checks
-- version: 2
-- kind: view
-- description: The warning checks of trace_health alone (the defects that change what the reports count): one row per check per trace, in trace_health's columns.
--
-- What report and analyze read on every run (trace_health_summary, the rule
-- trace_health_warnings): the info checks of trace_health scan every event,
-- and these need only the GPU work and its launches, so a report does not pay
-- for the info checks unless someone asks for them.
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
-- * shapes_not_recorded: ops with GPU work of their own that carry no Input
--   Dims (the profiler ran without record_shapes, common in production): the
--   unique-args and perf sheets have no shapes, so FLOPs, bytes and efficiency
--   are unknown for them, not zero.
-- The columns are trace_health's (severity is always warning).
-- Columns:
--   trace: the trace file the row comes from
--   check: the check's name (above)
--   severity: warning
--   count: kernels, correlation ids or ops (launch_after_op_end) the check
--     found; 0 when the trace is clean
--   gpu_time_us: busy time of the GPU events involved (the overlapped time for
--     stream_overlap), µs
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
    ('shapes_not_recorded', 'warning',
     'Ops without Input Dims (recorded without record_shapes): no shapes, so FLOPs, bytes and efficiency are unknown for them.')
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
),stream_order AS (
  SELECT trace, uid, ts, t_end,
         max(t_end) OVER (PARTITION BY trace, device, stream ORDER BY ts, uid
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM kernels
),overlap AS (
  SELECT trace, 'stream_overlap' AS check, count(*) AS count,
         sum(least(prev_end, t_end) - ts) AS gpu_time_us,
         array_agg(uid ORDER BY uid) AS uids
  FROM stream_order
  WHERE prev_end - ts > 0.0005
  GROUP BY trace
),launch_calls AS (
  SELECT trace, uid, correlation
  FROM events
  WHERE ph = 'X' AND cat IN ('cuda_runtime', 'cuda_driver') AND correlation IS NOT NULL
),shared_ids AS (
  SELECT trace, correlation, min(uid) AS uid
  FROM launch_calls
  GROUP BY trace, correlation
  HAVING count(*) > 1
),duplicates AS (
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
),late AS (
  SELECT k.trace, o.uid AS op_uid, k.ts, k.t_end
  FROM kernels k
  JOIN events c ON c.trace = k.trace AND c.uid = k.launch_uid
  JOIN ops o ON o.trace = k.trace AND o.external_id = c.external_id AND o.pid = c.pid
  WHERE c.ts - (o.ts + o.dur) > 0.0005
),late_op_uids AS (
  SELECT trace, array_agg(op_uid ORDER BY op_uid) AS uids
  FROM (SELECT DISTINCT trace, op_uid FROM late)
  GROUP BY trace
),late_ops AS (
  SELECT l.trace, 'launch_after_op_end' AS check, count(DISTINCT l.op_uid) AS count,
         busy_time(l.ts, l.t_end) AS gpu_time_us, max(u.uids) AS uids
  FROM late l JOIN late_op_uids u ON u.trace = l.trace
  GROUP BY l.trace
),shapeless AS (
  SELECT k.trace, 'shapes_not_recorded' AS check, count(DISTINCT o.uid) AS count,
         busy_time(k.ts, k.t_end) AS gpu_time_us,
         array_agg(DISTINCT o.uid ORDER BY o.uid) AS uids
  FROM linked_kernels k
  JOIN ops o ON o.trace = k.trace AND o.uid = k.op_uid
  WHERE o.input_dims_json IS NULL
  GROUP BY k.trace
),found AS (
  SELECT * FROM unlinked
  UNION ALL SELECT * FROM shapeless
  UNION ALL SELECT * FROM overlap
  UNION ALL SELECT * FROM duplicates
  UNION ALL SELECT * FROM late_ops
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
ORDER BY t.trace, c.check
