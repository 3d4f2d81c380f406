-- name: rocprofv3_kernel_summary_empty
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 2
-- sheet: kernel_summary
-- empty: write
-- when: (SELECT count(*) FROM rocprofv3_kernels) = 0
-- description: rocprofv3 JSON without kernels: kernel_summary's header, in the column order TraceLens writes for an empty run.
--
-- TraceLens writes an empty run's kernel_summary with "Total Kernel Time (ms)" before the
-- percentages (spec formats.md §A.5, item 10).
-- Columns:
--   name: kernel name
--   Count: dispatches
--   "Mean Kernel Time (µs)": mean duration
--   "Median Kernel Time (µs)": median duration
--   "Std Kernel Time (µs)": sample standard deviation
--   "Min Kernel Time (µs)": shortest
--   "Max Kernel Time (µs)": longest
--   "Total Kernel Time (ms)": total time
--   "Percentage (%)": share of all kernel time
--   "Cumulative Percentage (%)": running sum of Percentage
--   Category: rocprof kernel category
SELECT CAST(NULL AS VARCHAR) AS name, CAST(NULL AS BIGINT) AS "Count",
       CAST(NULL AS DOUBLE) AS "Mean Kernel Time (µs)", CAST(NULL AS DOUBLE) AS "Median Kernel Time (µs)",
       CAST(NULL AS DOUBLE) AS "Std Kernel Time (µs)", CAST(NULL AS DOUBLE) AS "Min Kernel Time (µs)",
       CAST(NULL AS DOUBLE) AS "Max Kernel Time (µs)", CAST(NULL AS DOUBLE) AS "Total Kernel Time (ms)",
       CAST(NULL AS DOUBLE) AS "Percentage (%)", CAST(NULL AS DOUBLE) AS "Cumulative Percentage (%)",
       CAST(NULL AS VARCHAR) AS "Category"
WHERE false
ORDER BY name
