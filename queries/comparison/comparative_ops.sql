-- name: comparative_ops
-- version: 1
-- kind: comparison
-- description: Every op shape both sides ran, with the time ratio the two platforms' rooflines predict, whether the measured ratio is within tolerance of it, and the target time the hardware does not explain.
--
-- For a shape with perf-model FLOPs F and bytes B, a platform's roofline time
-- is max(F / peak(spec), B / bandwidth) (roofline_time_us); the expected
-- ratio is the target's over the reference's, so an op memory-bound on one
-- platform and compute-bound on the other is handled. Shapes without a perf
-- model fall back to the bandwidth ratio (labelled). `excess` = actual ratio /
-- expected ratio; beyond 1 + tolerance (comparative_settings) the target is
-- slower than the hardware explains, below its inverse the reference is.
-- `unexplained_us` = target time − expected ratio × reference time: what a
-- fix on the target could win; `priority_pct` is its share of the target's
-- op time. The reference is the comparison's base side.
-- Columns:
--   name: op name (canonical across vendors)
--   "op category": its category
--   thread_role: main or backward
--   "Input Dims": argument shapes
--   "Input type": argument dtypes
--   ref_us: the reference's kernel time, µs (per run or step)
--   target_us: the target's, µs
--   target_mean_us: the target's mean kernel time per instance, µs
--   delta_us: target_us − ref_us
--   delta_pct: delta_us as % of ref_us
--   actual_ratio: target_us / ref_us
--   expected_ratio: the target's roofline time over the reference's (or the bandwidth ratio)
--   expectation: roofline, or bandwidth (no perf model)
--   ref_bound: COMPUTE_BOUND or MEMORY_BOUND on the reference platform
--   target_bound: the same on the target platform
--   excess: actual_ratio / expected_ratio
--   expected: yes, target_slower, reference_slower, or unknown (no platform)
--   unexplained_us: target_us − expected_ratio × ref_us
--   priority_pct: unexplained_us as % of the target's op time
WITH settings AS (SELECT tolerance_pct / 100.0 AS tol FROM comparative_settings),
plat AS (
  SELECT max(CASE WHEN side = 'base' THEN platform END) AS ref_platform,
         max(CASE WHEN side = 'target' THEN platform END) AS target_platform,
         max(CASE WHEN side = 'base' THEN memory_tb_s END) AS ref_tb_s,
         max(CASE WHEN side = 'target' THEN memory_tb_s END) AS target_tb_s
  FROM comparative_platforms
),
total AS (SELECT sum(target_us) AS target_total_us FROM compare_unified_perf_summary),
ops AS (
  SELECT u.name, u."op category", u.thread_role, u."Input Dims", u."Input type",
         u.base_us, u.target_us, u.target_mean_us, u.delta_us, u.delta_pct, u.ratio,
         p.ref_tb_s, p.target_tb_s,
         roofline_time_us(u.base_gflops * 1e9, u.base_data_mb * 1048576.0, p.ref_platform, u.base_compute_spec) AS ref_roof_us,
         roofline_time_us(u.target_gflops * 1e9, u.target_data_mb * 1048576.0, p.target_platform, u.target_compute_spec) AS target_roof_us,
         roofline_bound(u.base_gflops * 1e9, u.base_data_mb * 1048576.0, p.ref_platform, u.base_compute_spec) AS ref_bound,
         roofline_bound(u.target_gflops * 1e9, u.target_data_mb * 1048576.0, p.target_platform, u.target_compute_spec) AS target_bound
  FROM compare_unified_perf_summary u
  CROSS JOIN plat p
  WHERE u.status = 'both' AND u.base_us > 0 AND u.target_us > 0
),
expected AS (
  SELECT *,
         CASE
           WHEN ref_roof_us > 0 AND target_roof_us > 0 THEN target_roof_us / ref_roof_us
           WHEN ref_tb_s > 0 AND target_tb_s > 0 THEN ref_tb_s / target_tb_s
         END AS expected_ratio,
         CASE
           WHEN ref_roof_us > 0 AND target_roof_us > 0 THEN 'roofline'
           WHEN ref_tb_s > 0 AND target_tb_s > 0 THEN 'bandwidth (no perf model)'
         END AS expectation
  FROM ops
)
SELECT e.name, e."op category", e.thread_role, e."Input Dims", e."Input type",
       e.base_us AS ref_us, e.target_us, e.target_mean_us, e.delta_us, e.delta_pct,
       e.ratio AS actual_ratio, e.expected_ratio, e.expectation,
       e.ref_bound, e.target_bound,
       e.ratio / e.expected_ratio AS excess,
       CASE
         WHEN e.expected_ratio IS NULL THEN 'unknown'
         WHEN e.ratio / e.expected_ratio > 1.0 + s.tol THEN 'target_slower'
         WHEN e.ratio / e.expected_ratio < 1.0 / (1.0 + s.tol) THEN 'reference_slower'
         ELSE 'yes'
       END AS expected,
       e.target_us - e.expected_ratio * e.base_us AS unexplained_us,
       100.0 * (e.target_us - e.expected_ratio * e.base_us) / t.target_total_us AS priority_pct
FROM expected e
CROSS JOIN settings s
CROSS JOIN total t
ORDER BY unexplained_us DESC NULLS LAST, e.name, e."Input Dims", e."Input type", e.thread_role, e."op category"
