-- name: time_sanity
-- version: 2
-- kind: rule
-- description: Validation: the op categories' GPU time (view analyze_ops) adds up to the busy time of the GPU timeline's non-communication work within 5%; warning otherwise.
--
-- analyze_ops counts every linked GPU event except collectives, once, under one
-- owner; so its category times should sum to the busy time (union of intervals) of
-- those same events. A shortfall means GPU work left out of the op groups; an
-- excess means op groups overlap in time (kernels of different ops running side by
-- side on several streams count once on the timeline, once per op here).
-- A trace with no launch record (a rocprofv3 kernel trace) has no op groups at
-- all: nothing to check there.
-- Columns: metric category_sum_pct (sum of category times as % of that busy
-- time); threshold 95 when below, 105 when above; time_us NULL.
WITH c AS (
  SELECT coalesce(sum(category_time_us), 0.0) AS category_sum
  FROM (SELECT DISTINCT category, category_time_us FROM analyze_ops)
),
b AS (
  SELECT busy_time(ts, t_end) AS busy FROM linked_kernels WHERE class <> 'communication'
),
s AS (
  SELECT c.category_sum, b.busy, c.category_sum / b.busy * 100 AS sum_pct
  FROM c CROSS JOIN b
  WHERE b.busy > 0
    AND EXISTS (SELECT 1 FROM linked_kernels WHERE launch_uid IS NOT NULL)
)
SELECT
  'warning' AS severity,
  'validation' AS category,
  'category times' AS subject,
  'category_sum_pct' AS metric,
  sum_pct AS value,
  CASE WHEN sum_pct < 95 THEN 95.0 ELSE 105.0 END AS threshold,
  'The op categories add up to ' || CAST(round(category_sum / 1e3, 3) AS VARCHAR) || ' ms, '
    || CAST(round(sum_pct, 1) AS VARCHAR) || '% of the '
    || CAST(round(busy / 1e3, 3) AS VARCHAR)
    || ' ms the GPU is busy with non-communication work'
    || CASE WHEN sum_pct < 95 THEN ': some GPU work belongs to no op group.'
            ELSE ': op groups overlap in time (work on several streams at once).' END AS message,
  'None: read the per-category shares in this report as shares of the categories'' sum, not of the timeline.'
    AS action_a,
  'None.' AS action_b,
  CAST(NULL AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('category_sum_us', category_sum, 'busy_us', busy) AS metrics,
  CAST(make_array() AS BIGINT[]) AS evidence_uids
FROM s
WHERE sum_pct < 95 OR sum_pct > 105
