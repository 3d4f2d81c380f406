-- name: gpu_idle
-- version: 1
-- kind: rule
-- description: GPU idle share of the trace's GPU span: warning above 15%, critical above 50%.
--
-- Idle time is the span (first GPU start to last GPU end) not covered by any
-- linked GPU work, all streams pooled (view gpu_time_totals, as the gpu_timeline
-- report counts it). Evidence: the kernels that end the 10 longest idle gaps.
-- Columns (contract in queries/rules/README.md): metric idle_pct; threshold
-- the level crossed (15 or 50); time_us the idle time, all of it removable.
WITH t AS (SELECT * FROM gpu_time_totals),
-- Each kernel with the latest end among the kernels that started before it.
ordered AS (
  SELECT uid, ts,
         max(t_end) OVER (ORDER BY ts, uid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
           AS prev_end
  FROM linked_kernels
),
-- The idle gaps, longest first.
gaps AS (
  SELECT uid, ts - prev_end AS gap_us FROM ordered WHERE ts > prev_end
),
evidence AS (
  SELECT array_agg(uid ORDER BY gap_us DESC, uid) AS uids, max(gap_us) AS longest_gap_us,
         count(*) AS gap_count
  FROM (SELECT * FROM gaps ORDER BY gap_us DESC, uid LIMIT 10)
),
s AS (
  SELECT t.idle_time, t.total_time, t.idle_time / t.total_time * 100 AS idle_pct,
         (SELECT count(*) FROM gaps) AS gaps, e.longest_gap_us, e.uids
  FROM t CROSS JOIN evidence e
  WHERE t.total_time > 0
)
SELECT
  CASE WHEN idle_pct > 50 THEN 'critical' ELSE 'warning' END AS severity,
  'system' AS category,
  'GPU idle time' AS subject,
  'idle_pct' AS metric,
  idle_pct AS value,
  CASE WHEN idle_pct > 50 THEN 50.0 ELSE 15.0 END AS threshold,
  'The GPU is idle for ' || CAST(round(idle_pct, 1) AS VARCHAR) || '% of the trace ('
    || CAST(round(idle_time / 1e3, 3) AS VARCHAR) || ' ms of '
    || CAST(round(total_time / 1e3, 3) AS VARCHAR) || ' ms) in ' || CAST(gaps AS VARCHAR)
    || ' gap(s) between GPU work; the longest is ' || CAST(round(longest_gap_us, 1) AS VARCHAR)
    || ' µs.' AS message,
  'The trace shows where the GPU waits, not why: look at the host events before the longest gaps (evidence uids, or the trace in Perfetto) for synchronizations, data loading or Python work; where the host launches too slowly, CUDA graphs or torch.compile shorten the gaps.'
    AS action_a,
  'None at kernel level: idle time is outside the kernels.' AS action_b,
  idle_time AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('idle_us', idle_time, 'total_us', total_time, 'gaps', gaps,
              'longest_gap_us', longest_gap_us) AS metrics,
  coalesce(uids, CAST(make_array() AS BIGINT[])) AS evidence_uids
FROM s
WHERE idle_pct > 15
