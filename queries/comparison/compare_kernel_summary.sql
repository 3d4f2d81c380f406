-- name: compare_kernel_summary
-- version: 1
-- kind: comparison
-- order: 6
-- sheet: compare_kernel_summary
-- group: kernel_summary
-- description: GPU time per kernel on both sides, keyed by parent op category, parent op (canonical) and kernel name, largest change first.
--
-- TraceLens keys this sheet by kernel name alone, so a kernel launched by two
-- ops or on two streams cross-joins with itself (spec compare.md §8 A1). Here
-- a row is one (category, parent op, kernel) with its streams summed; the
-- source rows pooled into it are counted. Across vendors kernel names rarely
-- match: compare at op level (compare_ops_summary) there.
-- Columns:
--   "Parent op category": category of the op that launched the kernel
--   "Parent cpu_op": canonical name of that op (NULL in GPU-only traces)
--   "Kernel name": the kernel
--   status: both, base_only or target_only
--   match_kind: one_to_one when each side has one source row, pooled when a side summed several (streams or runs), NULL when one-sided
--   base_us: the base's kernel time, µs (per run or step)
--   target_us: the target's, µs
--   delta_us: target_us − base_us (a missing side counts as 0)
--   delta_pct: delta_us as % of base_us (NULL without a base time)
--   base_count: the base's launches
--   target_count: the target's launches
--   base_streams: streams the base ran it on
--   target_streams: streams the target ran it on
WITH rows AS (
  SELECT k.side, k.run,
         k."Parent op category" AS category,
         coalesce(e.canonical_name, k."Parent cpu_op") AS parent,
         k."Kernel name" AS kernel,
         k."Kernel stream" AS stream,
         k."Kernel duration (µs)_sum" AS us,
         k."Kernel duration (µs)_count" AS n
  FROM report_kernel_summary k
  LEFT JOIN op_equivalence e ON e.name = k."Parent cpu_op"
),
pooled AS (
  SELECT r.side, r.category, r.parent, r.kernel,
         sum(r.us) / b.scale AS us,
         sum(r.n) / b.scale AS n,
         count(DISTINCT r.stream) AS streams,
         count(*) AS source_rows,
         count(DISTINCT r.run) AS runs
  FROM rows r
  JOIN compare_basis b ON b.side = r.side
  GROUP BY r.side, r.category, r.parent, r.kernel, b.scale
),
base AS (SELECT * FROM pooled WHERE side = 'base'),
target AS (SELECT * FROM pooled WHERE side = 'target')
SELECT coalesce(base.category, target.category) AS "Parent op category",
       CASE WHEN base.kernel IS NULL THEN target.parent ELSE base.parent END AS "Parent cpu_op",
       coalesce(base.kernel, target.kernel) AS "Kernel name",
       CASE
         WHEN base.kernel IS NULL THEN 'target_only'
         WHEN target.kernel IS NULL THEN 'base_only'
         ELSE 'both'
       END AS status,
       CASE
         WHEN base.kernel IS NULL OR target.kernel IS NULL THEN NULL
         WHEN base.source_rows = base.runs AND target.source_rows = target.runs THEN 'one_to_one'
         ELSE 'pooled'
       END AS match_kind,
       base.us AS base_us,
       target.us AS target_us,
       coalesce(target.us, 0) - coalesce(base.us, 0) AS delta_us,
       CASE WHEN base.us > 0 THEN 100.0 * (coalesce(target.us, 0) - base.us) / base.us END AS delta_pct,
       base.n AS base_count,
       target.n AS target_count,
       base.streams AS base_streams,
       target.streams AS target_streams
FROM base
FULL JOIN target
  ON target.kernel = base.kernel
 AND (target.category IS NOT DISTINCT FROM base.category)
 AND (target.parent IS NOT DISTINCT FROM base.parent)
ORDER BY abs(delta_us) DESC, "Kernel name", "Parent cpu_op", "Parent op category"
