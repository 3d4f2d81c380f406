-- name: summary_metrics
-- version: 1
-- kind: view
-- description: The analysis report's executive summary: one row per metric (GPU span, computation / idle / exposed communication / exposed memcpy shares, top category, flash attention), in display order.
--
-- From views gpu_time_totals (the gpu_timeline report's numbers) and analyze_ops.
-- Flash attention counts as used when an op or kernel name says so (flash,
-- fmha, cudnn attention); the answer names the first such name.
-- Columns:
--   row_order: display order
--   key: machine-readable name (category_manifest.json's gpu_utilization keys)
--   metric: the label shown
--   value: the value as shown (text)
--   number: the value as a number where it is one (ms or %), else NULL
WITH t AS (SELECT * FROM gpu_time_totals),
cats AS (
  SELECT category, max(category_time_us) AS time_us
  FROM analyze_ops GROUP BY category
),
top_cat AS (
  SELECT category, time_us, time_us / (SELECT sum(time_us) FROM cats) * 100 AS pct
  FROM cats ORDER BY time_us DESC, category LIMIT 1
),
flash AS (
  SELECT min(name) AS name FROM (
    SELECT name FROM ops
    WHERE lower(name) LIKE '%flash%' OR lower(name) LIKE '%cudnn_attention%'
    UNION ALL
    SELECT name FROM classified_kernels
    WHERE class = 'compute' AND (lower(name) LIKE '%flash%' OR lower(name) LIKE '%fmha%')
  )
),
pct(row_order, key, metric, us) AS (
            SELECT 3, 'computation_pct', 'Computation', computation_time FROM t
  UNION ALL SELECT 4, 'idle_pct', 'GPU idle', idle_time FROM t
  UNION ALL SELECT 5, 'exposed_comm_pct', 'Exposed communication', exposed_comm_time FROM t
  UNION ALL SELECT 6, 'exposed_memcpy_pct', 'Exposed memcpy', exposed_memcpy_time FROM t
)
SELECT * FROM (
  SELECT 1 AS row_order, 'platform' AS key, 'Platform' AS metric,
         (SELECT coalesce(platform || ' (' || reason || ')',
                          'none (no efficiency figures: ' || reason || ')') FROM session_platform) AS value,
         CAST(NULL AS DOUBLE) AS number
  UNION ALL
  SELECT 2, 'total_time_ms', 'Total time (GPU span)',
         CAST(round(total_time / 1e3, 3) AS VARCHAR) || ' ms', total_time / 1e3
  FROM t
  UNION ALL
  SELECT p.row_order, p.key, p.metric,
         CAST(round(p.us / t.total_time * 100, 2) AS VARCHAR) || '% (' ||
           CAST(round(p.us / 1e3, 3) AS VARCHAR) || ' ms)',
         p.us / t.total_time * 100
  FROM pct p CROSS JOIN t
  WHERE t.total_time > 0
  UNION ALL
  SELECT 7, 'top_category', 'Top category by GPU time',
         category || ' (' || CAST(round(pct, 1) AS VARCHAR) || '% of op GPU time)', pct
  FROM top_cat
  UNION ALL
  SELECT 8, 'flash_attention', 'Flash attention used',
         CASE WHEN name IS NULL THEN 'no (no flash attention op or kernel in the trace)'
              ELSE 'yes (' || name || ')' END,
         CAST(NULL AS DOUBLE)
  FROM flash
)
ORDER BY row_order
