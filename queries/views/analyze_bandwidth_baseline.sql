-- name: analyze_bandwidth_baseline
-- version: 2
-- kind: view
-- description: The analyze_ops groups that move data on compute kernels, each with the trace's elementwise bandwidth baseline (the time-weighted TB/s of simple elementwise ops such as add, mul, copy_), its ratio to it, and whether the group is a normalization.
--
-- The one baseline and the one definition of a normalization that the rules
-- elementwise_baseline and normalization_baseline read (they split these rows on
-- is_normalization and flag those far below the baseline), with the text and
-- metrics their findings share.
-- Baseline: sum(tb_per_s * time_us) / sum(time_us), i.e. bytes over time, of the
-- groups named in `baseline_ops` that run compute kernels only and move at least
-- min_data_mb per call (so launch overhead does not dominate). A trace without such
-- groups has no baseline and no rows here.
-- Normalization: the op category is one the registry gives normalizations
-- (NORM_fwd, NORM_bwd, RMSNorm), or the name says batch/layer/group/RMS norm (ops
-- outside the registry, e.g. aten::rms_norm or a Triton fused norm, get the category
-- of their first kernel).
-- Columns:
--   analyze_ops.*: every column of view analyze_ops, documented there
--   baseline_tb_s: the trace's baseline, TB/s
--   baseline_groups: analyze_ops groups the baseline is taken over
--   ratio: tb_per_s / baseline_tb_s
--   is_normalization: the group is a normalization (see above)
--   gap_message: the finding's message both rules give: the group's TB/s against
--     the baseline, its data per call and its time
--   gap_replay_action: the finding's Path B (a replay artifact of the shape)
--   gap_metrics: JSON object of the values the message uses
WITH
-- Thresholds of the baseline: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 16.0 AS min_data_mb  -- MiB per call of a baseline group
),
baseline_ops AS (
  SELECT name FROM (VALUES ('aten::add'), ('aten::add_'), ('aten::mul'), ('aten::mul_'),
                           ('aten::sub'), ('aten::sub_'), ('aten::copy_')) AS v(name)
),
-- Per trace: the TB/s simple elementwise ops reach.
baseline AS (
  SELECT a.trace,
         sum(a.tb_per_s * a.time_us) / sum(a.time_us) AS baseline_tb_s,
         count(*) AS baseline_groups
  FROM analyze_ops a
  CROSS JOIN limits l
  WHERE a.name IN (SELECT name FROM baseline_ops)
    AND a.compute_only AND a.tb_per_s IS NOT NULL AND a.data_mb >= l.min_data_mb
  GROUP BY a.trace
)
SELECT t.*, b.baseline_tb_s, b.baseline_groups,
       t.tb_per_s / b.baseline_tb_s AS ratio,
       (t.category IN ('NORM_fwd', 'NORM_bwd', 'RMSNorm')
        OR lower(t.name) LIKE '%batch_norm%' OR lower(t.name) LIKE '%layer_norm%'
        OR lower(t.name) LIKE '%group_norm%' OR lower(t.name) LIKE '%rms_norm%'
        OR lower(t.name) LIKE '%rmsnorm%') AS is_normalization,
       t.name || ' moves ' || CAST(round(t.data_mb, 1) AS VARCHAR) || ' MB per call at '
         || CAST(round(t.tb_per_s, 3) AS VARCHAR) || ' TB/s, while simple elementwise ops in this trace reach '
         || CAST(round(b.baseline_tb_s, 3) AS VARCHAR) || ' TB/s ('
         || CAST(round(t.tb_per_s / b.baseline_tb_s * 100, 1) AS VARCHAR) || '%): the same memory moves data faster, so the gap is in this kernel ('
         || CAST(round(t.time_us / 1000, 3) AS VARCHAR) || ' ms, '
         || CAST(round(t.share_pct, 1) AS VARCHAR) || '% of the trace)' AS gap_message,
       'Replay artifact of ' || t.name || ' at this shape for the kernel team: it reaches '
         || CAST(round(t.tb_per_s / b.baseline_tb_s * 100, 1) AS VARCHAR) || '% of the elementwise bandwidth of this trace.'
         AS gap_replay_action,
       json_object('tb_per_s', t.tb_per_s, 'baseline_tb_s', b.baseline_tb_s,
                   'ratio', t.tb_per_s / b.baseline_tb_s,
                   'baseline_groups', b.baseline_groups, 'data_mb', t.data_mb,
                   'time_us', t.time_us, 'share_pct', t.share_pct,
                   'efficiency_pct', t.efficiency_pct) AS gap_metrics
FROM analyze_ops t
JOIN baseline b ON b.trace = t.trace
WHERE t.tb_per_s IS NOT NULL AND t.compute_only
