-- name: short_sequence_attention
-- version: 1
-- kind: rule
-- description: Short-sequence attention: fused attention ops (SDPA categories) whose query and key sequences are both shorter than 1024, where fused attention kernels reach a small share of peak.
--
-- Reads view analyze_ops and the SDPA model's params (N_Q, N_KV). Op groups below
-- 0.5% of the trace are left out. Severity 'warning' below 40% roofline
-- efficiency, else 'info'.
-- Columns: the analyzer contract's 15; metric 'seq_len' (the longer of N_Q and
-- N_KV), threshold max_seq_len; metrics {N_Q, N_KV, time_us, share_pct, efficiency_pct}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 1024 AS max_seq_len,          -- flag attention with N_Q and N_KV below this
         40.0 AS warning_below_eff_pct, -- 'warning' below this efficiency, else 'info'
         0.5 AS min_trace_share_pct     -- ignore op groups below this share of the trace
),
attention AS (
  SELECT a.*,
         try_cast(perf_param(a.params, 'N_Q') AS BIGINT) AS n_q,
         try_cast(perf_param(a.params, 'N_KV') AS BIGINT) AS n_kv
  FROM analyze_ops a
  WHERE a.category IN ('SDPA_fwd', 'SDPA_bwd') AND a.params IS NOT NULL
),
-- One row per finding.
findings AS (
SELECT
  CASE WHEN t.efficiency_pct < l.warning_below_eff_pct THEN 'warning' ELSE 'info' END AS severity,
  t.category,
  t.name || coalesce(' ' || t.shape, '') AS subject,
  'seq_len' AS metric,
  CAST(greatest(t.n_q, t.n_kv) AS DOUBLE) AS value,
  CAST(l.max_seq_len AS DOUBLE) AS threshold,
  t.name || ' runs at sequence length N_Q=' || CAST(t.n_q AS VARCHAR) || ', N_KV='
    || CAST(t.n_kv AS VARCHAR) || ' (' || CAST(t.instances AS VARCHAR) || ' calls, '
    || CAST(round(t.time_us / 1000, 3) AS VARCHAR) || ' ms, '
    || CAST(round(t.share_pct, 1) AS VARCHAR) || '% of the trace'
    || coalesce(', ' || CAST(round(t.efficiency_pct, 1) AS VARCHAR) || '% of the roofline', '')
    || '): fused attention reaches a small share of peak below N=1024' AS message,
  'Where the model allows, give each call more work: pack sequences (varlen attention) '
    || 'or batch more sequences per call.' AS action_a,
  'Replay artifact of this attention shape for the kernel team; compare with the same '
    || 'kernel at N >= 1024.' AS action_b,
  CAST(t.time_us AS DOUBLE) AS time_us,
  CAST(t.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(t.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(t.op_rank AS BIGINT) AS op_rank,
  json_object('N_Q', t.n_q, 'N_KV', t.n_kv, 'time_us', t.time_us, 'share_pct', t.share_pct,
              'efficiency_pct', t.efficiency_pct) AS metrics,
  t.uids AS evidence_uids
FROM attention t
CROSS JOIN limits l
WHERE t.n_q < l.max_seq_len AND t.n_kv < l.max_seq_len
  AND t.share_pct >= l.min_trace_share_pct
)
SELECT * FROM findings
ORDER BY op_rank, subject
