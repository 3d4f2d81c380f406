-- name: chart_gpu_timeline
-- version: 1
-- kind: view
-- description: The GPU timeline as a stacked bar (the HTML report's and gpu_timeline.svg): computation, exposed communication, exposed memcpy and idle time per trace; the four add up to the GPU span.
--
-- From view gpu_time_totals (the gpu_timeline report's numbers). Memsets count
-- as computation there; communication hidden under computation and memcpy
-- hidden under either are not segments, because they cost no span.
-- Columns:
--   trace: the trace file the row comes from
--   segment_order: 1..4, the bar's order
--   segment: computation | exposed communication | exposed memcpy | idle
--   time_ms: the segment's time, ms
--   pct: its share of the GPU span (gpu_time_totals.total_time), %
WITH t AS (SELECT * FROM gpu_time_totals),
segments(trace, segment_order, segment, us, total) AS (
            SELECT trace, 1, 'computation', computation_time, total_time FROM t
  UNION ALL SELECT trace, 2, 'exposed communication', exposed_comm_time, total_time FROM t
  UNION ALL SELECT trace, 3, 'exposed memcpy', exposed_memcpy_time, total_time FROM t
  UNION ALL SELECT trace, 4, 'idle', idle_time, total_time FROM t
)
SELECT trace, segment_order, segment, us / 1e3 AS time_ms,
       us / nullif(total, 0) * 100 AS pct
FROM segments
ORDER BY trace, segment_order
