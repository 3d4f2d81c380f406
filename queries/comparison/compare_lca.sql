-- name: compare_lca
-- version: 1
-- kind: comparison
-- order: 7
-- sheet: compare_lca
-- group: tracediff
-- description: The two call trees aligned (TraceDiff, top-level ops aligned by name): per lowest common ancestor, the GPU work each side runs under it, with one consistent ratio and delta.
--
-- Reads `tracediff_stats`: TraceDiff's per-kernel rows (diff_stats, spec
-- compare.md §3.6) with the roots aligned, not paired by position (TraceLens's
-- bug B1), so one extra top-level op does not shift the rest. Empty unless
-- each side is one trace. Unlike TraceLens's inline columns (§8 C1–C4), the
-- ratio and the delta come from the same totals, a side without kernels is
-- NULL (not a speedup of 0), and target-only groups are listed.
-- Columns:
--   lca_id: the merged tree node both sides' kernels meet under
--   lca_name: its name on each side ("a | b" when they differ)
--   cpu_ops: the ops that launched the kernels, both sides
--   status: both, base_only or target_only
--   base_kernels: the base's kernels under it
--   target_kernels: the target's
--   base_us: the base's summed kernel time, µs
--   target_us: the target's, µs
--   delta_us: target_us − base_us (a missing side counts as 0)
--   ratio: target_us / base_us (NULL when one side has none)
WITH per_lca AS (
  SELECT lowest_common_ancestor_id AS lca_id,
         min(lowest_common_ancestor_name) AS lca_name,
         array_to_string(array_sort(array_agg(DISTINCT cpu_op_name)), ' | ') AS cpu_ops,
         count(*) FILTER (WHERE source = 'trace1') AS base_kernels,
         count(*) FILTER (WHERE source = 'trace2') AS target_kernels,
         sum(kernel_time) FILTER (WHERE source = 'trace1') AS base_us,
         sum(kernel_time) FILTER (WHERE source = 'trace2') AS target_us
  FROM tracediff_stats
  WHERE lowest_common_ancestor_id IS NOT NULL
  GROUP BY lowest_common_ancestor_id
)
SELECT lca_id, lca_name, cpu_ops,
       CASE
         WHEN base_kernels = 0 THEN 'target_only'
         WHEN target_kernels = 0 THEN 'base_only'
         ELSE 'both'
       END AS status,
       base_kernels, target_kernels, base_us, target_us,
       coalesce(target_us, 0) - coalesce(base_us, 0) AS delta_us,
       CASE WHEN base_us > 0 AND target_kernels > 0 THEN target_us / base_us END AS ratio
FROM per_lca
ORDER BY abs(coalesce(target_us, 0) - coalesce(base_us, 0)) DESC, lca_id
