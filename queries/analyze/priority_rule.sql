-- name: priority_rule
-- version: 1
-- kind: view
-- description: The analyzer's priority rule as data: one row per condition that earns a priority; view findings applies it and the report's appendix prints it.
--
-- Priority follows end-to-end impact: what a finding's subject costs, and could
-- save, as a share of the trace's GPU span (view findings computes both):
--   share_pct_e2e   the subject's GPU time / GPU span · 100
--   saving_pct_e2e  the estimated saving (at 80% of peak, or the removable time),
--                   capped at the subject's time and per category at the category's
--                   time, / GPU span · 100; NULL when the finding has no estimate
-- A finding gets the first priority (critical, high, medium, low) one of whose
-- conditions holds; a condition holds when all its non-NULL parts hold. A rule's
-- own severity counts only as a tie-breaker of last resort: 'critical' lifts a
-- finding with no saving estimate (a trace-health or validation problem) to high,
-- and a 'critical' or 'warning' to at least medium. So an op at 3% of the trace is
-- at most medium, however inefficient. To tune: copy this file into a --queries DIR
-- and edit the numbers (the appendix prints what was applied).
-- Columns:
--   priority: 'critical' | 'high' | 'medium' | 'low'
--   priority_order: 1..4, critical first
--   clause: the condition's number within its priority
--   min_share_pct: share_pct_e2e must be at least this, %; NULL: no condition
--   min_saving_pct: saving_pct_e2e must be at least this, %; NULL: no condition
--   severity: the rule's severity must be this; NULL: no condition
--   without_saving: the finding must have no saving estimate
--   rule: the condition in words, built from the numbers above
WITH clauses(priority, priority_order, clause, min_share_pct, min_saving_pct, severity,
             without_saving) AS (
  VALUES
    ('critical', 1, 1, 10.0, 5.0, CAST(NULL AS VARCHAR), false),
    ('high', 2, 1, 5.0, 2.0, NULL, false),
    ('high', 2, 2, 10.0, NULL, NULL, true),
    ('high', 2, 3, NULL, NULL, 'critical', true),
    ('medium', 3, 1, NULL, 0.5, NULL, false),
    ('medium', 3, 2, 2.0, NULL, NULL, false),
    ('medium', 3, 3, NULL, NULL, 'critical', false),
    ('medium', 3, 4, NULL, NULL, 'warning', false),
    ('low', 4, 1, NULL, NULL, NULL, false)
)
SELECT priority, CAST(priority_order AS BIGINT) AS priority_order,
       CAST(clause AS BIGINT) AS clause,
       CAST(min_share_pct AS DOUBLE) AS min_share_pct,
       CAST(min_saving_pct AS DOUBLE) AS min_saving_pct,
       severity, without_saving,
       coalesce(
         nullif(concat_ws(' and ',
           'the subject takes >= ' || CAST(min_share_pct AS VARCHAR) || '% of the GPU span',
           'the estimated saving is >= ' || CAST(min_saving_pct AS VARCHAR)
             || '% of the GPU span',
           CASE WHEN without_saving THEN 'the finding has no saving estimate' END,
           'the rule''s severity is ''' || severity || ''''), ''),
         'any other finding') AS rule
FROM clauses
ORDER BY priority_order, clause
