-- name: jax_gpu_metrics
-- version: 1
-- kind: view
-- description: JAX XPlane: per GPU pid, TraceLens's [PT §4.4] timeline metrics over its stream events (µs), with JAX's memcpy / communication / computation classes.
--
-- The same numbers as report jax_gpu_timeline (spec formats.md §C.7 item 1),
-- one row per GPU: a name starting (lower-cased) with copy, memcpy or memset
-- is memcpy (memsets count as memcpy), else one matching nccl, rccl or
-- cross_device_reduce (case-insensitive) is communication, else computation;
-- ts = ps/1e6 µs, t_end = ts + dur; total_time = last end - first start of
-- that GPU. Report jax_gpu_events_averages averages these rows.
-- Columns:
--   trace: trace name
--   gpu_pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
--   computation_time: union length of the computation events, µs
--   exposed_comm_time: communication time not under computation, µs
--   exposed_memcpy_time: memcpy time not under computation or communication, µs
--   busy_time: union length of all the GPU's events, µs
--   idle_time: total_time - busy_time, µs
--   total_time: last end - first start, µs
--   total_comm_time: union length of the communication events, µs
--   total_memcpy_time: union length of the memcpy events, µs
WITH work AS (
  SELECT trace, device + 1 AS gpu_pid, ts, t_end,
         CASE
           WHEN lower(name) LIKE 'copy%' OR lower(name) LIKE 'memcpy%' OR lower(name) LIKE 'memset%'
             THEN 'memcpy'
           WHEN regexp_like(name, 'nccl|rccl|cross_device_reduce', 'i') THEN 'communication'
           ELSE 'compute'
         END AS bucket
  FROM kernels
  WHERE trace IN (SELECT trace FROM trace_meta WHERE key = 'source_format' AND value = '"jax"')
),
sums AS (
  SELECT
    trace, gpu_pid,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'compute'), 0.0) AS computation_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'communication') FILTER (WHERE bucket <> 'memcpy'), 0.0)
      AS exposed_comm_time,
    coalesce(uncovered_time(ts, t_end, bucket = 'memcpy'), 0.0) AS exposed_memcpy_time,
    busy_time(ts, t_end) AS busy_time,
    max(t_end) - min(ts) AS total_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'communication'), 0.0) AS total_comm_time,
    coalesce(busy_time(ts, t_end) FILTER (WHERE bucket = 'memcpy'), 0.0) AS total_memcpy_time
  FROM work
  GROUP BY trace, gpu_pid
)
SELECT trace, gpu_pid, computation_time, exposed_comm_time, exposed_memcpy_time, busy_time,
       total_time - busy_time AS idle_time, total_time, total_comm_time, total_memcpy_time
FROM sums
