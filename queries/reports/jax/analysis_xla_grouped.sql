-- name: jax_analysis_xla_grouped
-- version: 1
-- kind: report
-- formats: jax
-- order: 63
-- sheet: jax_analysis_xla_grouped
-- empty: write
-- description: JAX XPlane (TraceLens's JAX analysis report): the uncategorized GPU computation events grouped by their name without digits and trailing underscores, with count, time, time per GPU and % of the uncategorized time, rounded to 2 decimals.
--
-- TraceLens file `trace_analysis_results_xla_grouped.csv` of
-- `generate_perf_report_jax_analysis` (spec formats.md §C.8), as it prints
-- once the GPU metadata its run lacks is attached (the `analysis_patched`
-- references; TraceLens's own run fails on every trace). The events of view
-- jax_analysis_compute_events in category 'Uncategorized Events', all GPUs
-- pooled: first per full kernel name count, time ms = summed duration /
-- 1e3, time ms per gpu = time ms / num_gpus, percent = summed duration /
-- the whole uncategorized duration · 100; then those rows grouped by the
-- name with the regex `\d+|_+$` removed, every column summed. Quirks
-- reproduced:
-- * `\d+|_+$` removes every digit run, but underscores only where they end
--   the original name: `input_transpose_fusion_1.kd` →
--   `input_transpose_fusion_.kd`, `Im3d2Col.kd` → `ImdCol.kd`;
-- * the groups sum the per-name values (not one division of the sum);
-- * every value goes through pandas round(2) (half-to-even on the binary
--   value: np_round).
-- Sorted by percent descending (TraceLens leaves ties unordered; here by
-- name). Header-only when no event is uncategorized. One table for all the
-- loaded traces: load one trace per report run.
-- Columns:
--   short_name_grouped: the kernel name without its digits and its trailing underscores
--   count: events in the group
--   "time ms": their summed duration, ms, rounded to 2 decimals
--   "time ms per gpu": time ms / number of GPUs, rounded to 2 decimals
--   percent: their duration as % of all uncategorized events' duration, rounded to 2 decimals
WITH uncat AS (
  SELECT * FROM jax_analysis_compute_events WHERE category = 'Uncategorized Events'
),
by_name AS (
  SELECT trace, name, count(*) AS n, sum(dur) AS time_us, max(num_gpus) AS num_gpus
  FROM uncat
  GROUP BY trace, name
),
per_name AS (
  SELECT trace, name, n, time_us / 1e3 AS ms, time_us / 1e3 / num_gpus AS ms_per_gpu,
         time_us / sum(time_us) OVER (PARTITION BY trace) * 100 AS pct
  FROM by_name
),
grouped AS (
  SELECT trace, regexp_replace(name, '[0-9]+|_+$', '', 'g') AS short_name,
         sum(n) AS n, sum(ms) AS ms, sum(ms_per_gpu) AS ms_per_gpu, sum(pct) AS pct
  FROM per_name
  GROUP BY trace, regexp_replace(name, '[0-9]+|_+$', '', 'g')
)
SELECT short_name AS short_name_grouped, n AS count, np_round(ms, 2) AS "time ms",
       np_round(ms_per_gpu, 2) AS "time ms per gpu", np_round(pct, 2) AS percent
FROM grouped
ORDER BY trace, pct DESC, short_name
