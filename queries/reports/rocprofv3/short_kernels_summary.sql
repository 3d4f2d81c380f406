-- name: rocprofv3_short_kernels_summary
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 5
-- sheet: short_kernels_summary
-- empty: write
-- integer_columns: Short Kernel duration (µs) sum
-- description: rocprofv3 JSON: kernels shorter than 10 µs, by name, with their share of kernel time.
--
-- TraceLens sheet `short_kernels_summary` of its rocprof report (spec formats.md §A.3). Under
-- --tracelens-compat the 10 "µs" threshold is compared with ns durations, so it finds
-- kernels under 10 ns, and the duration columns hold ns; by default the threshold and the
-- columns are µs.
-- Columns:
--   name: kernel name
--   "Short Kernel count": its dispatches under the threshold
--   "Short Kernel duration (µs) sum": their total duration
--   "Short Kernel duration (µs) mean": their mean duration
--   "Short Kernel duration (µs) percent of total time": their total as % of all kernel time
WITH k AS (
  SELECT name, dur_ns,
         CASE WHEN tracelens_compat() THEN CAST(dur_ns AS DOUBLE) ELSE dur_ns / 1000.0 END AS dur
  FROM rocprofv3_kernels
),
short AS (
  SELECT name, count(*) AS n, sum(dur) AS total, avg(dur) AS mean, sum(dur_ns) AS total_ns
  FROM k WHERE dur < 10 GROUP BY name
)
SELECT name, n AS "Short Kernel count", total AS "Short Kernel duration (µs) sum",
       mean AS "Short Kernel duration (µs) mean",
       CAST(total_ns AS DOUBLE) / (SELECT sum(dur_ns) FROM k) * 100
         AS "Short Kernel duration (µs) percent of total time"
FROM short
ORDER BY total DESC, name, n, mean
