-- name: collective_wait_share
-- version: 1
-- kind: rule
-- scope: run
-- description: Ranks spend ≥ 25% of their implicit-sync collective time waiting for other ranks to arrive (skew), not transferring: warning.
--
-- Over every rank of a run: Σ wait (last arrival − own arrival) over Σ kernel
-- time of the implicit-sync instances (allreduce, all-gather, reduce-scatter,
-- all-to-all) every rank of the group captured. Evidence: the instances with
-- the largest start skew (their first listed rank's kernels).
-- Columns: metric wait_share_pct, threshold 25; time_us the total wait.
WITH kept AS (
  SELECT i.* FROM collective_instances i
  JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
),
totals AS (
  SELECT count(DISTINCT rank) AS ranks, sum(wait_time) AS wait_us, sum(dur) AS comm_us,
         sum(CASE WHEN wait_time = 0 THEN comm_latency ELSE 0 END) AS transfer_us
  FROM kept
),
worst AS (
  SELECT array_agg(uid ORDER BY skew_start DESC, position) AS uids
  FROM kept WHERE rank_position = 1
)
SELECT
  'warning' AS severity,
  'system' AS category,
  'collective skew' AS subject,
  'wait_share_pct' AS metric,
  wait_us / comm_us * 100 AS value,
  25.0 AS threshold,
  CAST(round(wait_us / comm_us * 100, 1) AS VARCHAR) || '% of the ranks'' collective time ('
    || CAST(round(wait_us / 1e3, 3) AS VARCHAR) || ' of ' || CAST(round(comm_us / 1e3, 3) AS VARCHAR)
    || ' ms over ' || CAST(ranks AS VARCHAR) || ' ranks) is waiting for the last rank to arrive, not transfer.'
    AS message,
  'Even out the work between collectives across ranks (see straggler_ranking for who arrives last); faster links will not shorten this part.'
    AS action_a,
  'Drill into the instances with the largest start skew (evidence uids, collective_instances).' AS action_b,
  wait_us AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('wait_us', wait_us, 'comm_us', comm_us, 'ranks', ranks) AS metrics,
  array_slice(w.uids, 1, 20) AS evidence_uids
FROM totals CROSS JOIN worst w
WHERE ranks >= 2 AND comm_us > 0 AND wait_us / comm_us >= 0.25
