-- name: findings
-- version: 3
-- kind: view
-- description: The analyzer's findings: every rule's rows (table findings_raw) with end-to-end share, capped saving estimates, priority and rank, in report order.
--
-- findings_raw holds the rows of every rule of the catalog (`-- kind: rule`),
-- with `rule` and `rule_version` added by `tracesql analyze`; outside analyze it
-- is empty. Contract: queries/rules/README.md. View recommendations merges the
-- rows about one subject.
-- Saving (impact), for findings with a time:
--   with efficiency_pct: the time saved if the subject reached 20/50/80% of peak,
--   time_us * (1 - efficiency_pct / target) when below the target, else 0;
--   without efficiency_pct: time_us is removable time (idle, copies, exposed
--   communication), the same at every target; except for an op group (op_rank set)
--   or a validation finding, whose time is not removable as such: no estimate.
-- Caps: a saving lies between 0 and time_us; per category, the savings of its
--   subjects (each subject counted once, at its largest saving) add up to at most the
--   category's GPU time (analyze_ops; for system, validation and categories without
--   ops: the GPU span, summed over the traces): where they add up to more, every
--   saving of the category is scaled down by the same factor (the one of the 80%
--   target, the largest, so that 20% <= 50% <= 80% still holds).
-- Priority: view priority_rule, from share_pct_e2e, impact_pct_e2e and severity: the
--   first priority one of whose conditions holds.
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
--   priority: 'critical' | 'high' | 'medium' | 'low' (view priority_rule)
--   impact_ms_at_20: ms saved at 20% of peak, capped (see above); NULL when the
--     finding has no estimate
--   impact_ms_at_50: ms saved at 50% of peak, capped
--   impact_ms_at_80: ms saved at 80% of peak, capped
--   priority_order: 1..4, critical first
--   impact_pct_e2e: impact_ms_at_80 as % of the trace's GPU span (saving_pct_e2e of
--     priority_rule)
--   share_pct_e2e: time_us as % of the trace's GPU span
--   category_time_us: the GPU time the category's savings are capped at, µs
--   finding_rank: 1.. in report order: priority, impact at 80% (largest first), then
--     rule, subject, metric, value, message (a total order: two runs rank alike)
WITH total AS (
  SELECT max(total_time) AS total_us, sum(total_time) AS spans_us FROM gpu_time_totals
),
-- Each op category's GPU time, summed over the traces.
op_categories AS (
  SELECT category, sum(time_us) AS time_us
  FROM (SELECT trace, category, max(category_time_us) AS time_us
        FROM analyze_ops GROUP BY trace, category)
  GROUP BY category
),
-- Whether a finding has a saving estimate (see above), and its time, >= 0.
basis AS (
  SELECT f.*, greatest(f.time_us, 0.0) AS time0_us,
         f.time_us IS NOT NULL
           AND (f.efficiency_pct IS NOT NULL
                OR (f.op_rank IS NULL AND f.category IS DISTINCT FROM 'validation'))
           AS estimable
  FROM findings_raw f
),
-- Savings before the category cap, µs: the share of time_us below the target
-- (all of it without an efficiency, read as 0%), between 0 and time_us. (greatest
-- and least skip NULLs, hence the coalesce.)
raw AS (
  SELECT b.*, t.total_us,
         coalesce(c.time_us, t.spans_us) AS category_time_us,
         CASE WHEN b.estimable THEN b.time0_us
           * least(greatest(1 - coalesce(b.efficiency_pct, 0.0) / 20, 0.0), 1.0) END
           AS saving_us_20,
         CASE WHEN b.estimable THEN b.time0_us
           * least(greatest(1 - coalesce(b.efficiency_pct, 0.0) / 50, 0.0), 1.0) END
           AS saving_us_50,
         CASE WHEN b.estimable THEN b.time0_us
           * least(greatest(1 - coalesce(b.efficiency_pct, 0.0) / 80, 0.0), 1.0) END
           AS saving_us_80
  FROM basis b
  CROSS JOIN total t
  LEFT JOIN op_categories c ON c.category = b.category
),
-- Per category: the factor that brings its subjects' savings within its time.
scale AS (
  SELECT category,
         least(1.0, max(category_time_us) / nullif(sum(saving_us_80), 0)) AS factor
  FROM (SELECT category, subject, max(category_time_us) AS category_time_us,
               max(saving_us_80) AS saving_us_80
        FROM raw GROUP BY category, subject)
  GROUP BY category
),
capped AS (
  SELECT r.*,
         r.saving_us_20 * coalesce(s.factor, 1.0) / 1e3 AS impact_ms_at_20,
         r.saving_us_50 * coalesce(s.factor, 1.0) / 1e3 AS impact_ms_at_50,
         r.saving_us_80 * coalesce(s.factor, 1.0) / 1e3 AS impact_ms_at_80,
         r.saving_us_80 * coalesce(s.factor, 1.0) / nullif(r.total_us, 0) * 100
           AS impact_pct_e2e,
         r.time_us / nullif(r.total_us, 0) * 100 AS share_pct_e2e,
         -- Identifies the row within this one evaluation, for picking its priority.
         row_number() OVER () AS row_id
  FROM raw r
  LEFT JOIN scale s ON s.category IS NOT DISTINCT FROM r.category
),
-- Each finding with the conditions of priority_rule that hold for it; the first wins.
matched AS (
  SELECT c.*,
         coalesce(p.priority, 'low') AS priority,
         coalesce(p.priority_order, 4) AS priority_order,
         row_number() OVER (PARTITION BY c.row_id ORDER BY p.priority_order, p.clause)
           AS pick
  FROM capped c
  LEFT JOIN priority_rule p
    ON (p.min_share_pct IS NULL OR c.share_pct_e2e >= p.min_share_pct)
   AND (p.min_saving_pct IS NULL OR c.impact_pct_e2e >= p.min_saving_pct)
   AND (p.severity IS NULL OR c.severity = p.severity)
   AND (NOT p.without_saving OR c.impact_ms_at_80 IS NULL)
)
SELECT rule, rule_version, severity, category, subject, metric, value, threshold, message,
       action_a, action_b, time_us, category_share_pct, efficiency_pct, op_rank, metrics,
       evidence_uids, priority, impact_ms_at_20, impact_ms_at_50, impact_ms_at_80,
       CAST(priority_order AS BIGINT) AS priority_order, impact_pct_e2e, share_pct_e2e,
       category_time_us,
       CAST(row_number() OVER (
         ORDER BY priority_order, impact_ms_at_80 DESC NULLS LAST, rule, subject, metric,
                  value, message
       ) AS BIGINT) AS finding_rank
FROM matched
WHERE pick = 1
ORDER BY finding_rank
