-- name: comm_overlap
-- version: 1
-- kind: rule
-- description: Share of communication time overlapped by computation below 70%, when the trace has at least 100 µs of communication: warning.
--
-- overlap_pct = (total_comm_time - exposed_comm_time) / total_comm_time * 100, from
-- view gpu_time_totals. time_us is NULL: the exposed time itself is the finding of
-- rule exposed_communication (no double counting of impact).
WITH t AS (SELECT * FROM gpu_time_totals),
comm AS (
  SELECT array_agg(uid ORDER BY dur DESC, uid) AS uids
  FROM linked_kernels WHERE class = 'communication'
),
s AS (
  SELECT t.exposed_comm_time, t.total_comm_time,
         (t.total_comm_time - t.exposed_comm_time) / t.total_comm_time * 100 AS overlap_pct,
         comm.uids
  FROM t CROSS JOIN comm
  WHERE t.total_comm_time >= 100
)
SELECT
  'warning' AS severity,
  'system' AS category,
  'compute/communication overlap' AS subject,
  'overlap_pct' AS metric,
  overlap_pct AS value,
  70.0 AS threshold,
  'Only ' || CAST(round(overlap_pct, 1) AS VARCHAR) || '% of '
    || CAST(round(total_comm_time / 1e3, 3) AS VARCHAR)
    || ' ms of communication overlaps computation.' AS message,
  'Schedule communication beside computation: DDP gradient bucketing, FSDP forward/backward prefetch, async collectives waited on later.'
    AS action_a,
  'None at kernel level; compare the collective timings with the other ranks'' traces.'
    AS action_b,
  CAST(NULL AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('exposed_comm_us', exposed_comm_time, 'total_comm_us', total_comm_time) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE overlap_pct < 70
