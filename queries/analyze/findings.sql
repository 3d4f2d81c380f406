-- name: findings
-- version: 2
-- kind: view
-- description: The analyzer's findings: every rule's rows (table findings_raw) with priority, projected impact and rank, in report order.
--
-- findings_raw holds the rows of every rule of the catalog (`-- kind: rule`),
-- with `rule` and `rule_version` added by `tracesql analyze`; outside analyze it
-- is empty. Contract: queries/rules/README.md.
-- Priority (first that holds):
--   critical  severity 'critical', or op_rank <= 10 AND efficiency_pct < 30 AND
--             category_share_pct > 15
--   high      op_rank <= 10, or efficiency_pct < 40 AND category_share_pct > 10
--   medium    category_share_pct > 5, or severity 'warning' (a notable pattern)
--   low       the rest
-- Impact, for findings with a time:
--   with efficiency_pct: the time saved if the subject reached 20/50/80% of peak,
--   time_us * (1 - efficiency_pct / target) when below the target, else 0;
--   without efficiency_pct: time_us is removable time (idle, copies, exposed
--   communication), the same at every target.
-- Columns:
--   rule: the rule (its file name)
--   rule_version: the rule's `-- version:`
--   severity: the rule's reading: 'critical', 'warning' or 'info'
--   category: op category, 'system' or 'validation'
--   subject: what the finding is about
--   metric: name of the main metric
--   value: its value
--   threshold: the threshold it crossed; NULL if none
--   message: what the trace shows, one line
--   action_a: Path A: what the model author can do
--   action_b: Path B: kernel-level work for a kernel team
--   time_us: GPU time of the subject, µs
--   category_share_pct: the subject's share of its category's GPU time, %
--   efficiency_pct: the subject's roofline efficiency, %
--   op_rank: rank of the subject among ops by GPU time
--   metrics: JSON object of the metric values the rule used
--   evidence_uids: events.uid of the evidence rows
--   priority: 'critical' | 'high' | 'medium' | 'low' (see above)
--   impact_ms_at_20: ms saved at 20% of peak; NULL when the finding has no time
--   impact_ms_at_50: ms saved at 50% of peak
--   impact_ms_at_80: ms saved at 80% of peak
--   priority_order: 1..4, critical first
--   impact_pct_e2e: impact_ms_at_80 as % of the trace's GPU span
--   finding_rank: 1.. in report order: priority, impact at 80% (largest first), then
--     rule, subject, metric, value, message (a total order: two runs rank alike)
WITH total AS (SELECT max(total_time) AS total_us FROM gpu_time_totals),
prioritized AS (
  SELECT f.*,
         CASE
           WHEN f.severity = 'critical'
             OR (f.op_rank <= 10 AND f.efficiency_pct < 30 AND f.category_share_pct > 15)
             THEN 'critical'
           WHEN f.op_rank <= 10 OR (f.efficiency_pct < 40 AND f.category_share_pct > 10)
             THEN 'high'
           WHEN f.category_share_pct > 5 OR f.severity = 'warning' THEN 'medium'
           ELSE 'low'
         END AS priority,
         CASE
           WHEN f.efficiency_pct IS NULL THEN f.time_us
           WHEN f.efficiency_pct < 20 THEN f.time_us * (1 - f.efficiency_pct / 20)
           ELSE 0.0
         END / 1e3 AS impact_ms_at_20,
         CASE
           WHEN f.efficiency_pct IS NULL THEN f.time_us
           WHEN f.efficiency_pct < 50 THEN f.time_us * (1 - f.efficiency_pct / 50)
           ELSE 0.0
         END / 1e3 AS impact_ms_at_50,
         CASE
           WHEN f.efficiency_pct IS NULL THEN f.time_us
           WHEN f.efficiency_pct < 80 THEN f.time_us * (1 - f.efficiency_pct / 80)
           ELSE 0.0
         END / 1e3 AS impact_ms_at_80
  FROM findings_raw f
)
SELECT p.*,
       CASE p.priority WHEN 'critical' THEN 1 WHEN 'high' THEN 2 WHEN 'medium' THEN 3 ELSE 4 END
         AS priority_order,
       p.impact_ms_at_80 * 1e3 / t.total_us * 100 AS impact_pct_e2e,
       CAST(row_number() OVER (
         ORDER BY CASE p.priority WHEN 'critical' THEN 1 WHEN 'high' THEN 2
                                  WHEN 'medium' THEN 3 ELSE 4 END,
                  p.impact_ms_at_80 DESC NULLS LAST, p.rule, p.subject, p.metric,
                  p.value, p.message
       ) AS BIGINT) AS finding_rank
FROM prioritized p CROSS JOIN total t
ORDER BY finding_rank
