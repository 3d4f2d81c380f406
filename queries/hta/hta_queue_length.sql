-- name: hta_queue_length
-- version: 1
-- kind: view
-- description: The queue length of every GPU stream after each launch and each GPU start (HTA's queue length time series, every rank, absolute and relative times): queue_length_time_series, queue_length_summary and the counter tracks of `export --counters` read it.
--
-- An operation enters its stream's queue when the CPU call that launched it
-- starts, and leaves it when it starts on the GPU (HTA's definition: its end
-- does not count). One row per event, in time order on each stream, with the
-- queue length just after it; the queue starts empty. Times are whole µs as
-- HTA reads them (hta_events: the profiled iterations), relative to the
-- earliest event of the session, as HTA aligns its ranks. Events at the same
-- µs on a stream come launches first, then in event order (HTA sorts with an
-- unstable sort, so its order at such ties is arbitrary; this is its order
-- with a stable sort).
-- Every launch call linked to GPU work counts (kernels.launch_uid): CUDA and
-- HIP launches (hipModuleLaunchKernel too), cuLaunchKernel, memcpy and memset
-- calls, synchronous ones too, and a graph launch that starts N kernels queues
-- N operations. A queue is a stream of one GPU: a process that drives two
-- GPUs has a stream 7 on each, two queues (both rows under stream 7 here).
-- HTA counts only the calls on its list of launch names (no graph launches,
-- no hipModuleLaunchKernel, no synchronous copies), only those whose
-- correlation id a GPU event carries, and merges the streams of one number
-- across GPUs; `--param hta.compat=true` reproduces that (DIFFERENCES.md).
-- Columns:
--   trace: trace name
--   rank: the trace's rank (0 when the trace gives none)
--   uid: the event: the launch call, or the GPU operation
--   ts: its time, whole µs (hta_events)
--   rel_ts: that, from the session's earliest event (HTA's aligned time)
--   pid: the GPU operation's pid (the device)
--   tid: the GPU operation's tid
--   stream: the GPU operation's stream
--   device: the queue's GPU (its pid; NULL under compat: HTA's one queue per stream number)
--   is_start: 0 for a launch, 1 for a GPU start
--   op_uid: the GPU operation queued or started
--   queue_length: operations queued on the stream just after the event
WITH gpu_ops AS (
  SELECT h.trace, h.rank, h.uid, h.correlation, h.stream, h.ts, e.pid, e.tid
  FROM hta_events h
  JOIN events e ON e.trace = h.trace AND e.uid = h.uid
  WHERE h.on_gpu
),
linked_launches AS (
  -- Default: each kernel, copy or set with the call that launched it.
  SELECT g.trace, g.rank, g.uid AS op_uid, g.stream, g.ts AS op_ts, g.pid, g.tid,
         l.uid AS launch_uid, l.ts AS launch_ts
  FROM gpu_ops g
  JOIN kernels k ON k.trace = g.trace AND k.uid = g.uid
  JOIN hta_events l ON l.trace = k.trace AND l.uid = k.launch_uid
  WHERE setting('hta.compat', 'false') <> 'true'
),
correlated AS (
  -- HTA's index_correlation > 0: correlation ids that some GPU event of the
  -- whole trace (a stream and a correlation id, or a synchronisation) carries.
  SELECT DISTINCT trace, correlation
  FROM events
  WHERE dur IS NOT NULL AND cat IS NOT NULL AND cat <> 'Trace'
    AND correlation IS NOT NULL AND correlation <> -1
    AND ((stream >= 0 AND correlation >= 0) OR name IN ('Event Sync', 'Context Sync'))
),
named_launches AS (
  -- Under compat: the calls on HTA's list of launch names, with each GPU event
  -- of the same correlation id.
  SELECT g.trace, g.rank, g.uid AS op_uid, g.stream, g.ts AS op_ts, g.pid, g.tid,
         l.uid AS launch_uid, l.ts AS launch_ts
  FROM hta_events l
  JOIN correlated c ON c.trace = l.trace AND c.correlation = l.correlation
  JOIN gpu_ops g ON g.trace = l.trace AND g.correlation = l.correlation
  WHERE setting('hta.compat', 'false') = 'true'
    AND NOT l.on_gpu
    AND l.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx',
                   'cudaMemcpyAsync', 'cudaMemsetAsync', 'hipLaunchKernel', 'hipExtModuleLaunchKernel',
                   'hipMemcpyAsync', 'hipMemsetAsync', 'hipMemcpyWithStream',
                   'runFunction - job_prep_and_submit_for_execution')
),
queued AS (
  SELECT * FROM linked_launches
  UNION ALL
  SELECT * FROM named_launches
),
changes AS (
  -- +1 at each launch (one per operation it starts), -1 at each operation's start.
  SELECT trace, rank, launch_uid AS uid, launch_ts AS ts, pid, tid, stream, op_uid,
         1 AS change, 0 AS is_start
  FROM queued
  UNION ALL
  SELECT DISTINCT trace, rank, op_uid AS uid, op_ts AS ts, pid, tid, stream, op_uid,
         -1 AS change, 1 AS is_start
  FROM queued
),
queues AS (
  -- A queue is a stream of a GPU (its pid): two GPUs that one process drives
  -- both have a stream 7. HTA merges them into one queue per stream number;
  -- so does compat.
  SELECT *, CASE WHEN setting('hta.compat', 'false') = 'true' THEN NULL ELSE pid END AS device
  FROM changes
),
series AS (
  SELECT q.trace, coalesce(q.rank, 0) AS rank, q.uid, q.ts, q.ts - o.t0 AS rel_ts, q.pid, q.tid, q.stream,
         q.device, q.is_start, q.op_uid,
         sum(q.change) OVER (PARTITION BY q.trace, q.device, q.stream
                             ORDER BY q.ts, q.is_start, q.uid, q.op_uid
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS queue_length
  FROM queues q CROSS JOIN hta_origin o
)
SELECT * FROM series
