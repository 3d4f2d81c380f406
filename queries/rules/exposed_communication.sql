-- name: exposed_communication
-- version: 2
-- kind: rule
-- description: Communication not overlapped by computation above 5% of the GPU span: warning.
--
-- exposed_comm_time and total_time from view gpu_time_totals (as the gpu_timeline
-- report counts them). Evidence: the communication kernels, longest first (at most 20).
-- The message names the phase with the most exposed communication: the
-- annotation (view phases; ProfilerStep#N left out, it holds everything) whose
-- kernels leave the most communication without computation beside it.
-- Columns: metric exposed_comm_pct, threshold 5; time_us the exposed time.
WITH t AS (SELECT * FROM gpu_time_totals),
comm AS (
  SELECT array_agg(uid ORDER BY dur DESC, uid) AS uids, count(*) AS kernels
  FROM linked_kernels WHERE class = 'communication'
),
phase AS (
  SELECT name, exposed_comm_time FROM phases
  WHERE NOT starts_with(name, 'ProfilerStep#') AND exposed_comm_time > 0
  ORDER BY exposed_comm_time DESC, ts, uid
  LIMIT 1
),
s AS (
  SELECT t.exposed_comm_time, t.total_comm_time, t.total_time,
         t.exposed_comm_time / t.total_time * 100 AS exposed_pct, comm.uids, comm.kernels,
         p.name AS phase, p.exposed_comm_time AS phase_exposed
  FROM t CROSS JOIN comm
  LEFT JOIN phase p ON true
  WHERE t.total_time > 0
)
SELECT
  'warning' AS severity,
  'system' AS category,
  'exposed communication' AS subject,
  'exposed_comm_pct' AS metric,
  exposed_pct AS value,
  5.0 AS threshold,
  'Communication runs with no computation beside it for '
    || CAST(round(exposed_comm_time / 1e3, 3) AS VARCHAR) || ' ms, '
    || CAST(round(exposed_pct, 2) AS VARCHAR) || '% of the trace (of '
    || CAST(round(total_comm_time / 1e3, 3) AS VARCHAR) || ' ms of communication in '
    || CAST(kernels AS VARCHAR) || ' kernels).'
    || coalesce(' Most of it in phase ' || phase || ' ('
       || CAST(round(phase_exposed / 1e3, 3) AS VARCHAR) || ' ms exposed).', '') AS message,
  'Overlap communication with computation: bucketed gradient all-reduce (DDP bucket_cap_mb), FSDP prefetch, or fewer and larger collectives; one rank''s trace cannot tell waiting for a straggler from transfer time.'
    AS action_a,
  'Check the collective sizes and types against the interconnect (evidence uids); compare with the other ranks'' traces.'
    AS action_b,
  exposed_comm_time AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('exposed_comm_us', exposed_comm_time, 'total_comm_us', total_comm_time,
              'total_us', total_time, 'phase', phase, 'phase_exposed_us', phase_exposed) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE exposed_pct > 5
