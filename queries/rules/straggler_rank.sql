-- name: straggler_rank
-- version: 1
-- kind: rule
-- scope: run
-- description: One rank arrives last at the collectives and makes the others wait (≥ 50% of all waiting): warning when that wait is ≥ 10% of the run's collective time, else info.
--
-- From straggler_ranking (aligned clocks, ties shared, partial instances left
-- out). Runs over every rank of a run (`tracesql collectives --analyze`).
-- Evidence: the straggler's kernels of the instances it arrived last at.
-- Columns: metric imposed_wait_share_pct, threshold 50; time_us the wait it imposed.
WITH top AS (
  SELECT * FROM straggler_ranking ORDER BY imposed_wait_us DESC, rank LIMIT 1
),
run AS (
  SELECT count(DISTINCT rank) AS ranks, sum(dur) AS comm_us,
         count(DISTINCT collective_id) AS instances
  FROM collective_instances
),
evidence AS (
  SELECT i.rank, array_agg(i.uid ORDER BY i.position) AS uids
  FROM collective_instances i JOIN top t ON t.rank = i.rank
  WHERE i.wait_time = 0 AND i.skew_start > 0 AND i.implicit_sync AND NOT i.partial
  GROUP BY i.rank
)
SELECT
  CASE WHEN t.imposed_wait_us >= 0.1 * r.comm_us THEN 'warning' ELSE 'info' END AS severity,
  'system' AS category,
  'rank ' || CAST(t.rank AS VARCHAR) || ' (straggler)' AS subject,
  'imposed_wait_share_pct' AS metric,
  t.share_of_imposed_wait * 100 AS value,
  50.0 AS threshold,
  'Rank ' || CAST(t.rank AS VARCHAR) || ' arrived last at ' || CAST(round(t.times_late, 1) AS VARCHAR)
    || ' of ' || CAST(t.instances AS VARCHAR) || ' collectives and made the other '
    || CAST(r.ranks - 1 AS VARCHAR) || ' ranks wait ' || CAST(round(t.imposed_wait_us / 1e3, 3) AS VARCHAR)
    || ' ms in total (' || CAST(round(t.share_of_imposed_wait * 100, 1) AS VARCHAR)
    || '% of all waiting; median lateness ' || CAST(round(t.median_lateness_us, 1) AS VARCHAR) || ' µs).'
    AS message,
  'Find what rank ' || CAST(t.rank AS VARCHAR) || ' does longer before those collectives: uneven sharding or sequence lengths, data loading, host work, or a slower GPU; balance the work between ranks.'
    AS action_a,
  'Compare its kernels between collectives with a fast rank''s (tracesql compare on the two rank traces); check the GPU''s clocks and health.'
    AS action_b,
  t.imposed_wait_us AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('rank', t.rank, 'imposed_wait_us', t.imposed_wait_us, 'times_late', t.times_late,
              'instances', t.instances, 'median_lateness_us', t.median_lateness_us,
              'run_comm_us', r.comm_us, 'ranks', r.ranks) AS metrics,
  array_slice(e.uids, 1, 20) AS evidence_uids
FROM top t CROSS JOIN run r LEFT JOIN evidence e ON e.rank = t.rank
WHERE r.ranks >= 2 AND t.imposed_wait_us > 0 AND t.share_of_imposed_wait >= 0.5
