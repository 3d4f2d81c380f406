-- name: conv_layout_transpose
-- version: 1
-- kind: rule
-- description: Convolution layout transposes: layout-transpose kernels (batched_transpose, NCHW<->NHWC) run inside convolution ops, per convolution category, with their share of the convolutions' GPU time.
--
-- Reads ops, kernel_ancestors, linked_kernels and view analyze_ops. A kernel counts
-- for a convolution when a convolution op (name containing `convolution`, or the
-- ConvBias ops) is above it; its category is CONV_bwd when that op is a backward
-- one, else CONV_fwd. A transpose kernel's name contains `transpose`,
-- `nchwtonhwc` or `nhwctonchw`. Transposes launched by separate ops next to the
-- convolutions (e.g. aten::contiguous) are not counted.
-- Severity 'warning' at 20% of the convolutions' time or more, else 'info'.
-- Columns: the analyzer contract's 15; subject 'convolutions'; metric
-- 'transpose_pct' (transpose time / convolution kernel time, %); time_us the
-- transpose time; category_share_pct transpose time / category time;
-- metrics {transpose_us, conv_us, transpose_pct, transpose_kernels, conv_ops};
-- evidence_uids the transpose kernels' uids.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 5.0 AS min_transpose_pct,     -- flag when transposes take this share of conv time
         20.0 AS warning_transpose_pct -- 'warning' from this share, else 'info'
),
conv_ops AS (
  SELECT trace, uid, name FROM ops
  WHERE strpos(lower(name), 'convolution') > 0 OR starts_with(name, 'ConvBias')
),
conv_kernels AS (
  SELECT k.trace, k.uid, k.name, k.ts, k.t_end,
         CASE WHEN bool_or(strpos(lower(c.name), 'backward') > 0) THEN 'CONV_bwd' ELSE 'CONV_fwd' END
           AS category,
         min(c.uid) AS conv_uid
  FROM conv_ops c
  JOIN kernel_ancestors a ON a.trace = c.trace AND a.ancestor_uid = c.uid
  JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
  GROUP BY k.trace, k.uid, k.name, k.ts, k.t_end
),
classified AS (
  SELECT *, (strpos(lower(name), 'transpose') > 0 OR strpos(lower(name), 'nchwtonhwc') > 0
             OR strpos(lower(name), 'nhwctonchw') > 0) AS is_transpose
  FROM conv_kernels
),
per_category AS (
  SELECT trace, category,
         busy_time(ts, t_end) AS conv_us,
         coalesce(busy_time(ts, t_end) FILTER (WHERE is_transpose), 0.0) AS transpose_us,
         count(*) FILTER (WHERE is_transpose) AS transpose_kernels,
         count(DISTINCT conv_uid) AS conv_ops,
         array_agg(uid ORDER BY uid) FILTER (WHERE is_transpose) AS uids
  FROM classified
  GROUP BY trace, category
),
category_time AS (
  SELECT trace, category, max(category_time_us) AS category_time_us
  FROM analyze_ops GROUP BY trace, category
),
-- One row per finding.
findings AS (
SELECT
  CASE WHEN p.transpose_us / p.conv_us * 100 >= l.warning_transpose_pct THEN 'warning' ELSE 'info' END
    AS severity,
  p.category,
  'convolutions' AS subject,
  'transpose_pct' AS metric,
  CAST(p.transpose_us / p.conv_us * 100 AS DOUBLE) AS value,
  CAST(l.min_transpose_pct AS DOUBLE) AS threshold,
  'Convolutions (' || p.category || ', ' || CAST(p.conv_ops AS VARCHAR) || ' ops) spend '
    || CAST(round(p.transpose_us / p.conv_us * 100, 1) AS VARCHAR) || '% of their GPU time ('
    || CAST(round(p.transpose_us / 1000, 3) AS VARCHAR) || ' of '
    || CAST(round(p.conv_us / 1000, 3) AS VARCHAR) || ' ms, '
    || CAST(p.transpose_kernels AS VARCHAR) || ' kernels) in layout-transpose kernels' AS message,
  'Run the model and its inputs in channels_last (model.to(memory_format=torch.channels_last)) '
    || 'so the convolutions need no NCHW <-> NHWC transposes.' AS action_a,
  'Replay artifacts of the convolution shapes for the kernel team: check for kernels that '
    || 'take the NCHW layout directly.' AS action_b,
  CAST(p.transpose_us AS DOUBLE) AS time_us,
  CAST(p.transpose_us / ct.category_time_us * 100 AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('transpose_us', p.transpose_us, 'conv_us', p.conv_us,
              'transpose_pct', p.transpose_us / p.conv_us * 100,
              'transpose_kernels', p.transpose_kernels, 'conv_ops', p.conv_ops) AS metrics,
  p.uids AS evidence_uids
FROM per_category p
CROSS JOIN limits l
LEFT JOIN category_time ct ON ct.trace = p.trace AND ct.category = p.category
WHERE p.conv_us > 0 AND p.transpose_us / p.conv_us * 100 >= l.min_transpose_pct
)
SELECT * FROM findings
ORDER BY category
