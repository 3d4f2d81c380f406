-- name: recommendations
-- version: 1
-- kind: view
-- description: The analyzer's recommendations: the findings merged per subject (category + subject), each with all its reasons, the highest priority among them and its saving counted once, in report order.
--
-- From views findings (one row per rule and subject) and analyze_ops (the op group
-- a subject names, for its perf-model shape and an example instance). Two rules
-- about one op (bottleneck_ops and efficiency_tiers, say) make one recommendation
-- with two reasons. Its time and saving are those of its reason with the largest
-- saving at 80% of peak (the reasons measure the same subject: summing them would
-- count its time twice); view findings already caps every saving at the subject's
-- time and, per category, at the category's time.
-- Columns:
--   recommendation_rank: 1.. in report order: priority, saving at 80% (largest
--     first), time (largest first), category, subject
--   priority: the highest priority among the reasons
--   priority_order: 1..4, critical first
--   category: op category, 'system' or 'validation'
--   subject: what the recommendation is about (the findings' subject)
--   op_name: the op group's name when the subject is an op group (analyze_ops), else
--     NULL
--   model_shape: the op group's shape as the perf model's parameters
--     (analyze_ops.model_shape: M=.., N=.., K=.. for a GEMM), NULL without one
--   shape: the op group's input dims, Python text; NULL when not an op group
--   ex_uid: events.uid of an example instance: the op group's first, else the first
--     evidence uid of the top reason
--   time_us: GPU time of the subject, µs (of the top reason)
--   share_pct_e2e: time_us as % of the trace's GPU span
--   efficiency_pct: the subject's roofline efficiency, % (of the top reason)
--   impact_ms_at_20: ms saved at 20% of peak (of the top reason), NULL without estimate
--   impact_ms_at_50: ms saved at 50% of peak
--   impact_ms_at_80: ms saved at 80% of peak
--   impact_pct_e2e: impact_ms_at_80 as % of the trace's GPU span
--   category_time_us: the GPU time the category's savings are capped at, µs
--   rules: the reasons' rules, in finding_rank order
--   reasons: the findings merged here, in finding_rank order: LIST<STRUCT<rule,
--     rule_version, severity, priority, finding_rank, metric, value, threshold, message,
--     action_a, action_b, metrics, evidence_uids>>
WITH ops AS (
  SELECT category, name || coalesce(' ' || shape, '') AS subject, name, shape, model_shape,
         uids[1] AS ex_uid,
         row_number() OVER (PARTITION BY category, name, shape
                            ORDER BY time_us DESC, trace) AS pick
  FROM analyze_ops
),
merged AS (
  SELECT category, subject,
         min(priority_order) AS priority_order,
         first_value(priority ORDER BY priority_order, finding_rank) AS priority,
         first_value(time_us ORDER BY impact_ms_at_80 DESC NULLS LAST, finding_rank)
           AS time_us,
         first_value(share_pct_e2e ORDER BY impact_ms_at_80 DESC NULLS LAST, finding_rank)
           AS share_pct_e2e,
         first_value(efficiency_pct ORDER BY impact_ms_at_80 DESC NULLS LAST, finding_rank)
           AS efficiency_pct,
         max(impact_ms_at_20) AS impact_ms_at_20,
         max(impact_ms_at_50) AS impact_ms_at_50,
         max(impact_ms_at_80) AS impact_ms_at_80,
         max(impact_pct_e2e) AS impact_pct_e2e,
         max(category_time_us) AS category_time_us,
         first_value(evidence_uids[1] ORDER BY finding_rank) AS first_evidence_uid,
         array_agg(rule ORDER BY finding_rank) AS rules,
         array_agg(named_struct(
           'rule', rule, 'rule_version', rule_version, 'severity', severity,
           'priority', priority, 'finding_rank', finding_rank, 'metric', metric,
           'value', value, 'threshold', threshold, 'message', message,
           'action_a', action_a, 'action_b', action_b, 'metrics', metrics,
           'evidence_uids', evidence_uids) ORDER BY finding_rank) AS reasons
  FROM findings
  GROUP BY category, subject
)
SELECT CAST(row_number() OVER (
         ORDER BY m.priority_order, m.impact_ms_at_80 DESC NULLS LAST,
                  m.time_us DESC NULLS LAST, m.category, m.subject
       ) AS BIGINT) AS recommendation_rank,
       m.priority, CAST(m.priority_order AS BIGINT) AS priority_order,
       m.category, m.subject,
       o.name AS op_name, o.model_shape, o.shape,
       coalesce(o.ex_uid, m.first_evidence_uid) AS ex_uid,
       m.time_us, m.share_pct_e2e, m.efficiency_pct,
       m.impact_ms_at_20, m.impact_ms_at_50, m.impact_ms_at_80, m.impact_pct_e2e,
       m.category_time_us, m.rules, m.reasons
FROM merged m
LEFT JOIN ops o ON o.category = m.category AND o.subject = m.subject AND o.pick = 1
ORDER BY recommendation_rank
