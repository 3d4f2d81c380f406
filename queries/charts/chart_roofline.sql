-- name: chart_roofline
-- version: 1
-- kind: view
-- description: The roofline chart's points: the op groups (name, category, shape) that have FLOPs, at their arithmetic intensity and achieved TFLOPS/s, the 300 with the most GPU time.
--
-- From view analyze_ops: a point is an op group, not an op call, so the chart
-- stays readable on any trace (at most 300 marks, the smallest left out).
-- Groups without FLOPs (copies, unmodelled ops) have no place on log axes and
-- are not points; their time is in the top-ops chart.
-- Columns:
--   trace: the trace file the row comes from
--   op_rank: the group's rank by GPU time (analyze_ops.op_rank)
--   name: op name
--   category: op category (the point's colour)
--   shape: the perf model's parameters (analyze_ops.model_shape), else the input dims
--   instances: op calls in the group
--   time_us: GPU time, µs (the point's area)
--   share_pct: share of the trace's GPU span, %
--   flops_per_byte: arithmetic intensity, FLOPs per byte (x)
--   tflops_per_s: achieved TFLOPS/s (y)
--   efficiency_pct: roofline efficiency on the session platform, %; NULL without one
--   bound: compute | memory on the session platform
--   compute_spec: the compute roof the group is held against (matrix_bf16, ...)
SELECT trace, op_rank, name, category, coalesce(model_shape, shape) AS shape, instances,
       time_us, share_pct, flops_per_byte, tflops_per_s, efficiency_pct, bound, compute_spec
FROM analyze_ops
WHERE flops_per_byte > 0 AND tflops_per_s > 0
ORDER BY time_us DESC, op_rank
LIMIT 300
