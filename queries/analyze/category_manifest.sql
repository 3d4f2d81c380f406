-- name: category_manifest
-- version: 1
-- kind: view
-- description: Op categories with GPU time, share, op group and instance counts, and their top ops: the analysis report's category table and category_manifest.json.
--
-- From view analyze_ops.
-- Columns:
--   category: op category
--   time_ms: GPU time of the category's ops, ms
--   share_pct: % of the trace's GPU span (gpu_time_totals.total_time)
--   op_groups: op groups (name, shape) in it
--   instances: op instances
--   top_ops: up to 3 op names with the most time, largest first
--   findings: findings about the category (0 outside `tracesql analyze`)
WITH cats AS (
  SELECT category, sum(time_us) AS time_us, max(total_time_us) AS total_us,
         count(*) AS op_groups, sum(instances) AS instances
  FROM analyze_ops GROUP BY category
),
names AS (
  SELECT category, name, sum(time_us) AS time_us FROM analyze_ops GROUP BY category, name
),
ranked AS (
  SELECT category, name,
         row_number() OVER (PARTITION BY category ORDER BY time_us DESC, name) AS r
  FROM names
),
tops AS (
  SELECT category, array_agg(name ORDER BY r) AS top_ops FROM ranked WHERE r <= 3 GROUP BY category
),
counts AS (SELECT category, count(*) AS findings FROM findings_raw GROUP BY category)
SELECT c.category, round(c.time_us / 1e3, 3) AS time_ms,
       round(c.time_us / c.total_us * 100, 2) AS share_pct,
       c.op_groups, c.instances, t.top_ops, coalesce(n.findings, 0) AS findings
FROM cats c
JOIN tops t ON t.category = c.category
LEFT JOIN counts n ON n.category = c.category
ORDER BY c.time_us DESC, c.category
