-- name: efficiency_over_peak
-- version: 1
-- kind: rule
-- description: Validation: op groups whose roofline efficiency on the session platform exceeds 100% of peak, which points at the perf model (FLOPs or bytes counted too high) or the platform's peaks (wrong platform or dtype peak).
--
-- Over view analyze_ops (efficiency_pct NULL without a platform or a perf model:
-- no finding). op_rank and category_share_pct are left NULL so that the finding
-- ranks by its severity (medium), not by the op's size.
-- Columns: subject the op name and its input dims; metric
-- efficiency_pct, threshold 100; time_us the group's GPU time.
SELECT
  'warning' AS severity,
  'validation' AS category,
  name || coalesce(' ' || shape, '') AS subject,
  'efficiency_pct' AS metric,
  efficiency_pct AS value,
  100.0 AS threshold,
  name || ' (' || category || ', ' || CAST(instances AS VARCHAR) || ' instances) reaches '
    || CAST(round(efficiency_pct, 1) AS VARCHAR) || '% of the platform''s '
    || coalesce(bound, '') || ' peak, above what the hardware can do: its perf model or the platform peaks do not fit this op.'
    AS message,
  'Check that --platform names the GPU the trace ran on and that the op''s dtype has the right peak.'
    AS action_a,
  'Check the op''s perf model (FLOPs and bytes) against its shapes; a replay of the shape measures the real rate.'
    AS action_b,
  time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('efficiency_pct', efficiency_pct, 'gflops', gflops, 'data_mb', data_mb,
              'tflops_per_s', tflops_per_s, 'tb_per_s', tb_per_s, 'time_us', time_us) AS metrics,
  uids AS evidence_uids
FROM analyze_ops
WHERE efficiency_pct > 100
