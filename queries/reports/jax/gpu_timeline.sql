-- name: jax_gpu_timeline
-- version: 1
-- kind: report
-- formats: jax
-- order: 1
-- sheet: gpu_timeline
-- description: JAX XPlane: per GPU, where its time went: computation, exposed communication and memcpy, busy, idle and total, as ms and % of that GPU's span.
--
-- TraceLens sheet `gpu_timeline` of its JAX report (spec formats.md §C.7 item 1):
-- the [PT §4.4] metrics computed per GPU pid on the events of its `Stream #…`
-- lines (the `kernels` rows of a JAX trace: kernels, memcpys and memsets),
-- ts = ps/1e6 µs, t_end = ts + dur. JAX's classes differ from PyTorch's:
-- a name starting (lower-cased) with copy, memcpy or memset is memcpy (so
-- memsets count as memcpy), else one matching nccl, rccl or
-- cross_device_reduce (case-insensitive, anywhere) is communication, else
-- computation (so ROCm's __amd_rocclr_copyBuffer kernels are computation).
-- total_time = last end - first start of that GPU. TraceLens orders the GPUs
-- as a Python set does; here by gpu_pid, metrics in TraceLens's order.
-- Columns:
--   type: computation_time, exposed_comm_time, exposed_memcpy_time, busy_time, idle_time, total_time, total_comm_time, total_memcpy_time
--   "time ms": the metric, ms
--   percent: the metric as % of that GPU's total_time
--   gpu_pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
WITH sums AS (SELECT * FROM jax_gpu_metrics),
metrics(row_order, type, us, trace, gpu_pid) AS (
            SELECT 1, 'computation_time', computation_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 2, 'exposed_comm_time', exposed_comm_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 3, 'exposed_memcpy_time', exposed_memcpy_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 4, 'busy_time', busy_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 5, 'idle_time', idle_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 6, 'total_time', total_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 7, 'total_comm_time', total_comm_time, trace, gpu_pid FROM sums
  UNION ALL SELECT 8, 'total_memcpy_time', total_memcpy_time, trace, gpu_pid FROM sums
)
SELECT m.type, m.us / 1e3 AS "time ms", m.us / s.total_time * 100 AS percent, m.gpu_pid
FROM metrics m JOIN sums s ON s.trace = m.trace AND s.gpu_pid = m.gpu_pid
ORDER BY m.trace, m.gpu_pid, m.row_order
