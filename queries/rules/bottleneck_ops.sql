-- name: bottleneck_ops
-- version: 1
-- kind: rule
-- description: Bottleneck ops: op groups (name + input shapes) taking more than 10% of their category's GPU time, with their share of the trace and roofline efficiency.
--
-- Reads view analyze_ops. One finding per op group above the threshold; ops below
-- 1% of the trace's GPU time are left out (a category's top op is always above 10%
-- of a tiny category), and so are ops owning memcpy / memset work (the system
-- rules cover copies). Severity: 'warning' above 25% of the category, else 'info'.
-- Columns: the analyzer contract's 15 (queries/rules/*.sql all return them):
--   metric 'category_share_pct', value the op group's share of its category, %;
--   threshold min_category_share_pct; time_us its summed GPU time;
--   metrics {time_us, category_time_us, category_share_pct, share_pct, instances,
--   efficiency_pct}; evidence_uids the ops' uids.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 10.0 AS min_category_share_pct,    -- flag op groups above this share of their category
         1.0 AS min_trace_share_pct,        -- ignore op groups below this share of the trace
         25.0 AS warning_category_share_pct -- 'warning' above this share, else 'info'
),
platform AS (SELECT coalesce(platform, 'session') AS platform FROM session_platform),
-- One row per finding.
findings AS (
SELECT
  CASE WHEN a.category_share_pct > l.warning_category_share_pct THEN 'warning' ELSE 'info' END
    AS severity,
  a.category,
  a.name || coalesce(' ' || a.shape, '') AS subject,
  'category_share_pct' AS metric,
  CAST(a.category_share_pct AS DOUBLE) AS value,
  CAST(l.min_category_share_pct AS DOUBLE) AS threshold,
  a.name || ' takes ' || CAST(round(a.category_share_pct, 1) AS VARCHAR) || '% of '
    || a.category || ' GPU time (' || CAST(round(a.time_us / 1000, 3) AS VARCHAR) || ' ms in '
    || CAST(a.instances AS VARCHAR) || ' calls, '
    || CAST(round(a.share_pct, 1) AS VARCHAR) || '% of the trace'
    || CASE
         WHEN a.efficiency_pct IS NOT NULL
           THEN '; ' || CAST(round(a.efficiency_pct, 1) AS VARCHAR) || '% of the '
                || p.platform || ' roofline)'
         ELSE '; no roofline efficiency)'
       END AS message,
  'Look for ways to call ' || a.name
    || ' less often or on fused / batched work (torch.compile, fused modules).' AS action_a,
  'Replay artifact of ' || a.name || ' at this shape for the kernel team'
    || CASE WHEN a.efficiency_pct < 40 THEN ' (low roofline efficiency).' ELSE '.' END
    AS action_b,
  CAST(a.time_us AS DOUBLE) AS time_us,
  CAST(a.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(a.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(a.op_rank AS BIGINT) AS op_rank,
  json_object('time_us', a.time_us, 'category_time_us', a.category_time_us,
              'category_share_pct', a.category_share_pct, 'share_pct', a.share_pct,
              'instances', a.instances, 'efficiency_pct', a.efficiency_pct) AS metrics,
  a.uids AS evidence_uids
FROM analyze_ops a
CROSS JOIN limits l
CROSS JOIN platform p
WHERE a.category_share_pct > l.min_category_share_pct
  AND a.share_pct >= l.min_trace_share_pct
  AND a.compute_only
)
SELECT * FROM findings
ORDER BY op_rank, subject
