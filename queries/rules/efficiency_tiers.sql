-- name: efficiency_tiers
-- version: 1
-- kind: rule
-- description: Efficiency tiers: op groups whose roofline efficiency on the session platform is below the good tier (> 80 excellent, 60-80 good, 40-60 acceptable, < 40 investigate), with their compute or memory bound.
--
-- Reads view analyze_ops (efficiency = roofline time / measured time over the op's
-- instances; the bound is compute when the op's FLOPs/byte is above the platform's
-- ridge point, memory otherwise). Op groups below 1% of the trace are left out,
-- and so are the excellent and good tiers (edit report_below_pct to see them).
-- Severity: 'warning' for investigate, 'info' for acceptable (and above).
-- Columns: the analyzer contract's 15; metric 'efficiency_pct', threshold the upper
-- edge of the op's tier; metrics {tier, bound, flops_per_byte, tflops_per_s,
-- tb_per_s, peak (TFLOPS/s or TB/s of its bound), time_us, share_pct}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 80.0 AS excellent_above_pct,  -- tier 'excellent' above this efficiency
         60.0 AS good_from_pct,        -- 'good' from here to excellent
         40.0 AS acceptable_from_pct,  -- 'acceptable' from here to good; below: 'investigate'
         60.0 AS report_below_pct,     -- only op groups below this efficiency are reported
         1.0 AS min_trace_share_pct    -- ignore op groups below this share of the trace
),
platform AS (SELECT coalesce(platform, 'session') AS platform FROM session_platform),
tiered AS (
  SELECT a.*, l.*,
         CASE
           WHEN a.efficiency_pct > l.excellent_above_pct THEN 'excellent'
           WHEN a.efficiency_pct >= l.good_from_pct THEN 'good'
           WHEN a.efficiency_pct >= l.acceptable_from_pct THEN 'acceptable'
           ELSE 'investigate'
         END AS tier,
         -- The platform peak the efficiency is measured against (achieved rate / efficiency).
         CASE a.bound
           WHEN 'compute' THEN a.tflops_per_s / (a.efficiency_pct / 100)
           ELSE a.tb_per_s / (a.efficiency_pct / 100)
         END AS peak
  FROM analyze_ops a
  CROSS JOIN limits l
  WHERE a.efficiency_pct IS NOT NULL AND a.efficiency_pct > 0
    AND a.efficiency_pct < l.report_below_pct
    AND a.share_pct >= l.min_trace_share_pct
),
-- One row per finding.
findings AS (
SELECT
  CASE tier WHEN 'investigate' THEN 'warning' ELSE 'info' END AS severity,
  t.category,
  t.name || coalesce(' ' || t.shape, '') AS subject,
  'efficiency_pct' AS metric,
  CAST(t.efficiency_pct AS DOUBLE) AS value,
  CAST(CASE tier
         WHEN 'investigate' THEN t.acceptable_from_pct
         WHEN 'acceptable' THEN t.good_from_pct
         WHEN 'good' THEN t.excellent_above_pct
       END AS DOUBLE) AS threshold,
  t.name || ' reaches ' || CAST(round(t.efficiency_pct, 1) AS VARCHAR) || '% of the '
    || p.platform || ' ' || coalesce(t.bound, '') || ' roofline ('
    || CASE t.bound
         WHEN 'compute' THEN CAST(round(t.tflops_per_s, 2) AS VARCHAR) || ' of '
                             || CAST(round(t.peak, 1) AS VARCHAR) || ' TFLOPS/s'
         ELSE CAST(round(t.tb_per_s, 3) AS VARCHAR) || ' of '
              || CAST(round(t.peak, 2) AS VARCHAR) || ' TB/s'
       END
    || ', ' || coalesce(CAST(round(t.flops_per_byte, 1) AS VARCHAR), '?') || ' FLOPs/byte): tier '
    || tier || ' (' || CAST(round(t.time_us / 1000, 3) AS VARCHAR) || ' ms, '
    || CAST(round(t.share_pct, 1) AS VARCHAR) || '% of the trace)' AS message,
  CASE t.bound
    WHEN 'memory' THEN 'Memory-bound: fuse ' || t.name
                       || ' with the ops around it (torch.compile or a fused kernel) to cut memory traffic.'
    ELSE 'Compute-bound: batch or reshape the calls of ' || t.name
         || ' into fewer, larger ones where the model allows.'
  END AS action_a,
  'Replay artifact of ' || t.name || ' at this shape for the kernel team; profile it with '
    || 'rocprof / nsight-compute to see why it stays at '
    || CAST(round(t.efficiency_pct, 1) AS VARCHAR) || '% of peak.' AS action_b,
  CAST(t.time_us AS DOUBLE) AS time_us,
  CAST(t.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(t.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(t.op_rank AS BIGINT) AS op_rank,
  json_object('tier', tier, 'bound', t.bound, 'flops_per_byte', t.flops_per_byte,
              'tflops_per_s', t.tflops_per_s, 'tb_per_s', t.tb_per_s, 'peak', t.peak,
              'time_us', t.time_us, 'share_pct', t.share_pct) AS metrics,
  t.uids AS evidence_uids
FROM tiered t
CROSS JOIN platform p
)
SELECT * FROM findings
ORDER BY op_rank, subject
