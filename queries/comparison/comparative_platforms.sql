-- name: comparative_platforms
-- version: 1
-- kind: comparison
-- description: The platform of each side of a comparative analysis and the peaks its expectations use, with the kind of peak (datasheet or achievable).
--
-- Expected ratios divide one platform's roofline time by the other's: both
-- must use the same kind of peak (the analysis refuses datasheet against
-- achievable, which the JARVIS workflow's table mixes: spec compare.md §6).
-- A platform's kind is `achievable` when its source says achievable or
-- measured (a `--platforms` file's entry), else `datasheet`.
-- One row per side.
-- Columns:
--   side: base (the reference) or target
--   label: the side's name
--   platform: the platform its reports used (NULL when none)
--   peak_kind: datasheet or achievable
--   memory_tb_s: peak HBM bandwidth, TB/s
--   matrix_bf16: peak dense BF16 matrix throughput, TFLOPS
--   matrix_fp16: peak dense FP16 matrix throughput, TFLOPS
--   matrix_fp32: peak FP32 matrix throughput, TFLOPS
--   vector_fp32: peak FP32 vector throughput, TFLOPS
--   source: where the peaks come from
WITH sides AS (
  SELECT side, min(label) AS label, min(platform) AS platform
  FROM compare_runs
  GROUP BY side
)
SELECT s.side, s.label, s.platform,
       CASE
         WHEN p.name IS NULL THEN NULL
         WHEN lower(p.source) LIKE '%achievable%' OR lower(p.source) LIKE '%measured%' THEN 'achievable'
         ELSE 'datasheet'
       END AS peak_kind,
       p.memory_tb_s, p.matrix_bf16, p.matrix_fp16, p.matrix_fp32, p.vector_fp32, p.source
FROM sides s
LEFT JOIN platforms p ON upper(p.name) = upper(s.platform)
ORDER BY s.side
