-- name: critical_path_events
-- version: 1
-- kind: view
-- cluster: in process
-- description: The events HTA's critical path analysis reads, per trace: those of one instance of an annotation (`hta.annotation`, `hta.instance`), with whether the graph has nodes for them.
--
-- The window is critical_path_window. Kept: the CPU events (stream -1)
-- that start within it and last at least a µs, and the GPU work launched by one of them (any
-- Stream Wait Event too), as HTA clips. A thread is the event's tid, but
-- when exactly one thread has operators or annotations named "forward" and
-- another one those named "autograd", the backward thread's events count
-- as the forward thread's (HTA merges them).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: event uid
--   cat: event category
--   name: event name
--   pid: process id
--   tid: thread id
--   thread: the thread its call stack is built in (tid, or the forward thread's)
--   stream: args.stream (-1: none)
--   ts: start, whole µs
--   t_end: end, whole µs
--   dur: t_end - ts
--   index_correlation: the linked event (critical_path_frame)
--   has_nodes: whether the graph has a start and an end node for it (CPU operators, runtime and driver calls, launched GPU work)
--   is_blocking: a call HTA counts as waiting (its time is not on the path): cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventQuery, cudaEventSynchronize, cudaMemcpy, cudaMemcpyAsync
--   is_lock: a call that takes the CUDA runtime lock: cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync
WITH cpu_in_window AS (
  SELECT d.* FROM critical_path_frame d JOIN critical_path_window w ON w.trace = d.trace
  WHERE d.stream = -1 AND d.ts >= w.start_ts AND d.ts <= w.end_ts AND d.dur > 0
),
clipped AS (
  SELECT c.*, e.pid, e.tid
  FROM (SELECT * FROM cpu_in_window
        UNION ALL
        SELECT d.* FROM critical_path_frame d
        LEFT JOIN (SELECT DISTINCT trace, index_correlation AS uid FROM cpu_in_window) l
          ON l.trace = d.trace AND l.uid = d.uid
        WHERE d.stream <> -1 AND (l.uid IS NOT NULL OR d.name = 'Stream Wait Event')) c
  JOIN events e ON e.trace = c.trace AND e.uid = c.uid
),
thread_roles AS (
  -- The forward and the backward thread, where exactly one thread has each.
  SELECT trace,
         CASE WHEN count(DISTINCT CASE WHEN strpos(name, 'forward') > 0 THEN tid END) = 1
              THEN max(CASE WHEN strpos(name, 'forward') > 0 THEN tid END) END AS fwd,
         CASE WHEN count(DISTINCT CASE WHEN strpos(name, 'autograd') > 0 THEN tid END) = 1
              THEN max(CASE WHEN strpos(name, 'autograd') > 0 THEN tid END) END AS bwd
  FROM clipped
  WHERE cat IN ('cpu_op', 'user_annotation')
  GROUP BY trace
)
SELECT c.trace, c.rank, c.uid, c.cat, c.name, c.pid, c.tid,
       CASE WHEN r.fwd IS NOT NULL AND c.tid = r.bwd THEN r.fwd ELSE c.tid END AS thread,
       c.stream, c.ts, c.t_end, c.dur, c.index_correlation,
       c.cat IN ('cpu_op', 'cuda_runtime', 'cuda_driver') OR (c.stream <> -1 AND c.index_correlation >= 0) AS has_nodes,
       c.name IN ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventQuery',
                  'cudaEventSynchronize', 'cudaMemcpy', 'cudaMemcpyAsync') AS is_blocking,
       c.name IN ('cudaHostAlloc', 'cudaLaunchKernel', 'cudaMemcpyAsync') AS is_lock
FROM clipped c
LEFT JOIN thread_roles r ON r.trace = c.trace
