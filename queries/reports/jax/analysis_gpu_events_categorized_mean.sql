-- name: jax_analysis_gpu_events_categorized_mean
-- version: 1
-- kind: report
-- formats: jax
-- order: 62
-- sheet: jax_analysis_gpu_events_categorized_mean
-- description: JAX XPlane (TraceLens's JAX analysis report): GPU computation time per kernel category (kernel name first, hlo_op as fallback), all GPUs pooled, with count, time per GPU and % of the computation time, rounded to 2 decimals.
--
-- TraceLens file `trace_analysis_results_gpu_events_categorized_mean.csv`
-- of `generate_perf_report_jax_analysis` (spec formats.md §C.8, categories
-- §C.6), as it prints once the GPU metadata its run lacks is attached (the
-- `analysis_patched` references; TraceLens's own run fails on every trace).
-- The computation events of view jax_analysis_compute_events, all GPUs
-- pooled, grouped by their category; time ms = summed duration / 1e3,
-- time ms per gpu = time ms / num_gpus, percent = summed duration /
-- (average computation_time · num_gpus) · 100. Quirks reproduced:
-- * category by kernel name first, the hlo_op stat only as a fallback,
--   no match: 'Uncategorized Events' (the perf report does the opposite);
-- * the Uncategorized Events row is always there (count 0 when every event
--   has a category);
-- * percent is against the union of the computation intervals (busy time),
--   not the summed durations, so with overlapping kernels the rows sum to
--   more than 100;
-- * every value goes through pandas round(2) (half-to-even on the binary
--   value: np_round).
-- Sorted by percent descending (TraceLens leaves ties unordered; here by
-- name). One table for all the loaded traces: load one trace per report run.
-- Columns:
--   name: the category
--   count: computation events in it
--   "time ms": their summed duration, ms, rounded to 2 decimals
--   "time ms per gpu": time ms / number of GPUs, rounded to 2 decimals
--   percent: summed duration as % of all GPUs' computation time, rounded to 2 decimals
WITH cats AS (
  SELECT trace, category, count(*) AS n, sum(dur) AS time_us,
         max(num_gpus) AS num_gpus, max(avg_computation_time) AS avg_comp
  FROM jax_analysis_compute_events
  GROUP BY trace, category
),
seeded AS (
  SELECT * FROM cats
  UNION ALL
  SELECT trace, 'Uncategorized Events', 0, 0.0, max(num_gpus), max(avg_comp)
  FROM cats
  GROUP BY trace
  HAVING NOT bool_or(category = 'Uncategorized Events')
),
shares AS (
  SELECT trace, category, n, time_us / 1e3 AS ms, time_us / 1e3 / num_gpus AS ms_per_gpu,
         time_us / (avg_comp * num_gpus) * 100 AS pct
  FROM seeded
)
SELECT category AS name, n AS count, np_round(ms, 2) AS "time ms",
       np_round(ms_per_gpu, 2) AS "time ms per gpu", np_round(pct, 2) AS percent
FROM shares
ORDER BY trace, pct DESC, category
