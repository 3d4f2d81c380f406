-- name: memcpy_direction
-- version: 1
-- kind: rule
-- description: Host-device copies per direction (H2D, D2H): warning when a direction takes more than 5% of the GPU span or has more than 10 transfers.
--
-- Direction from the copy's name (Kineto writes `Memcpy HtoD (...)`, `Memcpy DtoH (...)`);
-- copies in other directions or without one in the name are not counted. Time is the
-- busy time (union) of the direction's copies, as % of total_time of gpu_time_totals.
-- Columns: metric memcpy_pct (threshold 5) when the time share is crossed, else
-- transfers (threshold 10); time_us the copies' time, removable when the copies are.
-- Evidence: the direction's copies, longest first (at most 20).
WITH t AS (SELECT total_time FROM gpu_time_totals),
copies AS (
  SELECT uid, ts, t_end, dur, bytes,
         CASE WHEN strpos(name, 'HtoD') > 0 THEN 'H2D'
              WHEN strpos(name, 'DtoH') > 0 THEN 'D2H' END AS direction
  FROM linked_kernels
  WHERE class = 'memcpy'
),
per_direction AS (
  SELECT direction, count(*) AS transfers, busy_time(ts, t_end) AS time_us,
         sum(coalesce(bytes, 0)) AS bytes,
         array_agg(uid ORDER BY dur DESC, uid) AS uids
  FROM copies
  WHERE direction IS NOT NULL
  GROUP BY direction
),
s AS (
  SELECT d.*, d.time_us / t.total_time * 100 AS memcpy_pct, t.total_time
  FROM per_direction d CROSS JOIN t
  WHERE t.total_time > 0
)
SELECT
  'warning' AS severity,
  'system' AS category,
  direction AS subject,
  CASE WHEN memcpy_pct > 5 THEN 'memcpy_pct' ELSE 'transfers' END AS metric,
  CASE WHEN memcpy_pct > 5 THEN memcpy_pct ELSE CAST(transfers AS DOUBLE) END AS value,
  CASE WHEN memcpy_pct > 5 THEN 5.0 ELSE 10.0 END AS threshold,
  CAST(transfers AS VARCHAR) || ' ' || direction || ' copies take '
    || CAST(round(time_us / 1e3, 3) AS VARCHAR) || ' ms, '
    || CAST(round(memcpy_pct, 2) AS VARCHAR) || '% of the trace ('
    || CAST(round(bytes / 1e6, 3) AS VARCHAR) || ' MB).' AS message,
  CASE direction
    WHEN 'H2D' THEN 'Find the host code issuing these copies (evidence uids): keep tensors on the device across steps, batch small copies, and use pinned memory with non_blocking=True so copies can overlap compute.'
    ELSE 'Find the host code issuing these copies (evidence uids): .item(), .cpu(), printing or logging tensors copy to the host; keep values on the device or fetch them less often.'
  END AS action_a,
  'None at kernel level: the copies are data movement requested by the host.' AS action_b,
  time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('transfers', transfers, 'time_us', time_us, 'total_us', total_time,
              'bytes', bytes) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE memcpy_pct > 5 OR transfers > 10
