-- name: ops_summary_by_category
-- version: 1
-- kind: report
-- order: 2
-- description: Direct GPU kernel time per op category, largest first, with share and running share.
-- when: (SELECT count(*) FROM ops) > 0
--
-- TraceLens sheet `ops_summary_by_category` (spec §8.2). Percentages are of the
-- launchers' summed direct kernel time (collectives and unlinked kernels excluded),
-- not of the GPU span.
-- Columns:
--   "op category": op category
--   Count: launcher instances
--   total_direct_kernel_time_ms: summed direct kernel time, ms
--   "Percentage (%)": % of the launchers' summed direct kernel time
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
WITH by_category AS (
  SELECT op_category AS "op category",
         count(*) AS "Count",
         sum(total_direct_kernel_time) / 1000 AS total_direct_kernel_time_ms
  FROM launchers
  GROUP BY op_category
),
shares AS (
  SELECT *, total_direct_kernel_time_ms / sum(total_direct_kernel_time_ms) OVER () * 100
              AS "Percentage (%)"
  FROM by_category
)
SELECT "op category", "Count", total_direct_kernel_time_ms, "Percentage (%)",
       sum("Percentage (%)") OVER (ORDER BY total_direct_kernel_time_ms DESC, "op category"
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)"
FROM shares
ORDER BY total_direct_kernel_time_ms DESC, "op category"
