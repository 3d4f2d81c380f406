-- name: phases
-- version: 2
-- kind: view
-- description: One row per annotation instance (record_function ranges, ProfilerStep#N, torch.compile regions; gpu_user_annotation ranges where the trace has them): the GPU time of the kernels launched inside it, by class, and its communication hidden under computation vs exposed.
--
-- A CPU annotation holds the GPU work whose launch call starts inside it on
-- the same thread, except ProfilerStep#N, which holds every launch of its
-- process inside it (the backward pass launches from autograd's own
-- thread). A gpu_user_annotation holds the GPU work that starts inside it
-- on its device. Nested annotations each count everything inside them, so
-- sums over nested rows count work more than once; sum one level (depth or
-- name) at a time. Times are busy time (the union of the intervals, never
-- above the GPU span).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: the annotation event
--   name: its name
--   source: cpu (user_annotation) or gpu (gpu_user_annotation)
--   pid: its process (cpu) or device (gpu), as written
--   tid: its thread (cpu) or stream (gpu), as written
--   ts: its start, µs
--   dur: its duration, µs
--   kernels: GPU events inside it
--   gpu_start: first start of that work, µs; NULL when none
--   gpu_end: last end of that work, µs
--   gpu_busy_time: busy time of that work, µs
--   compute_time: busy time of its compute kernels and memsets, µs
--   comm_time: busy time of its communication, µs
--   memcpy_time: busy time of its memcpy, µs
--   hidden_comm_time: communication overlapped by its computation, µs
--   exposed_comm_time: communication not overlapped by computation, µs
WITH ann AS (
  SELECT trace, rank, uid, name, pid, tid, ts, dur, t_end,
    CASE cat WHEN 'gpu_user_annotation' THEN 'gpu' ELSE 'cpu' END AS source,
    cat = 'user_annotation' AND starts_with(name, 'ProfilerStep#') AS process_wide
  FROM events
  WHERE (cat IN ('user_annotation', 'gpu_user_annotation')
         OR (cat = 'cpu_op' AND starts_with(name, 'Torch-Compiled Region')))
    AND ph = 'X' AND dur > 0
),
-- Time buckets, so that the containment join is an equi-join on the bucket:
-- 4096 per trace span, at least 100 µs wide.
grid AS (
  SELECT trace, min(ts) AS origin, greatest((max(t_end) - min(ts)) / 4096.0, 100.0) AS width
  FROM events WHERE ts IS NOT NULL GROUP BY trace
),
ann_buckets AS (
  SELECT a.trace, a.uid, a.source, a.process_wide, a.pid, a.tid, a.ts, a.t_end,
    unnest(range(CAST(floor((a.ts - g.origin) / g.width) AS BIGINT),
                 CAST(floor((a.t_end - g.origin) / g.width) AS BIGINT) + 1)) AS bucket
  FROM ann a JOIN grid g ON g.trace = a.trace
),
-- Where each GPU event is seen from: its launch call (cpu) and itself (gpu).
points AS (
  SELECT k.trace, k.uid AS kernel_uid, 'cpu' AS source, l.pid, l.tid, l.ts AS at,
    CAST(floor((l.ts - g.origin) / g.width) AS BIGINT) AS bucket
  FROM linked_kernels k
  JOIN events l ON l.trace = k.trace AND l.uid = k.launch_uid
  JOIN grid g ON g.trace = k.trace
  UNION ALL
  SELECT k.trace, k.uid, 'gpu', e.pid, e.tid, k.ts,
    CAST(floor((k.ts - g.origin) / g.width) AS BIGINT)
  FROM linked_kernels k
  JOIN events e ON e.trace = k.trace AND e.uid = k.uid
  JOIN grid g ON g.trace = k.trace
),
members AS (
  SELECT DISTINCT a.trace, a.uid AS annotation_uid, p.kernel_uid
  FROM ann_buckets a
  JOIN points p ON p.trace = a.trace AND p.source = a.source AND p.bucket = a.bucket
    AND p.pid = a.pid
  WHERE p.at >= a.ts AND p.at < a.t_end
    AND (a.process_wide OR a.source = 'gpu' OR p.tid = a.tid)
),
per_annotation AS (
  SELECT m.trace, m.annotation_uid, count(*) AS kernels,
    min(k.ts) AS gpu_start, max(k.t_end) AS gpu_end,
    busy_time(k.ts, k.t_end) AS gpu_busy_time,
    coalesce(busy_time(k.ts, k.t_end) FILTER (WHERE k.class IN ('compute', 'memset')), 0.0)
      AS compute_time,
    coalesce(busy_time(k.ts, k.t_end) FILTER (WHERE k.class = 'communication'), 0.0) AS comm_time,
    coalesce(busy_time(k.ts, k.t_end) FILTER (WHERE k.class = 'memcpy'), 0.0) AS memcpy_time,
    coalesce(uncovered_time(k.ts, k.t_end, k.class = 'communication')
      FILTER (WHERE k.class <> 'memcpy'), 0.0) AS exposed_comm_time
  FROM members m JOIN linked_kernels k ON k.trace = m.trace AND k.uid = m.kernel_uid
  GROUP BY m.trace, m.annotation_uid
)
SELECT a.trace, a.rank, a.uid, a.name, a.source, a.pid, a.tid, a.ts, a.dur,
  coalesce(p.kernels, 0) AS kernels, p.gpu_start, p.gpu_end,
  coalesce(p.gpu_busy_time, 0.0) AS gpu_busy_time,
  coalesce(p.compute_time, 0.0) AS compute_time,
  coalesce(p.comm_time, 0.0) AS comm_time,
  coalesce(p.memcpy_time, 0.0) AS memcpy_time,
  coalesce(p.comm_time - p.exposed_comm_time, 0.0) AS hidden_comm_time,
  coalesce(p.exposed_comm_time, 0.0) AS exposed_comm_time
FROM ann a
LEFT JOIN per_annotation p ON p.trace = a.trace AND p.annotation_uid = a.uid
