-- name: hta_kernel_launches
-- version: 1
-- kind: view
-- description: HTA's launch pairs: each GPU kernel, copy or set with the call that launched it, the call's duration, the work's duration and the launch delay, µs (behind cuda_kernel_launch_stats and cuda_kernel_launch_outliers).
--
-- Pairs, whole-µs times, hta.include_memory_events and hta.compat as
-- cuda_kernel_launch_stats explains.
-- Columns:
--   trace: trace name
--   rank: the trace's rank (0 when the trace gives none)
--   launch_uid: the launch call
--   work_uid: the GPU work it launched
--   correlation: the launch's correlation id
--   cpu_duration: the launch call's duration, µs
--   gpu_duration: the GPU work's duration, µs
--   launch_delay: from the call's end to the work's start (0 when the work started before the call returned), µs
WITH launched AS (
  -- Each GPU work item with the call that launched it (both in HTA's event
  -- set: the last-iteration drop applies to both).
  SELECT g.trace, coalesce(g.rank, 0) AS rank, c.uid AS launch_uid, g.uid AS work_uid,
         c.correlation, c.ts AS launch_ts, c.t_end AS launch_end, g.ts AS work_ts, g.t_end AS work_end
  FROM kernels k
  JOIN hta_events g ON g.trace = k.trace AND g.uid = k.uid
  JOIN hta_events c ON c.trace = k.trace AND c.uid = k.launch_uid
  WHERE setting('hta.compat', 'false') <> 'true'
    AND (k.cat = 'kernel' OR setting('hta.include_memory_events', 'true') = 'true')
),
hta_launch_correlations AS (
  -- HTA's launches: by exact name only, whatever the event; an event without
  -- a correlation id carries HTA's -1, which then matches every other -1.
  SELECT DISTINCT trace, coalesce(correlation, -1) AS correlation
  FROM hta_events
  WHERE setting('hta.compat', 'false') = 'true'
    AND (name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'runFunction - job_prep_and_submit_for_execution')
         OR (name IN ('cudaMemcpyAsync', 'cudaMemsetAsync')
             AND setting('hta.include_memory_events', 'true') = 'true'))
),
hta_sides AS (
  -- Every event with such a correlation id, CPU side (no stream) or GPU side.
  SELECT e.trace, coalesce(e.rank, 0) AS rank, e.uid, e.on_gpu, l.correlation, e.ts, e.t_end
  FROM hta_events e
  JOIN hta_launch_correlations l ON l.trace = e.trace AND l.correlation = coalesce(e.correlation, -1)
),
hta_paired AS (
  -- HTA's inner join on correlation: every CPU event with every GPU event.
  SELECT c.trace, c.rank, c.uid AS launch_uid, g.uid AS work_uid, c.correlation,
         c.ts AS launch_ts, c.t_end AS launch_end, g.ts AS work_ts, g.t_end AS work_end
  FROM hta_sides c
  JOIN hta_sides g ON g.trace = c.trace AND g.correlation = c.correlation
  WHERE NOT c.on_gpu AND g.on_gpu
),
pairs AS (
  SELECT *, greatest(work_ts - launch_end, 0.0) AS delay FROM launched
  UNION ALL
  SELECT *, greatest(work_ts - launch_end, 0.0) AS delay FROM hta_paired
)
SELECT trace, rank, launch_uid, work_uid, correlation,
       launch_end - launch_ts AS cpu_duration,
       work_end - work_ts AS gpu_duration,
       delay AS launch_delay
FROM pairs
