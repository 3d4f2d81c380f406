-- name: hidden_communication
-- version: 1
-- kind: rule
-- description: Communication that ran hidden under computation, when the trace has at least 100 µs of communication and most of it is hidden: info, reported as what is working.
--
-- hidden = total_comm_time - exposed_comm_time from view gpu_time_totals: the
-- time communication kernels ran with computation beside them, which costs the
-- step nothing. On expert-parallel traces most all-to-all time is of this kind;
-- saying so keeps the report from pointing at communication that is already
-- overlapped. Exposed communication is rule exposed_communication's finding.
-- Columns: metric hidden_pct (of the communication time), threshold 50; time_us
-- NULL (no impact: nothing to gain).
WITH t AS (SELECT * FROM gpu_time_totals),
comm AS (
  SELECT array_agg(uid ORDER BY dur DESC, uid) AS uids, count(*) AS kernels
  FROM linked_kernels WHERE class = 'communication'
),
s AS (
  SELECT t.total_comm_time - t.exposed_comm_time AS hidden_time, t.total_comm_time,
         (t.total_comm_time - t.exposed_comm_time) / t.total_comm_time * 100 AS hidden_pct,
         comm.uids, comm.kernels
  FROM t CROSS JOIN comm
  WHERE t.total_comm_time >= 100
)
SELECT
  'info' AS severity,
  'system' AS category,
  'hidden communication' AS subject,
  'hidden_pct' AS metric,
  hidden_pct AS value,
  50.0 AS threshold,
  CAST(round(hidden_time / 1e3, 3) AS VARCHAR) || ' ms of '
    || CAST(round(total_comm_time / 1e3, 3) AS VARCHAR) || ' ms of communication ('
    || CAST(round(hidden_pct, 1) AS VARCHAR) || '%, ' || CAST(kernels AS VARCHAR)
    || ' kernels) ran hidden under computation: it costs the step nothing.' AS message,
  'Nothing to change: keep this overlap when the model or the parallelism changes.'
    AS action_a,
  'None at kernel level.' AS action_b,
  CAST(NULL AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('hidden_comm_us', hidden_time, 'total_comm_us', total_comm_time) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE hidden_pct >= 50
