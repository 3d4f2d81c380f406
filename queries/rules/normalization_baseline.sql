-- name: normalization_baseline
-- version: 1
-- kind: rule
-- description: Normalization baseline: normalization ops (batch, layer, group, RMS norm) whose achieved TB/s is far below (under half) what simple elementwise ops (add, mul, copy_) reach in the same trace: the gap is the norm kernel, not the memory system.
--
-- Reads view analyze_bandwidth_baseline: the trace's elementwise baseline (the
-- time-weighted TB/s of simple elementwise ops) and which op groups are
-- normalizations (category NORM_fwd / NORM_bwd / RMSNorm, or a batch/layer/group/RMS
-- norm name), defined there once for this rule and elementwise_baseline.
-- Flagged: normalization groups moving at least min_data_mb per call, compute
-- kernels only, above min_trace_share_pct of the trace, below max_ratio x baseline.
-- No baseline ops in the trace: no findings. Severity 'warning'.
-- Columns: the analyzer contract's 15; metric 'tb_per_s', threshold
-- max_ratio x baseline; metrics {tb_per_s, baseline_tb_s, ratio, baseline_groups,
-- data_mb, time_us, share_pct, efficiency_pct}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 0.5 AS max_ratio,             -- flag ops below this fraction of the baseline TB/s
         16.0 AS min_data_mb,          -- MiB per call of a flagged op (the baseline's: in the view)
         0.5 AS min_trace_share_pct    -- ignore op groups below this share of the trace
),
-- Op groups far below the trace's baseline (view analyze_bandwidth_baseline).
flagged AS (
  SELECT t.*, l.max_ratio
  FROM analyze_bandwidth_baseline t
  CROSS JOIN limits l
  WHERE t.data_mb >= l.min_data_mb
    AND t.share_pct >= l.min_trace_share_pct
    AND t.tb_per_s < l.max_ratio * t.baseline_tb_s
    AND t.is_normalization
),
-- One row per finding.
findings AS (
SELECT
  'warning' AS severity,
  t.category AS category,
  t.name || coalesce(' ' || t.shape, '') AS subject,
  'tb_per_s' AS metric,
  CAST(t.tb_per_s AS DOUBLE) AS value,
  CAST(t.max_ratio * t.baseline_tb_s AS DOUBLE) AS threshold,
  t.gap_message AS message,
  'Use a fused normalization (e.g. fold batch norm into the preceding convolution for inference, a fused layer/RMS norm kernel, or torch.compile).' AS action_a,
  t.gap_replay_action AS action_b,
  CAST(t.time_us AS DOUBLE) AS time_us,
  CAST(t.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(t.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(t.op_rank AS BIGINT) AS op_rank,
  t.gap_metrics AS metrics,
  t.uids AS evidence_uids
FROM flagged t
)
SELECT * FROM findings
ORDER BY op_rank, subject
