-- name: chart_compare_roofs
-- version: 1
-- kind: comparison
-- description: The comparison rooflines' roofs: per side, its platform's memory bandwidth and the compute peaks of the specs its points use.
--
-- From compare_runs (each side's platform), platforms and
-- chart_compare_roofline. A side without platform has no rows.
-- Columns:
--   side: base or target
--   platform: the side's platform
--   roof: memory_tb_s, or the compute spec (matrix_bf16, ...)
--   value: TB/s for memory, TFLOPS/s for a compute roof
WITH sides AS (
  SELECT side, min(platform) AS platform FROM compare_runs GROUP BY side
),
specs AS (
  SELECT DISTINCT side, compute_spec FROM chart_compare_roofline WHERE compute_spec IS NOT NULL
),
compute AS (
  SELECT s.side, p.name AS platform, c.compute_spec AS roof,
         CASE c.compute_spec
           WHEN 'matrix_fp64' THEN p.matrix_fp64 WHEN 'matrix_fp32' THEN p.matrix_fp32
           WHEN 'matrix_fp16' THEN p.matrix_fp16 WHEN 'matrix_bf16' THEN p.matrix_bf16
           WHEN 'matrix_fp8' THEN p.matrix_fp8 WHEN 'matrix_fp4' THEN p.matrix_fp4
           WHEN 'vector_fp64' THEN p.vector_fp64 WHEN 'vector_fp32' THEN p.vector_fp32
           WHEN 'vector_fp16' THEN p.vector_fp16 WHEN 'vector_bf16' THEN p.vector_bf16
         END AS value
  FROM sides s
  JOIN platforms p ON p.name = s.platform
  JOIN specs c ON c.side = s.side
)
SELECT s.side, p.name AS platform, 'memory_tb_s' AS roof, p.memory_tb_s AS value
FROM sides s JOIN platforms p ON p.name = s.platform
WHERE p.memory_tb_s IS NOT NULL
UNION ALL
SELECT side, platform, roof, value FROM compute WHERE value IS NOT NULL
ORDER BY side, roof
