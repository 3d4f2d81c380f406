-- name: chart_roofs
-- version: 1
-- kind: view
-- description: The roofline chart's roofs: the session platform's memory bandwidth and the compute peaks of the specs its points use, with each peak's ridge point.
--
-- From views platform_peaks and chart_roofline. No rows without a session
-- platform (the chart then draws the points alone). When no point names a
-- compute spec with a peak, the platform's largest matrix peak is the roof.
-- Columns:
--   platform: the session platform
--   roof: memory_tb_s, or the compute spec (matrix_bf16, vector_fp32, ...)
--   value: TB/s for memory, TFLOPS/s for a compute roof
--   ridge_flops_per_byte: where the compute roof meets the memory roof, FLOPs
--     per byte (NULL for the memory row)
WITH memory AS (
  SELECT platform, value FROM platform_peaks WHERE peak = 'memory_tb_s'
),
used AS (
  SELECT DISTINCT p.peak, p.value
  FROM platform_peaks p
  JOIN chart_roofline r ON CAST(r.compute_spec AS VARCHAR) = p.peak
),
fallback AS (
  SELECT peak, value FROM platform_peaks
  WHERE peak LIKE 'matrix%' AND NOT EXISTS (SELECT 1 FROM used)
  ORDER BY value DESC LIMIT 1
),
compute AS (SELECT * FROM used UNION ALL SELECT * FROM fallback)
SELECT platform, 'memory_tb_s' AS roof, value, CAST(NULL AS DOUBLE) AS ridge_flops_per_byte
FROM memory
UNION ALL
SELECT m.platform, c.peak, c.value, c.value / m.value
FROM compute c CROSS JOIN memory m
ORDER BY ridge_flops_per_byte NULLS FIRST, roof
