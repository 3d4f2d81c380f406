-- name: critical_path_waits
-- version: 1
-- kind: view
-- cluster: in process
-- description: CUDA event waits for HTA's critical path, per trace: each Event Sync (the host waits for a CUDA event) and Stream Wait Event (a stream waits for one), with the GPU work it waits for and, for a stream, the work that waits.
--
-- A wait names the cudaEventRecord of its event (args
-- wait_on_cuda_event_record_corr_id) and the stream the event was recorded
-- on (args wait_on_stream); the work it waits for is the work launched last
-- onto that GPU and stream, by any thread, before the cudaEventRecord (at
-- one time, the launch first). The work that waits after a Stream Wait
-- Event is the next its cudaStreamWaitEvent's thread launches onto the
-- waiting stream, later in time. As HTA finds them (hta_events: the
-- profiled iterations). Their args are read back from the trace file, a
-- second pass over it that can take longer than the whole analysis, so the
-- waits are read only with `--param hta.cuda_event_waits=true` or `--param
-- hta.compat=true`; without, this view is empty (as for a trace recorded
-- without CUDA sync events, the profiler's default).
-- Columns:
--   trace: trace name
--   uid: the Event Sync or Stream Wait Event
--   name: Event Sync or Stream Wait Event
--   src_work: the work waited for (NULL: no launch before the record)
--   dest_work: the work that waits (Stream Wait Event; NULL: none)
WITH waits AS (
  -- The events' args are read back from the trace file, all of them, when
  -- a query reads them: only when asked for.
  SELECT w.trace, w.uid, f.name, f.index_correlation, w.pid, w.wait_on_stream, w.record_correlation
  FROM (SELECT trace, uid, pid,
               json_get_int(args, 'wait_on_stream') AS wait_on_stream,
               json_get_int(args, 'wait_on_cuda_event_record_corr_id') AS record_correlation
        FROM events
        WHERE cat = 'cuda_sync'
          AND (setting('hta.cuda_event_waits', 'false') = 'true' OR setting('hta.compat', 'false') = 'true')) w
  JOIN critical_path_frame f ON f.trace = w.trace AND f.uid = w.uid
),
traces AS (
  SELECT DISTINCT trace FROM waits WHERE wait_on_stream > -1
),
work_launches AS (
  -- Runtime launches with their work, its GPU and stream, and the launching
  -- thread, in traces with waits; numbered in time order.
  SELECT l.trace, l.uid, l.ts, g.uid AS work, g.stream, ge.pid AS gpu, le.pid, le.tid,
         CAST(row_number() OVER (PARTITION BY l.trace ORDER BY l.ts, l.uid) AS BIGINT) AS nth
  FROM traces t
  JOIN critical_path_frame l ON l.trace = t.trace
  JOIN critical_path_frame g ON g.trace = l.trace AND g.uid = l.index_correlation
    AND g.stream <> -1 AND g.index_correlation > 0
  JOIN events ge ON ge.trace = g.trace AND ge.uid = g.uid
  JOIN events le ON le.trace = l.trace AND le.uid = l.uid
  WHERE l.index_correlation > 0
    AND l.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx',
                   'cudaMemcpyAsync', 'cudaMemsetAsync', 'hipLaunchKernel', 'hipExtModuleLaunchKernel',
                   'hipMemcpyAsync', 'hipMemsetAsync', 'hipMemcpyWithStream',
                   'runFunction - job_prep_and_submit_for_execution')
),
records AS (
  -- cudaEventRecord calls, with the GPU and stream of their event.
  SELECT r.trace, r.ts, r.correlation, w.pid AS gpu, w.wait_on_stream AS stream
  FROM critical_path_frame r
  JOIN (SELECT DISTINCT trace, record_correlation, pid, wait_on_stream FROM waits WHERE wait_on_stream > -1) w
    ON w.trace = r.trace AND w.record_correlation = r.correlation
  WHERE r.name = 'cudaEventRecord'
),
recorded AS (
  SELECT trace, correlation,
         last_value(work) IGNORE NULLS OVER (PARTITION BY trace, gpu, stream ORDER BY ts, is_record, nth
                                             ROWS UNBOUNDED PRECEDING) AS work,
         is_record
  FROM (SELECT trace, CAST(NULL AS BIGINT) AS correlation, gpu, stream, ts, false AS is_record, nth, work
        FROM work_launches
        UNION ALL
        SELECT trace, correlation, gpu, stream, ts, true, NULL, NULL FROM records)
),
stream_waits AS (
  SELECT trace, uid,
         first_value(work) IGNORE NULLS OVER (PARTITION BY trace, pid, tid, stream ORDER BY ts, is_wait, nth
                                              ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS work,
         is_wait
  FROM (SELECT trace, CAST(NULL AS BIGINT) AS uid, pid, tid, stream, ts, false AS is_wait, nth, work
        FROM work_launches
        UNION ALL
        SELECT c.trace, c.uid, ce.pid, ce.tid, g.stream, c.ts, true, NULL, NULL
        FROM traces t
        JOIN critical_path_frame c ON c.trace = t.trace
        JOIN critical_path_frame g ON g.trace = c.trace AND g.uid = c.index_correlation
          AND g.stream <> -1 AND g.index_correlation > 0
        JOIN events ce ON ce.trace = c.trace AND ce.uid = c.uid
        WHERE c.name = 'cudaStreamWaitEvent' AND c.index_correlation > 0)
)
SELECT w.trace, w.uid, w.name, r.work AS src_work,
       CASE WHEN w.name = 'Stream Wait Event' THEN s.work END AS dest_work
FROM waits w
JOIN recorded r ON r.trace = w.trace AND r.correlation = w.record_correlation AND r.is_record
LEFT JOIN stream_waits s ON s.trace = w.trace AND s.uid = w.index_correlation AND s.is_wait
WHERE w.name IN ('Event Sync', 'Stream Wait Event')
