-- name: compare_basis
-- version: 1
-- kind: comparison
-- description: How each side's pooled totals are scaled: per run, or per profiler step when the sides profiled different numbers of steps per run.
--
-- Every comparison view divides a side's summed time by its `scale`, so a
-- side of three repeated runs is compared by its mean run, and a trace of 10
-- steps against one of 5 by time per step (TraceLens compares raw sums:
-- spec compare.md §8 A10). Per step needs every run of both sides to carry
-- ProfilerStep#N annotations.
-- One row per side.
-- Columns:
--   side: base or target
--   label: the side's name (--names)
--   runs: traces pooled on this side
--   profiler_steps: their ProfilerStep#N annotations, summed (NULL for report folders)
--   basis: per_run or per_step (the same on both sides)
--   scale: what the side's sums are divided by: its runs or its steps
WITH per_side AS (
  SELECT side,
         min(label) AS label,
         count(*) AS runs,
         sum(profiler_steps) AS profiler_steps,
         bool_and(coalesce(profiler_steps, 0) > 0) AS all_stepped
  FROM compare_runs
  GROUP BY side
),
choice AS (
  SELECT CASE
           WHEN bool_and(all_stepped)
                AND count(DISTINCT CAST(profiler_steps AS DOUBLE) / runs) > 1 THEN 'per_step'
           ELSE 'per_run'
         END AS basis
  FROM per_side
)
SELECT p.side, p.label, p.runs, p.profiler_steps, c.basis,
       CASE c.basis
         WHEN 'per_step' THEN CAST(p.profiler_steps AS DOUBLE)
         ELSE CAST(p.runs AS DOUBLE)
       END AS scale
FROM per_side p CROSS JOIN choice c
ORDER BY p.side
