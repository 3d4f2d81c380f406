-- name: elementwise_baseline
-- version: 1
-- kind: rule
-- description: Elementwise baseline: memory-bound ops whose achieved TB/s is far below (under half) what simple elementwise ops (add, mul, copy_) reach in the same trace: the gap is the op's kernel, not the memory system.
--
-- Reads view analyze_ops. Baseline: the TB/s of the simple elementwise op groups
-- (names in `baseline_ops`, compute kernels only, at least min_data_mb moved per
-- call so launch overhead does not dominate), time-weighted: sum(bytes) / sum(time).
-- Flagged: memory-bound op groups that are not matrix ops (GEMM, convolution and
-- attention have the efficiency_tiers rule) and not normalizations (rule
-- normalization_baseline), moving at least min_data_mb per call, compute kernels only,
-- above min_trace_share_pct of the trace, below max_ratio x baseline. No baseline
-- ops in the trace: no findings. Severity 'warning'.
-- Columns: the analyzer contract's 15; metric 'tb_per_s', threshold
-- max_ratio x baseline; metrics {tb_per_s, baseline_tb_s, ratio, baseline_groups,
-- data_mb, time_us, share_pct, efficiency_pct}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 0.5 AS max_ratio,             -- flag ops below this fraction of the baseline TB/s
         16.0 AS min_data_mb,          -- MiB per call, for baseline and flagged ops
         50.0 AS memory_bound_below_flops_per_byte, -- without a platform: memory-bound below this
         0.5 AS min_trace_share_pct    -- ignore op groups below this share of the trace
),
baseline_ops AS (
  SELECT name FROM (VALUES ('aten::add'), ('aten::add_'), ('aten::mul'), ('aten::mul_'),
                           ('aten::sub'), ('aten::sub_'), ('aten::copy_')) AS v(name)
),
baseline AS (
  SELECT a.trace,
         sum(a.tb_per_s * a.time_us) / sum(a.time_us) AS baseline_tb_s,
         count(*) AS baseline_groups
  FROM analyze_ops a
  CROSS JOIN limits l
  WHERE a.name IN (SELECT name FROM baseline_ops)
    AND a.compute_only AND a.tb_per_s IS NOT NULL AND a.data_mb >= l.min_data_mb
  GROUP BY a.trace
),
flagged AS (
  SELECT t.*, b.baseline_tb_s, b.baseline_groups, l.max_ratio,
         t.tb_per_s / b.baseline_tb_s AS ratio
  FROM analyze_ops t
  JOIN baseline b ON b.trace = t.trace
  CROSS JOIN limits l
  WHERE t.tb_per_s IS NOT NULL AND t.compute_only
    AND t.data_mb >= l.min_data_mb
    AND t.share_pct >= l.min_trace_share_pct
    AND t.tb_per_s < l.max_ratio * b.baseline_tb_s
    AND t.category NOT IN ('NORM_fwd', 'NORM_bwd', 'RMSNorm')
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
  t.name || ' moves ' || CAST(round(t.data_mb, 1) AS VARCHAR) || ' MB per call at '
    || CAST(round(t.tb_per_s, 3) AS VARCHAR) || ' TB/s, while simple elementwise ops in this trace reach '
    || CAST(round(t.baseline_tb_s, 3) AS VARCHAR) || ' TB/s ('
    || CAST(round(t.ratio * 100, 1) AS VARCHAR) || '%): the same memory moves data faster, so the gap is in this kernel ('
    || CAST(round(t.time_us / 1000, 3) AS VARCHAR) || ' ms, '
    || CAST(round(t.share_pct, 1) AS VARCHAR) || '% of the trace)' AS message,
  'Fuse ' || t.name || ' with its neighbours (torch.compile or a fused kernel) so the data makes fewer trips through memory.' AS action_a,
  'Replay artifact of ' || t.name || ' at this shape for the kernel team: it reaches '
    || CAST(round(t.ratio * 100, 1) AS VARCHAR) || '% of the elementwise bandwidth of this trace.'
    AS action_b,
  CAST(t.time_us AS DOUBLE) AS time_us,
  CAST(t.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(t.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(t.op_rank AS BIGINT) AS op_rank,
  '{"tb_per_s":' || CAST(t.tb_per_s AS VARCHAR)
    || ',"baseline_tb_s":' || CAST(t.baseline_tb_s AS VARCHAR)
    || ',"ratio":' || CAST(t.ratio AS VARCHAR)
    || ',"baseline_groups":' || CAST(t.baseline_groups AS VARCHAR)
    || ',"data_mb":' || CAST(t.data_mb AS VARCHAR)
    || ',"time_us":' || CAST(t.time_us AS VARCHAR)
    || ',"share_pct":' || coalesce(CAST(t.share_pct AS VARCHAR), 'null')
    || ',"efficiency_pct":' || coalesce(CAST(t.efficiency_pct AS VARCHAR), 'null')
    || '}' AS metrics,
  t.uids AS evidence_uids
FROM flagged t
)
-- The contract's columns with their exact types (string expressions are Utf8View otherwise).
SELECT arrow_cast(severity, 'Utf8') AS severity,
       arrow_cast(category, 'Utf8') AS category,
       arrow_cast(subject, 'Utf8') AS subject,
       arrow_cast(metric, 'Utf8') AS metric,
       CAST(value AS DOUBLE) AS value,
       CAST(threshold AS DOUBLE) AS threshold,
       arrow_cast(message, 'Utf8') AS message,
       arrow_cast(action_a, 'Utf8') AS action_a,
       arrow_cast(action_b, 'Utf8') AS action_b,
       CAST(time_us AS DOUBLE) AS time_us,
       CAST(category_share_pct AS DOUBLE) AS category_share_pct,
       CAST(efficiency_pct AS DOUBLE) AS efficiency_pct,
       CAST(op_rank AS BIGINT) AS op_rank,
       arrow_cast(metrics, 'Utf8') AS metrics,
       evidence_uids
FROM findings
ORDER BY op_rank, subject
