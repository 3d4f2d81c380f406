-- name: rocprofv3_kernel_summary_by_category
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 3
-- sheet: kernel_summary_by_category
-- empty: write
-- description: rocprofv3 JSON: kernel time by rocprof kernel category.
--
-- TraceLens sheet `kernel_summary_by_category` (spec formats.md §A.3), sorted by time. Under
-- --tracelens-compat "total_direct_kernel_time_ms" holds µs and the cumulative share is
-- summed in category-name order before the sort; by default both are what they say.
-- Columns:
--   "op category": rocprof kernel category
--   Count: dispatches
--   total_direct_kernel_time_ms: their total time
--   "Percentage (%)": share of all kernel time
--   "Cumulative Percentage (%)": running sum of Percentage
WITH g AS (
  SELECT category, count(*) AS n,
         sum(dur_ns) / CASE WHEN tracelens_compat() THEN 1000.0 ELSE 1000000.0 END AS ms,
         sum(dur_ns) AS total_ns
  FROM rocprofv3_kernels GROUP BY category
),
shares AS (SELECT g.*, ms / (SELECT sum(ms) FROM g) * 100 AS pct FROM g)
SELECT category AS "op category", n AS "Count", ms AS total_direct_kernel_time_ms,
       pct AS "Percentage (%)",
       CASE WHEN tracelens_compat()
            THEN sum(pct) OVER (ORDER BY category ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            ELSE sum(pct) OVER (ORDER BY total_ns DESC, category ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
       END AS "Cumulative Percentage (%)"
FROM shares
ORDER BY total_ns DESC, category
