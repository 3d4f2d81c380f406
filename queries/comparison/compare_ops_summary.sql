-- name: compare_ops_summary
-- version: 1
-- kind: comparison
-- order: 3
-- sheet: compare_ops_summary
-- group: ops_summary
-- description: GPU kernel time per op on both sides, matched by canonical op name (op_equivalence), largest change first.
--
-- One row per canonical op name: never a cross join. `status` says whether
-- both sides have the op; a one-sided op counts as 0 µs on the other side in
-- `delta_us` (so an op that appears costs its whole time). `match_kind` says
-- how the names met: the same name, or names op_equivalence declares the same
-- work (cudnn ↔ miopen). Times are direct kernel time, µs, per run or per
-- step (compare_basis).
-- Columns:
--   name: the op name both sides write, else the canonical name their names share
--   category: the op's categories (GEMM, other, ...), comma-separated
--   status: both, base_only or target_only
--   match_kind: same_name, equivalent, or NULL for a one-sided op
--   base_names: the base's op names under this canonical name
--   target_names: the target's op names
--   base_us: the base's direct kernel time, µs
--   target_us: the target's, µs
--   delta_us: target_us − base_us (a missing side counts as 0)
--   delta_pct: delta_us as % of base_us (NULL without a base time)
--   base_count: the base's instances (per run or step)
--   target_count: the target's instances
WITH ops AS (
  SELECT o.side,
         coalesce(e.canonical_name, o.name) AS op,
         o.name,
         o.total_direct_kernel_time_sum AS us,
         o."Count" AS n,
         regexp_replace(o."Categories", '[\[\]'' ]', '', 'g') AS category
  FROM report_ops_summary o
  LEFT JOIN op_equivalence e ON e.name = o.name
),
pooled AS (
  SELECT o.side, o.op,
         sum(o.us) / b.scale AS us,
         sum(o.n) / b.scale AS n,
         array_to_string(array_sort(array_agg(DISTINCT o.name)), ' | ') AS names,
         array_to_string(array_sort(array_agg(DISTINCT o.category)), ',') AS category
  FROM ops o
  JOIN compare_basis b ON b.side = o.side
  GROUP BY o.side, o.op, b.scale
),
base AS (SELECT * FROM pooled WHERE side = 'base'),
target AS (SELECT * FROM pooled WHERE side = 'target')
SELECT CASE WHEN base.names = target.names THEN base.names ELSE coalesce(base.op, target.op) END AS name,
       coalesce(base.category, target.category) AS category,
       CASE
         WHEN base.op IS NULL THEN 'target_only'
         WHEN target.op IS NULL THEN 'base_only'
         ELSE 'both'
       END AS status,
       CASE
         WHEN base.op IS NULL OR target.op IS NULL THEN NULL
         WHEN base.names = target.names THEN 'same_name'
         ELSE 'equivalent'
       END AS match_kind,
       base.names AS base_names,
       target.names AS target_names,
       base.us AS base_us,
       target.us AS target_us,
       coalesce(target.us, 0) - coalesce(base.us, 0) AS delta_us,
       CASE WHEN base.us > 0 THEN 100.0 * (coalesce(target.us, 0) - base.us) / base.us END AS delta_pct,
       base.n AS base_count,
       target.n AS target_count
FROM base
FULL JOIN target ON target.op = base.op
ORDER BY abs(delta_us) DESC, name
