-- name: rank_exposed_communication
-- version: 1
-- kind: rule
-- scope: run
-- description: A rank whose communication runs with no computation beside it for more than 5% of its GPU span: warning, one finding per rank, with how much of it is waiting for other ranks.
--
-- From rank_timeline (every rank of a run; one GPU of a multi-GPU process
-- is a rank). Unlike the single-trace exposed_communication, the wait for
-- late ranks is known: comm_wait_ms.
-- Columns: metric exposed_comm_pct, threshold 5; time_us the rank's exposed time.
WITH ranks AS (SELECT count(*) AS n FROM rank_timeline)
SELECT
  'warning' AS severity,
  'system' AS category,
  'rank ' || CAST(t.rank AS VARCHAR) || ' exposed communication' AS subject,
  'exposed_comm_pct' AS metric,
  t.exposed_comm_pct AS value,
  5.0 AS threshold,
  'Rank ' || CAST(t.rank AS VARCHAR) || ': communication runs with no computation beside it for '
    || CAST(round(t.exposed_comm_ms, 3) AS VARCHAR) || ' ms, '
    || CAST(round(t.exposed_comm_pct, 2) AS VARCHAR) || '% of its GPU span; of its '
    || CAST(round(t.total_comm_ms, 3) AS VARCHAR) || ' ms of collectives, '
    || CAST(round(t.comm_wait_ms, 3) AS VARCHAR) || ' ms wait for other ranks.' AS message,
  'Overlap communication with computation (DDP buckets, FSDP prefetch); where the wait dominates, balance the ranks first (straggler_rank).'
    AS action_a,
  'Compare with the other ranks in rank_gpu_timeline.' AS action_b,
  t.exposed_comm_ms * 1e3 AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('rank', t.rank, 'exposed_comm_ms', t.exposed_comm_ms, 'total_comm_ms', t.total_comm_ms,
              'comm_wait_ms', t.comm_wait_ms, 'total_ms', t.total_ms) AS metrics,
  CAST(NULL AS BIGINT[]) AS evidence_uids
FROM rank_timeline t CROSS JOIN ranks
WHERE ranks.n >= 2 AND t.exposed_comm_pct > 5
