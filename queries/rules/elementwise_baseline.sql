-- name: elementwise_baseline
-- version: 2
-- kind: rule
-- description: Elementwise baseline: memory-bound ops whose achieved TB/s is far below (under half) what simple elementwise ops (add, mul, copy_) reach in the same trace: the gap is the op's kernel, not the memory system.
--
-- Reads view analyze_bandwidth_baseline: the trace's elementwise baseline (the
-- time-weighted TB/s of simple elementwise ops) and which op groups are
-- normalizations, defined there once for this rule and normalization_baseline.
-- Flagged: memory-bound op groups that are not matrix ops (GEMM, convolution and
-- attention have the efficiency_tiers rule) and not normalizations (rule
-- normalization_baseline), moving at least min_data_mb per call, compute kernels only,
-- above min_trace_share_pct of the trace, below max_ratio x baseline. No baseline
-- ops in the trace: no findings. Severity 'warning'.
-- Version 2: a normalization is what the view says, the one definition both rules
-- share; version 1 left out only the NORM_fwd / NORM_bwd / RMSNorm categories, so an
-- op named like a norm but of another category (aten::rms_norm, a Triton fused
-- norm) was flagged here and by normalization_baseline. It is now only flagged there.
-- Columns: the analyzer contract's 15; metric 'tb_per_s', threshold
-- max_ratio x baseline; metrics {tb_per_s, baseline_tb_s, ratio, baseline_groups,
-- data_mb, time_us, share_pct, efficiency_pct}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 0.5 AS max_ratio,             -- flag ops below this fraction of the baseline TB/s
         16.0 AS min_data_mb,          -- MiB per call of a flagged op (the baseline's: in the view)
         50.0 AS memory_bound_below_flops_per_byte, -- without a platform: memory-bound below this
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
    AND NOT t.is_normalization
    AND NOT starts_with(coalesce(t.compute_spec, ''), 'matrix')
    AND (t.bound = 'memory'
         OR (t.bound IS NULL AND t.flops_per_byte < l.memory_bound_below_flops_per_byte))
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
  'Fuse ' || t.name || ' with its neighbours (torch.compile or a fused kernel) so the data makes fewer trips through memory.' AS action_a,
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
