-- name: platform_peaks
-- version: 1
-- kind: view
-- description: The session platform's peaks (HBM TB/s, TFLOPS per compute spec) and their source, one row per figure: the analysis report's appendix.
--
-- No rows when the session has no platform.
-- Columns:
--   platform: the session platform
--   peak: figure name (memory, matrix_bf16, ...)
--   value: TB/s for memory, TFLOPS otherwise (NULL figures are left out)
--   source: where the figure comes from
WITH p AS (
  SELECT p.* FROM platforms p JOIN session_platform s ON p.name = s.platform
),
figures(row_order, peak, value, platform, source) AS (
            SELECT 1, 'memory_tb_s', memory_tb_s, name, source FROM p
  UNION ALL SELECT 2, 'matrix_fp64', matrix_fp64, name, source FROM p
  UNION ALL SELECT 3, 'matrix_fp32', matrix_fp32, name, source FROM p
  UNION ALL SELECT 4, 'matrix_fp16', matrix_fp16, name, source FROM p
  UNION ALL SELECT 5, 'matrix_bf16', matrix_bf16, name, source FROM p
  UNION ALL SELECT 6, 'matrix_fp8', matrix_fp8, name, source FROM p
  UNION ALL SELECT 7, 'matrix_fp4', matrix_fp4, name, source FROM p
  UNION ALL SELECT 8, 'vector_fp64', vector_fp64, name, source FROM p
  UNION ALL SELECT 9, 'vector_fp32', vector_fp32, name, source FROM p
  UNION ALL SELECT 10, 'vector_fp16', vector_fp16, name, source FROM p
  UNION ALL SELECT 11, 'vector_bf16', vector_bf16, name, source FROM p
)
SELECT platform, peak, value, source FROM figures WHERE value IS NOT NULL ORDER BY row_order
