-- name: comparability
-- version: 1
-- kind: comparison
-- order: 1
-- sheet: comparability
-- group: always
-- description: Whether the two sides can be compared op for op, checked before any diff: runs, profiler steps, platforms, how much GPU time falls in ops both sides have, and the dtypes of each side's top ops.
--
-- A low op overlap means the traces run different work (another model, a
-- different batch): the per-op rows are then mostly one-sided and the
-- timeline is the comparison that holds. TraceLens only detects identical
-- traces, by equal event ids (spec compare.md §10.13).
-- Columns:
--   check: runs, profiler_steps, platform, op_overlap, top_op_dtypes
--   base: the base's value
--   target: the target's value
--   verdict: ok, note or warning
--   explanation: what the values mean for the comparison
WITH basis AS (
  SELECT max(CASE WHEN side = 'base' THEN runs END) AS base_runs,
         max(CASE WHEN side = 'target' THEN runs END) AS target_runs,
         max(CASE WHEN side = 'base' THEN profiler_steps END) AS base_steps,
         max(CASE WHEN side = 'target' THEN profiler_steps END) AS target_steps,
         min(basis) AS basis
  FROM compare_basis
),
platforms AS (
  SELECT array_to_string(array_sort(array_agg(DISTINCT CASE WHEN side = 'base' THEN coalesce(platform, 'unknown') END)), ', ') AS base_platform,
         array_to_string(array_sort(array_agg(DISTINCT CASE WHEN side = 'target' THEN coalesce(platform, 'unknown') END)), ', ') AS target_platform
  FROM compare_runs
),
overlap AS (
  SELECT sum(CASE WHEN status = 'both' THEN base_us ELSE 0 END) / nullif(sum(coalesce(base_us, 0)), 0) * 100.0 AS base_pct,
         sum(CASE WHEN status = 'both' THEN target_us ELSE 0 END) / nullif(sum(coalesce(target_us, 0)), 0) * 100.0 AS target_pct
  FROM compare_ops_summary
),
ranked AS (
  SELECT side, "Input type" AS input_type,
         row_number() OVER (PARTITION BY side ORDER BY "Kernel Time (µs)_sum" DESC, name, "Input Dims") AS rank
  FROM report_unified_perf_summary
),
dtypes AS (
  SELECT array_to_string(array_sort(array_agg(DISTINCT CASE WHEN side = 'base' THEN input_type END)), ' ; ') AS base_types,
         array_to_string(array_sort(array_agg(DISTINCT CASE WHEN side = 'target' THEN input_type END)), ' ; ') AS target_types
  FROM ranked
  WHERE rank <= 3
),
checks AS (
  SELECT 1 AS ord, 'runs' AS "check",
         CAST(base_runs AS VARCHAR) AS base, CAST(target_runs AS VARCHAR) AS target,
         CASE WHEN base_runs = target_runs THEN 'ok' ELSE 'note' END AS verdict,
         CASE WHEN base_runs = target_runs THEN 'each side is its mean run'
              ELSE 'the sides pool different numbers of runs; each side is its mean run' END AS explanation
  FROM basis
  UNION ALL
  SELECT 2, 'profiler_steps',
         coalesce(CAST(base_steps AS VARCHAR), 'unknown'), coalesce(CAST(target_steps AS VARCHAR), 'unknown'),
         CASE WHEN basis = 'per_step' THEN 'note'
              WHEN base_steps IS NULL OR target_steps IS NULL OR base_steps = 0 OR target_steps = 0 THEN 'note'
              ELSE 'ok' END,
         CASE WHEN basis = 'per_step' THEN 'the sides profiled different numbers of steps per run: times are compared per step'
              WHEN base_steps IS NULL OR target_steps IS NULL OR base_steps = 0 OR target_steps = 0
                THEN 'no ProfilerStep annotations on a side: times are compared per run, whatever each run profiled'
              ELSE 'the same number of steps per run' END
  FROM basis
  UNION ALL
  SELECT 3, 'platform', base_platform, target_platform,
         CASE WHEN base_platform = target_platform THEN 'ok' ELSE 'note' END,
         CASE WHEN base_platform = target_platform THEN 'the same platform on both sides'
              ELSE 'different platforms: differences include the hardware; op names are matched through op_equivalence' END
  FROM platforms
  UNION ALL
  SELECT 4, 'op_overlap',
         coalesce(CAST(round(base_pct, 1) AS VARCHAR) || '% of GPU time', 'no ops'),
         coalesce(CAST(round(target_pct, 1) AS VARCHAR) || '% of GPU time', 'no ops'),
         CASE WHEN base_pct IS NULL OR target_pct IS NULL THEN 'note'
              WHEN least(base_pct, target_pct) < 50 THEN 'warning'
              ELSE 'ok' END,
         CASE WHEN base_pct IS NULL OR target_pct IS NULL THEN 'no op-level data on a side (GPU-only trace?): compare the timeline and kernels'
              WHEN least(base_pct, target_pct) < 50 THEN 'less than half of a side''s GPU time is in ops the other side has: the traces run different work, per-op rows are mostly one-sided'
              ELSE 'the share of each side''s GPU time spent in ops both sides have' END
  FROM overlap
  UNION ALL
  SELECT 5, 'top_op_dtypes', coalesce(base_types, 'none'), coalesce(target_types, 'none'),
         CASE WHEN base_types IS NULL OR target_types IS NULL OR base_types = target_types THEN 'ok' ELSE 'note' END,
         'argument dtypes of each side''s three most expensive op shapes'
  FROM dtypes
)
SELECT "check", base, target, verdict, explanation
FROM checks
ORDER BY ord
