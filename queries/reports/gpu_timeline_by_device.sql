-- name: gpu_timeline_by_device
-- version: 1
-- kind: report
-- order: 1
-- description: gpu_timeline for each GPU of a trace that drives several: computation, exposed communication and memcpy, idle, as ms and % of that GPU's span.
-- when: NOT tracelens_compat() AND (SELECT count(*) FROM device_time_totals) > (SELECT count(DISTINCT trace) FROM device_time_totals)
--
-- Written only for a trace with work on more than one GPU (one process driving
-- several, or a merged trace), where gpu_timeline, as TraceLens's, pools the
-- GPUs into one timeline; not under --tracelens-compat. Rows by device, then
-- gpu_timeline's metric order.
-- Columns:
--   device: the GPU
--   type: computation_time, exposed_comm_time, exposed_memcpy_time, busy_time,
--     idle_time, total_time, total_comm_time or total_memcpy_time
--   "time ms": the metric, ms
--   percent: of the GPU's total_time, %
WITH metrics(device, row_order, type, us, total) AS (
            SELECT device, 1, 'computation_time', computation_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 2, 'exposed_comm_time', exposed_comm_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 3, 'exposed_memcpy_time', exposed_memcpy_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 4, 'busy_time', busy_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 5, 'idle_time', idle_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 6, 'total_time', total_time AS us, total_time AS total FROM device_time_totals
  UNION ALL SELECT device, 7, 'total_comm_time', total_comm_time, total_time FROM device_time_totals
  UNION ALL SELECT device, 8, 'total_memcpy_time', total_memcpy_time, total_time FROM device_time_totals
)
SELECT device, type, us / 1e3 AS "time ms", us / total * 100 AS percent
FROM metrics
ORDER BY device, row_order
