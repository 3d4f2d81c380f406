-- name: category_ops
-- version: 2
-- kind: view
-- description: The analysis report's detailed tables: per op category, its 10 op groups with the most GPU time, with rates and roofline efficiency.
--
-- From view analyze_ops.
-- Columns:
--   category: the op category (the section)
--   Rank: rank among all ops by GPU time (analyze_ops.op_rank)
--   Operation: op name
--   Shape: the perf model's parameters where the model has named dimensions
--     (analyze_ops.model_shape: M=.., N=.., K=.. for a GEMM; B=.., H=.., N_Q=.., N_KV=..,
--     d=.. for attention), else the input dims, Python text
--   Instances: op instances
--   "Time (ms)": GPU time, ms
--   "% of category": share of the category's GPU time, %
--   "TFLOPS/s": achieved TFLOPS/s
--   "TB/s": achieved TB/s
--   "FLOPS/Byte": FLOPs per byte
--   Bound: compute | memory on the session platform
--   "Efficiency (%)": roofline efficiency on the session platform, %
SELECT category, op_rank AS "Rank", name AS "Operation",
       coalesce(model_shape, shape) AS "Shape",
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
