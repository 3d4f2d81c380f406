-- name: cuda_kernel_launch_stats
-- version: 1
-- kind: report
-- order: 905
-- runs: on request
-- description: HTA's CUDA kernel launch statistics: per launched kernel, copy or set, the launch call's duration, the GPU work's duration and the delay from the call's end to the work's start, µs (HTA's get_cuda_kernel_launch_stats, every rank).
--
-- One row per GPU kernel (and, unless `--param hta.include_memory_events=false`,
-- per memcpy and memset: HTA's include_memory_events) with the runtime or
-- driver call that launched it (kernels.launch_uid: cudaLaunchKernel and its
-- variants, cuLaunchKernel as Triton launches, hip* launches, graph launches,
-- one row per work item of a graph). Times are whole µs of the profiled
-- iterations, as HTA reads them (hta_events). The launch delay is the work's
-- start minus the call's end, 0 when the work started before the call
-- returned (a copy the call waits for: its wait is in cpu_duration), as in HTA.
-- HTA links the two by correlation id alone and only for the exact names
-- cudaLaunchKernel, cudaLaunchKernelExC, the MTIA runFunction call,
-- cudaMemcpyAsync and cudaMemsetAsync: Triton's cuLaunchKernel, graph
-- launches, suffixed variants (_ptsz) and every ROCm launch are left out
-- (ROCm traces get no rows), any two events that share a correlation id pair
-- up (many-to-many). `--param hta.compat=true`
-- reproduces that, to give HTA's numbers exactly (DIFFERENCES.md).
-- HTA's runtime_cutoff and launch_delay_cutoff only shape its plots (short
-- kernels: cpu_duration <= runtime_cutoff and gpu_duration < cpu_duration;
-- outliers: cpu_duration > runtime_cutoff, launch_delay > launch_delay_cutoff);
-- filter the rows with them as you need.
-- Columns:
--   correlation: the launch's correlation id
--   cpu_duration: the launch call's duration, µs
--   gpu_duration: the GPU work's duration, µs
--   launch_delay: from the call's end to the work's start, µs
--   rank: the trace's rank (0 when the trace gives none)
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
SELECT correlation,
       launch_end - launch_ts AS cpu_duration,
       work_end - work_ts AS gpu_duration,
       delay AS launch_delay,
       rank
FROM pairs
ORDER BY rank, trace, launch_uid, work_uid
