-- name: compare_ops_by_category
-- version: 1
-- kind: comparison
-- order: 4
-- sheet: compare_ops_by_category
-- group: ops_summary
-- description: GPU kernel time per op category on both sides (the ops_summary_by_category sheet compared), largest change first.
--
-- TraceLens's report diff has no category comparison (its issue #331).
-- Times are direct kernel time, µs, per run or per step (compare_basis); a
-- category missing on one side counts as 0 µs there.
-- Columns:
--   category: the op category (GEMM, SDPA_fwd, other, ...)
--   status: both, base_only or target_only
--   base_us: the base's direct kernel time, µs
--   target_us: the target's, µs
--   delta_us: target_us − base_us
--   delta_pct: delta_us as % of base_us (NULL without a base time)
--   base_count: the base's op instances
--   target_count: the target's op instances
WITH pooled AS (
  SELECT c.side, c."op category" AS category,
         sum(c.total_direct_kernel_time_ms) * 1000.0 / b.scale AS us,
         sum(c."Count") / b.scale AS n
  FROM report_ops_summary_by_category c
  JOIN compare_basis b ON b.side = c.side
  GROUP BY c.side, c."op category", b.scale
),
base AS (SELECT * FROM pooled WHERE side = 'base'),
target AS (SELECT * FROM pooled WHERE side = 'target')
SELECT coalesce(base.category, target.category) AS category,
       CASE
         WHEN base.category IS NULL THEN 'target_only'
         WHEN target.category IS NULL THEN 'base_only'
         ELSE 'both'
       END AS status,
       base.us AS base_us,
       target.us AS target_us,
       coalesce(target.us, 0) - coalesce(base.us, 0) AS delta_us,
       CASE WHEN base.us > 0 THEN 100.0 * (coalesce(target.us, 0) - base.us) / base.us END AS delta_pct,
       base.n AS base_count,
       target.n AS target_count
FROM base
FULL JOIN target ON target.category = base.category
ORDER BY abs(delta_us) DESC, category
