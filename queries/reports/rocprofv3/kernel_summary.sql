-- name: rocprofv3_kernel_summary
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 2
-- sheet: kernel_summary
-- when: (SELECT count(*) FROM rocprofv3_kernels) > 0
-- integer_columns: Min Kernel Time (µs), Max Kernel Time (µs)
-- description: rocprofv3 JSON: kernels by name, with count, time statistics, share of kernel time and category.
--
-- TraceLens sheet `kernel_summary` of its rocprof report (spec formats.md §A.3), sorted by
-- total time. Under --tracelens-compat its unit slips are kept: the "µs" columns hold ns,
-- "Total Kernel Time (ms)" holds µs, and "Cumulative Percentage (%)" is summed in name
-- order before the sort (so it is not monotonic). By default the columns hold what they
-- say and the cumulative share follows the rows.
-- Columns:
--   name: kernel name
--   Count: dispatches
--   "Mean Kernel Time (µs)": mean duration
--   "Median Kernel Time (µs)": median duration
--   "Std Kernel Time (µs)": sample standard deviation of the durations (empty for one)
--   "Min Kernel Time (µs)": shortest
--   "Max Kernel Time (µs)": longest
--   "Percentage (%)": their total as % of all kernel time
--   "Cumulative Percentage (%)": running sum of Percentage
--   "Total Kernel Time (ms)": their total
--   Category: rocprof kernel category (view rocprofv3_kernels)
WITH k AS (
  SELECT name, category,
         CASE WHEN tracelens_compat() THEN CAST(dur_ns AS DOUBLE) ELSE dur_ns / 1000.0 END AS dur,
         dur_ns
  FROM rocprofv3_kernels
),
g AS (
  SELECT name, count(*) AS n, avg(dur) AS mean, median(dur) AS med, stddev(dur) AS std,
         min(dur) AS lo, max(dur) AS hi, sum(dur_ns) AS total_ns, first_value(category) AS category
  FROM k GROUP BY name
),
shares AS (
  SELECT g.*, CAST(total_ns AS DOUBLE) / (SELECT sum(total_ns) FROM g) * 100 AS pct FROM g
)
SELECT name, n AS "Count", mean AS "Mean Kernel Time (µs)", med AS "Median Kernel Time (µs)",
       std AS "Std Kernel Time (µs)", lo AS "Min Kernel Time (µs)", hi AS "Max Kernel Time (µs)",
       pct AS "Percentage (%)",
       CASE WHEN tracelens_compat()
            THEN sum(pct) OVER (ORDER BY name ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            ELSE sum(pct) OVER (ORDER BY total_ns DESC, name ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
       END AS "Cumulative Percentage (%)",
       total_ns / CASE WHEN tracelens_compat() THEN 1000.0 ELSE 1000000.0 END AS "Total Kernel Time (ms)",
       category AS "Category"
FROM shares
ORDER BY total_ns DESC, name
