-- name: jax_gpu_events_averages
-- version: 1
-- kind: report
-- formats: jax
-- order: 41
-- sheet: gpu_events_averages
-- description: JAX XPlane: the per-GPU timeline metrics averaged over the GPUs: computation, exposed communication and memcpy, busy, idle and total, as ms and % of the average total.
--
-- TraceLens sheet `gpu_events_averages` of its JAX report (spec formats.md
-- §C.7 item 2): the per-GPU metrics of view jax_gpu_metrics (the numbers of
-- jax_gpu_timeline) summed over the GPU pids and divided by their number
-- (every GPU with stream events counts, including one with only memcpys);
-- time ms = average µs / 1e3, percent = average / average total_time · 100.
-- TraceLens sums the GPUs in Python set order (ascending pid for these small
-- ints); DataFusion's sum may add them in another order (last-bit
-- differences only). One table for all the loaded traces, as TraceLens's
-- report is per trace: load one trace per report run.
-- Columns:
--   type: computation_time, exposed_comm_time, exposed_memcpy_time, busy_time, idle_time, total_time, total_comm_time, total_memcpy_time
--   "time ms": the metric averaged over the GPUs, ms
--   percent: that average as % of the average total_time
WITH avgs AS (
  SELECT avg(computation_time) AS computation_time, avg(exposed_comm_time) AS exposed_comm_time,
         avg(exposed_memcpy_time) AS exposed_memcpy_time, avg(busy_time) AS busy_time,
         avg(idle_time) AS idle_time, avg(total_time) AS total_time,
         avg(total_comm_time) AS total_comm_time, avg(total_memcpy_time) AS total_memcpy_time
  FROM jax_gpu_metrics
  HAVING count(*) > 0
),
metrics(row_order, type, us) AS (
            SELECT 1, 'computation_time', computation_time FROM avgs
  UNION ALL SELECT 2, 'exposed_comm_time', exposed_comm_time FROM avgs
  UNION ALL SELECT 3, 'exposed_memcpy_time', exposed_memcpy_time FROM avgs
  UNION ALL SELECT 4, 'busy_time', busy_time FROM avgs
  UNION ALL SELECT 5, 'idle_time', idle_time FROM avgs
  UNION ALL SELECT 6, 'total_time', total_time FROM avgs
  UNION ALL SELECT 7, 'total_comm_time', total_comm_time FROM avgs
  UNION ALL SELECT 8, 'total_memcpy_time', total_memcpy_time FROM avgs
)
SELECT m.type, m.us / 1e3 AS "time ms", m.us / a.total_time * 100 AS percent
FROM metrics m CROSS JOIN avgs a
ORDER BY m.row_order
