-- name: category_ops
-- version: 1
-- kind: view
-- description: The analysis report's detailed tables: per op category, its 10 op groups with the most GPU time, with rates and roofline efficiency.
--
-- From view analyze_ops. Columns: category (the section), then Rank (among all
-- ops), Operation, Shape (input dims), Instances, "Time (ms)", "% of category", "TFLOPS/s",
-- "TB/s", "FLOPS/Byte", Bound, "Efficiency (%)".
SELECT category, op_rank AS "Rank", name AS "Operation", shape AS "Shape",
       instances AS "Instances", round(time_us / 1e3, 3) AS "Time (ms)",
       round(category_share_pct, 1) AS "% of category",
       round(tflops_per_s, 2) AS "TFLOPS/s", round(tb_per_s, 3) AS "TB/s",
       round(flops_per_byte, 1) AS "FLOPS/Byte", bound AS "Bound",
       round(efficiency_pct, 1) AS "Efficiency (%)"
FROM (
  SELECT *, row_number() OVER (PARTITION BY category ORDER BY time_us DESC, name, shape) AS r
  FROM analyze_ops
)
WHERE r <= 10
ORDER BY category_time_us DESC, category, r
