-- name: chart_compare_roofline
-- version: 1
-- kind: comparison
-- description: The comparison's roofline points, one chart per side: each side's op groups (unified_perf_summary rows) that have FLOPs, at their arithmetic intensity and mean achieved TFLOPS/s, the 300 per side with the most kernel time.
--
-- From report_unified_perf_summary (each run's rows; with repeated runs every
-- run's rows are points) and compare_runs (the side's platform, for its roofs:
-- chart_compare_roofs).
-- Columns:
--   side: base or target
--   label: the side's label
--   platform: the side's platform (NULL: none, no roofs)
--   name: op name
--   category: op category (the point's colour)
--   shape: input dims
--   flops_per_byte: FLOPS/Byte (x)
--   tflops_per_s: TFLOPS/s_mean (y)
--   time_us: Kernel Time (µs)_sum (the point's area)
--   compute_spec: the model's compute spec (the roof it is held against)
WITH points AS (
  SELECT u.side, r.label, r.platform, u.name, CAST(u."op category" AS VARCHAR) AS category,
         CAST(u."Input Dims" AS VARCHAR) AS shape,
         CAST(u."FLOPS/Byte" AS DOUBLE) AS flops_per_byte,
         CAST(u."TFLOPS/s_mean" AS DOUBLE) AS tflops_per_s,
         CAST(u."Kernel Time (µs)_sum" AS DOUBLE) AS time_us,
         CAST(u."Compute Spec" AS VARCHAR) AS compute_spec
  FROM report_unified_perf_summary u
  JOIN compare_runs r ON r.side = u.side AND r.run = u.run
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY side ORDER BY time_us DESC, name, shape) AS pick
  FROM points
  WHERE flops_per_byte > 0 AND tflops_per_s > 0
)
SELECT side, label, platform, name, category, shape, flops_per_byte, tflops_per_s, time_us,
       compute_spec
FROM ranked
WHERE pick <= 300
ORDER BY side, time_us DESC
