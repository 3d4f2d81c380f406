-- name: jax_analysis_gpu_events_averages
-- version: 1
-- kind: report
-- formats: jax
-- order: 61
-- sheet: jax_analysis_gpu_events_averages
-- description: JAX XPlane (TraceLens's JAX analysis report): the per-GPU timeline metrics averaged over the GPUs, plus the overlapped communication, as ms and % of the average total, rounded to 2 decimals.
--
-- TraceLens file `trace_analysis_results_gpu_events_averages.csv` of
-- `generate_perf_report_jax_analysis` (spec formats.md §C.8). TraceLens's
-- own run fails on every trace (its event analyser never learns which pids
-- are GPUs); this is what it prints once that metadata is attached (the
-- `analysis_patched` references). The metrics of view jax_gpu_metrics (the
-- [PT §4.4] timeline metrics per GPU) averaged over the GPU pids <= 100 with
-- stream events (a GPU with only memcpys counts); time ms = average µs /
-- 1e3, percent = average / average total_time · 100. Quirks reproduced:
-- * an extra row overlapped_comm = total_comm_time ms − exposed_comm_time
--   ms, percent = that / total_time ms · 100, placed between total_time and
--   total_comm_time;
-- * every value goes through pandas round(2) (half-to-even on the binary
--   value: np_round).
-- TraceLens sums the GPUs in pid order; DataFusion's avg may add them in
-- another order (last-bit differences, visible only at a rounding tie).
-- Report jax_gpu_events_averages is the same table unrounded, without
-- overlapped_comm. One table for all the loaded traces, as TraceLens's
-- report is per trace: load one trace per report run.
-- Columns:
--   type: computation_time, exposed_comm_time, exposed_memcpy_time, busy_time, idle_time, total_time, overlapped_comm, total_comm_time, total_memcpy_time
--   "time ms": the metric averaged over the GPUs, ms, rounded to 2 decimals
--   percent: that average as % of the average total_time, rounded to 2 decimals
WITH avgs AS (
  SELECT avg(computation_time) AS computation_time, avg(exposed_comm_time) AS exposed_comm_time,
         avg(exposed_memcpy_time) AS exposed_memcpy_time, avg(busy_time) AS busy_time,
         avg(idle_time) AS idle_time, avg(total_time) AS total_time,
         avg(total_comm_time) AS total_comm_time, avg(total_memcpy_time) AS total_memcpy_time
  FROM jax_gpu_metrics
  WHERE gpu_pid <= 100
  HAVING count(*) > 0
),
metrics(row_order, type, us, ms) AS (
            SELECT 1, 'computation_time', computation_time, computation_time / 1e3 FROM avgs
  UNION ALL SELECT 2, 'exposed_comm_time', exposed_comm_time, exposed_comm_time / 1e3 FROM avgs
  UNION ALL SELECT 3, 'exposed_memcpy_time', exposed_memcpy_time, exposed_memcpy_time / 1e3 FROM avgs
  UNION ALL SELECT 4, 'busy_time', busy_time, busy_time / 1e3 FROM avgs
  UNION ALL SELECT 5, 'idle_time', idle_time, idle_time / 1e3 FROM avgs
  UNION ALL SELECT 6, 'total_time', total_time, total_time / 1e3 FROM avgs
  UNION ALL SELECT 7, 'overlapped_comm', NULL, total_comm_time / 1e3 - exposed_comm_time / 1e3 FROM avgs
  UNION ALL SELECT 8, 'total_comm_time', total_comm_time, total_comm_time / 1e3 FROM avgs
  UNION ALL SELECT 9, 'total_memcpy_time', total_memcpy_time, total_memcpy_time / 1e3 FROM avgs
)
SELECT m.type, np_round(m.ms, 2) AS "time ms",
       np_round(CASE WHEN m.type = 'overlapped_comm' THEN m.ms / (a.total_time / 1e3) * 100
                     ELSE m.us / a.total_time * 100 END, 2) AS percent
FROM metrics m CROSS JOIN avgs a
ORDER BY m.row_order
