-- name: top_ops
-- version: 2
-- kind: view
-- description: The analysis report's top operations: the 10 op groups (name, category, input shapes) with the most GPU time.
--
-- From view analyze_ops.
-- Columns:
--   Rank: rank by GPU time (analyze_ops.op_rank)
--   Operation: op name
--   Category: op category
--   Shape: the perf model's parameters where the model has named dimensions
--     (analyze_ops.model_shape: M=.., N=.., K=.. for a GEMM; B=.., H=.., N_Q=.., N_KV=..,
--     d=.. for attention), else the input dims, Python text
--   Instances: op instances
--   "Time (ms)": GPU time, ms
--   "% of GPU time": share of the trace's GPU span, %
--   "% of category": share of the category's GPU time, %
--   "Efficiency (%)": roofline efficiency on the session platform, %; NULL without one
--     or without a perf model
--   Bound: compute | memory
SELECT op_rank AS "Rank", name AS "Operation", category AS "Category",
       coalesce(model_shape, shape) AS "Shape",
       instances AS "Instances", round(time_us / 1e3, 3) AS "Time (ms)",
       round(share_pct, 2) AS "% of GPU time",
       round(category_share_pct, 1) AS "% of category",
       round(efficiency_pct, 1) AS "Efficiency (%)", bound AS "Bound"
FROM analyze_ops
WHERE op_rank <= 10
ORDER BY op_rank
