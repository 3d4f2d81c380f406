-- name: ops_summary
-- version: 2
-- kind: report
-- order: 3
-- description: Direct and subtree GPU kernel time per op name, largest first, with instance count, categories and share.
-- integer_columns: total_direct_kernel_time_sum, total_subtree_kernel_time_sum
-- when: (SELECT count(*) FROM ops) > 0
--
-- TraceLens sheet `ops_summary` (spec §8.3). Times in µs (_sum) and ms (_ms);
-- Categories lists the distinct op categories of the name's instances.
-- Columns:
--   name: op name
--   total_direct_kernel_time_sum: summed direct kernel time of its instances, µs
--   total_subtree_kernel_time_sum: summed subtree kernel time, µs
--   total_direct_kernel_time_ms: the same direct time, ms
--   total_subtree_kernel_time_ms: the same subtree time, ms
--   Count: instances
--   Categories: the distinct op categories of its instances, a Python list
--   "Percentage (%)": direct time as % of all launchers' direct time
--   "Cumulative Percentage (%)": running sum of Percentage (%) in row order
WITH by_name AS (
  SELECT name,
         sum(total_direct_kernel_time) AS total_direct_kernel_time_sum,
         sum(total_subtree_kernel_time) AS total_subtree_kernel_time_sum,
         count(*) AS "Count",
         py_str_list(array_sort(array_agg(DISTINCT op_category))) AS "Categories"
  FROM launchers
  GROUP BY name
),
shares AS (
  SELECT *,
         total_direct_kernel_time_sum / 1000 AS total_direct_kernel_time_ms,
         total_subtree_kernel_time_sum / 1000 AS total_subtree_kernel_time_ms,
         total_direct_kernel_time_sum / sum(total_direct_kernel_time_sum) OVER () * 100
           AS "Percentage (%)"
  FROM by_name
)
SELECT name, total_direct_kernel_time_sum, total_subtree_kernel_time_sum,
       total_direct_kernel_time_ms, total_subtree_kernel_time_ms, "Count", "Categories",
       "Percentage (%)",
       sum("Percentage (%)") OVER (ORDER BY total_direct_kernel_time_sum DESC, name
                                   ROWS UNBOUNDED PRECEDING) AS "Cumulative Percentage (%)"
FROM shares
ORDER BY total_direct_kernel_time_sum DESC, name
