-- name: replay_coverage
-- version: 1
-- kind: view
-- description: How much of the GPU time can be replayed, per op category: the kernel time of ops whose calls got a replay IR, and the reasons that block the rest, largest first.
--
-- The kernel time is that of the launching ops (replay_ir.traced_kernel_us_total);
-- the category is op_category_by_name's, 'other' where it has none. A row with
-- category 'all' sums the trace.
-- Columns:
--   trace: trace name
--   category: op category (GEMM, SDPA_fwd, ...), or 'all'
--   signatures: distinct op signatures
--   signatures_ok: of which replayable
--   kernel_us: their GPU time, µs
--   replayable_us: GPU time of the replayable ones, µs
--   replayable_pct: replayable_us / kernel_us, %
--   top_reasons: the refusal reasons by GPU time they block, 'reason (µs)', largest first
WITH rows AS (
  SELECT r.trace, coalesce(c.category, 'other') AS category, r.status, r.reason,
         r.traced_kernel_us_total AS us
  FROM replay_ir r
  LEFT JOIN op_category_by_name c ON c.name = r.name
),
both_levels AS (
  SELECT trace, category, status, reason, us FROM rows
  UNION ALL
  SELECT trace, 'all' AS category, status, reason, us FROM rows
),
reasons AS (
  SELECT trace, category, reason, sum(us) AS us
  FROM both_levels WHERE status <> 'ok'
  GROUP BY trace, category, reason
),
reason_text AS (
  SELECT trace, category,
         string_agg(reason || ' (' || CAST(round(us, 1) AS VARCHAR) || ')', ', '
                    ORDER BY us DESC, reason) AS top_reasons
  FROM reasons GROUP BY trace, category
)
SELECT b.trace, b.category,
       count(*) AS signatures,
       sum(CASE WHEN b.status = 'ok' THEN 1 ELSE 0 END) AS signatures_ok,
       sum(b.us) AS kernel_us,
       sum(CASE WHEN b.status = 'ok' THEN b.us ELSE 0 END) AS replayable_us,
       100.0 * sum(CASE WHEN b.status = 'ok' THEN b.us ELSE 0 END) / nullif(sum(b.us), 0)
         AS replayable_pct,
       max(t.top_reasons) AS top_reasons
FROM both_levels b
LEFT JOIN reason_text t ON t.trace = b.trace AND t.category = b.category
GROUP BY b.trace, b.category
ORDER BY b.trace, CASE WHEN b.category = 'all' THEN 0 ELSE 1 END, kernel_us DESC
