-- name: trace_health_warnings
-- version: 3
-- kind: rule
-- description: Validation: every trace_health check of severity warning that found something (GPU work no launch claims, kernels overlapping on a stream, shared correlation ids, launches after their op ended) is a finding, so a defective trace is flagged before its numbers are read.
--
-- One finding per check; the view trace_health explains each one and its
-- example uids. Read from trace_health_warning_checks, the warning rows alone,
-- so that an analysis does not compute the info checks. The info checks (zero durations, flows missing an end, events
-- outside the profiled window, timestamps going backwards, no
-- deviceProperties) stay in the view: they do not change what the reports count.
-- Columns: metric count (events, ops or ids the check found); threshold 0;
-- time_us the GPU time involved (NULL when the check is not about GPU work).
-- GPU work no launch claims (unlinked_gpu_work) lies outside the GPU span the
-- findings' shares are of (the timeline counts linked work only): its time
-- stays in the message and metrics as a share of all GPU time, and time_us is
-- NULL, so no share above 100% is shown (a trace whose work is mostly unlinked
-- would have its unlinked time at several times the linked span). Leaving 10%
-- or more of the GPU time out of every report makes it critical.
SELECT
  CASE WHEN check = 'unlinked_gpu_work' AND gpu_time_pct >= 10 THEN 'critical'
       ELSE 'warning' END AS severity,
  'validation' AS category,
  check AS subject,
  'count' AS metric,
  CAST(count AS DOUBLE) AS value,
  0.0 AS threshold,
  'Trace health: ' || check || ' found ' || CAST(count AS VARCHAR)
    || CASE WHEN gpu_time_pct IS NOT NULL
            THEN ' (' || CAST(round(gpu_time_pct, 2) AS VARCHAR) || '% of GPU time)'
            ELSE '' END
    || '. ' || explanation AS message,
  'Look at the example uids (SELECT * FROM events WHERE uid IN (...)) and profile again if the trace is damaged; read the affected numbers with care until then.'
    AS action_a,
  'None: this is about the trace, not the kernels.' AS action_b,
  CASE WHEN check = 'unlinked_gpu_work' THEN CAST(NULL AS DOUBLE) ELSE gpu_time_us END
    AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('count', count, 'gpu_time_us', gpu_time_us, 'gpu_time_pct', gpu_time_pct)
    AS metrics,
  example_uids AS evidence_uids
FROM trace_health_warning_checks
WHERE count > 0
ORDER BY check
