-- name: perf_model_coverage
-- version: 2
-- kind: rule
-- description: Validation: op names with GPU kernel time but no perf model (no FLOPs or bytes, so no efficiency): info, one finding per name holding at least 1% of the total GPU time.
--
-- Over view analyze_ops, summed per op name; "no perf model" is perf_model(name) IS
-- NULL. Findings under 1% of the GPU span are left out to keep the list short.
-- Columns: metric share_pct (of total_time of gpu_time_totals), threshold 1;
-- category_share_pct NULL; time_us the name's GPU time (no impact: efficiency unknown).
WITH per_name AS (
  SELECT name, min(category) AS category, sum(instances) AS instances, sum(time_us) AS time_us,
         max(total_time_us) AS total_time_us, flatten(array_agg(uids ORDER BY category, shape)) AS uids
  FROM analyze_ops
  WHERE perf_model(name) IS NULL
  GROUP BY name
),
s AS (
  SELECT *, time_us / total_time_us * 100 AS share_pct FROM per_name WHERE total_time_us > 0
)
SELECT
  'info' AS severity,
  'validation' AS category,
  name AS subject,
  'share_pct' AS metric,
  share_pct AS value,
  1.0 AS threshold,
  name || ' (' || category || ', ' || CAST(instances AS VARCHAR) || ' instances) has '
    || CAST(round(time_us / 1e3, 3) AS VARCHAR) || ' ms of GPU time ('
    || CAST(round(share_pct, 2) AS VARCHAR)
    || '% of the trace) and no perf model, so its efficiency is not known.' AS message,
  'None in the model.' AS action_a,
  'Add a perf model for ' || name || ' (FLOPs and bytes) so its efficiency can be judged.'
    AS action_b,
  CAST(NULL AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('time_us', time_us, 'total_us', total_time_us, 'instances', instances) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE share_pct >= 1
