-- name: compare_unified_perf_summary
-- version: 2
-- kind: comparison
-- order: 5
-- sheet: compare_unified_perf_summary
-- group: ops_all
-- description: Kernel time per op and shape on both sides (the unified_perf_summary sheet compared), keyed by op, category, thread role and arguments, largest change first.
--
-- TraceLens keys these rows by name and arguments only, so a training trace's
-- forward and backward rows of one op and shape cross-join (spec compare.md
-- §8 A1). Here the key adds the op category and the thread's role (backward
-- for autograd threads, else main: thread ids differ from run to run), and the
-- op name is canonical (op_equivalence). Times are µs per run or per step.
-- Columns:
--   name: canonical op name
--   "op category": the op's category
--   thread_role: main, or backward for autograd threads
--   "Input type": argument dtypes
--   "Input Dims": argument shapes
--   "Input Strides": argument strides
--   "Concrete Inputs": scalar arguments
--   status: both, base_only or target_only
--   match_kind: one_to_one when each side has one source row, pooled when a side summed several, NULL when one-sided
--   base_us: the base's kernel time, µs
--   target_us: the target's, µs
--   delta_us: target_us − base_us (a missing side counts as 0)
--   delta_pct: delta_us as % of base_us (NULL without a base time)
--   ratio: target_us / base_us (NULL when one-sided)
--   base_count: the base's instances
--   target_count: the target's instances
--   base_mean_us: the base's mean kernel time per instance, µs
--   target_mean_us: the target's, µs
--   base_gflops: GFLOPs per instance by the base's perf model (NULL without one)
--   target_gflops: the target's
--   base_data_mb: MiB moved per instance by the base's perf model
--   target_data_mb: the target's
--   base_compute_spec: the peak the base's roofline uses (matrix_bf16, vector_fp32, ...; NULL without a platform)
--   target_compute_spec: the target's
WITH rows AS (
  SELECT u.side, u.run,
         coalesce(e.canonical_name, u.name) AS name,
         u."op category" AS category,
         CASE WHEN lower(u.thread_name) LIKE '%autograd%' OR lower(u.thread_name) LIKE '%backward%'
              THEN 'backward' ELSE 'main' END AS thread_role,
         u."Input type" AS input_type,
         u."Input Dims" AS input_dims,
         u."Input Strides" AS input_strides,
         u."Concrete Inputs" AS concrete_inputs,
         u."Kernel Time (µs)_sum" AS us,
         u.operation_count AS n,
         u."GFLOPS" AS gflops,
         u."Data Moved (MB)" AS data_mb,
         u."Compute Spec" AS compute_spec
  FROM report_unified_perf_summary u
  LEFT JOIN op_equivalence e ON e.name = u.name
),
pooled AS (
  SELECT r.side, r.name, r.category, r.thread_role, r.input_type, r.input_dims,
         r.input_strides, r.concrete_inputs,
         sum(r.us) / b.scale AS us,
         sum(r.n) / b.scale AS n,
         count(*) AS source_rows,
         count(DISTINCT r.run) AS runs,
         max(r.gflops) AS gflops,
         max(r.data_mb) AS data_mb,
         max(r.compute_spec) AS compute_spec
  FROM rows r
  JOIN compare_basis b ON b.side = r.side
  GROUP BY r.side, r.name, r.category, r.thread_role, r.input_type, r.input_dims,
           r.input_strides, r.concrete_inputs, b.scale
),
base AS (SELECT * FROM pooled WHERE side = 'base'),
target AS (SELECT * FROM pooled WHERE side = 'target')
SELECT coalesce(base.name, target.name) AS name,
       CASE WHEN base.name IS NULL THEN target.category ELSE base.category END AS "op category",
       coalesce(base.thread_role, target.thread_role) AS thread_role,
       CASE WHEN base.name IS NULL THEN target.input_type ELSE base.input_type END AS "Input type",
       CASE WHEN base.name IS NULL THEN target.input_dims ELSE base.input_dims END AS "Input Dims",
       CASE WHEN base.name IS NULL THEN target.input_strides ELSE base.input_strides END AS "Input Strides",
       CASE WHEN base.name IS NULL THEN target.concrete_inputs ELSE base.concrete_inputs END AS "Concrete Inputs",
       CASE
         WHEN base.name IS NULL THEN 'target_only'
         WHEN target.name IS NULL THEN 'base_only'
         ELSE 'both'
       END AS status,
       CASE
         WHEN base.name IS NULL OR target.name IS NULL THEN NULL
         WHEN base.source_rows = base.runs AND target.source_rows = target.runs THEN 'one_to_one'
         ELSE 'pooled'
       END AS match_kind,
       base.us AS base_us,
       target.us AS target_us,
       coalesce(target.us, 0) - coalesce(base.us, 0) AS delta_us,
       CASE WHEN base.us > 0 THEN 100.0 * (coalesce(target.us, 0) - base.us) / base.us END AS delta_pct,
       CASE WHEN base.us > 0 AND target.name IS NOT NULL THEN target.us / base.us END AS ratio,
       base.n AS base_count,
       target.n AS target_count,
       base.us / base.n AS base_mean_us,
       target.us / target.n AS target_mean_us,
       base.gflops AS base_gflops,
       target.gflops AS target_gflops,
       base.data_mb AS base_data_mb,
       target.data_mb AS target_data_mb,
       base.compute_spec AS base_compute_spec,
       target.compute_spec AS target_compute_spec
FROM base
FULL JOIN target
  ON target.name = base.name
 AND (target.category IS NOT DISTINCT FROM base.category)
 AND target.thread_role = base.thread_role
 AND (target.input_type IS NOT DISTINCT FROM base.input_type)
 AND (target.input_dims IS NOT DISTINCT FROM base.input_dims)
 AND (target.input_strides IS NOT DISTINCT FROM base.input_strides)
 AND (target.concrete_inputs IS NOT DISTINCT FROM base.concrete_inputs)
ORDER BY abs(delta_us) DESC, name, "Input Dims", "Input type", "Input Strides", "Concrete Inputs", thread_role, "op category"
