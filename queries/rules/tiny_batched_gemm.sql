-- name: tiny_batched_gemm
-- version: 1
-- kind: rule
-- description: Tiny batched GEMMs: batched GEMM ops (bmm, baddbmm, ...) with a huge batch of tiny matrices (batch >= 1024, M, N and K all <= 128).
--
-- Reads view analyze_ops and the GEMM model's params (B, M, N, K). Op groups below
-- 0.5% of the trace are left out. Severity 'warning'.
-- Columns: the analyzer contract's 15; metric 'batch', value B, threshold
-- min_batch; metrics {B, M, N, K, time_us, share_pct, efficiency_pct, tflops_per_s}.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 1024 AS min_batch,          -- a batch at least this large ...
         128 AS max_dim,             -- ... of matrices with M, N and K all at most this
         0.5 AS min_trace_share_pct  -- ignore op groups below this share of the trace
),
gemms AS (
  SELECT a.*,
         try_cast(perf_param(a.params, 'B') AS BIGINT) AS b,
         try_cast(perf_param(a.params, 'M') AS BIGINT) AS m,
         try_cast(perf_param(a.params, 'N') AS BIGINT) AS n,
         try_cast(perf_param(a.params, 'K') AS BIGINT) AS k
  FROM analyze_ops a
  WHERE a.category = 'GEMM' AND a.params IS NOT NULL
),
-- One row per finding.
findings AS (
SELECT
  'warning' AS severity,
  g.category,
  g.name || coalesce(' ' || g.shape, '') AS subject,
  'batch' AS metric,
  CAST(g.b AS DOUBLE) AS value,
  CAST(l.min_batch AS DOUBLE) AS threshold,
  g.name || ' runs a batch of ' || CAST(g.b AS VARCHAR) || ' GEMMs of M=' || CAST(g.m AS VARCHAR)
    || ', N=' || CAST(g.n AS VARCHAR) || ', K=' || CAST(g.k AS VARCHAR) || ' per call ('
    || CAST(g.instances AS VARCHAR) || ' calls, ' || CAST(round(g.time_us / 1000, 3) AS VARCHAR)
    || ' ms, ' || CAST(round(g.share_pct, 1) AS VARCHAR) || '% of the trace'
    || coalesce(', ' || CAST(round(g.efficiency_pct, 1) AS VARCHAR) || '% of the roofline', '')
    || ')' AS message,
  'Fold the batch into one larger GEMM (reshape so the batch joins M or N) or fuse the '
    || 'surrounding computation (e.g. attention into a fused attention kernel).' AS action_a,
  'Replay artifact of this batched shape for the kernel team: a huge batch of tiny '
    || 'matrices needs a kernel built for it.' AS action_b,
  CAST(g.time_us AS DOUBLE) AS time_us,
  CAST(g.category_share_pct AS DOUBLE) AS category_share_pct,
  CAST(g.efficiency_pct AS DOUBLE) AS efficiency_pct,
  CAST(g.op_rank AS BIGINT) AS op_rank,
  json_object('B', g.b, 'M', g.m, 'N', g.n, 'K', g.k, 'time_us', g.time_us,
              'share_pct', g.share_pct, 'efficiency_pct', g.efficiency_pct,
              'tflops_per_s', g.tflops_per_s) AS metrics,
  g.uids AS evidence_uids
FROM gemms g
CROSS JOIN limits l
WHERE g.b >= l.min_batch
  AND g.m <= l.max_dim AND g.n <= l.max_dim AND g.k <= l.max_dim
  AND g.share_pct >= l.min_trace_share_pct
)
SELECT * FROM findings
ORDER BY op_rank, subject
