-- name: temporal_breakdown
-- version: 1
-- kind: report
-- order: 900
-- runs: on request
-- description: HTA's temporal breakdown: per rank, the span of its GPU work split into idle, computation and other GPU time, µs and % (HTA's get_temporal_breakdown).
--
-- Run with `tracesql report TRACE --only temporal_breakdown`; over the ranks of
-- a run, `tracesql query rank*.json -e "SELECT * FROM ..."` after this file's
-- SQL, or the file itself with `-f`. The span is from the first GPU work's
-- start to the last one's end (HTA's kernel time); idle is the part of it no
-- GPU work covers (all streams merged); computation is the time covered by
-- COMPUTATION work (hta_gpu_work); non-computation the rest of the busy time
-- (communication, memory, other, where no computation runs). Times are whole µs
-- as HTA reads them (hta_events); percentages are rounded as numpy rounds.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none, as HTA assumes)
--   "idle_time(us)": span not covered by any GPU work
--   "compute_time(us)": time covered by computation
--   "non_compute_time(us)": time covered by other GPU work and no computation
--   "kernel_time(us)": the span of GPU work
--   idle_time_pctg: idle time, % of the span (2 decimals)
--   compute_time_pctg: computation time, % of the span (2 decimals)
--   non_compute_time_pctg: non-computation time, % of the span (2 decimals)
WITH spans AS (
  SELECT trace, rank, max(t_end) - min(ts) AS kernel_time, busy_time(ts, t_end) AS busy
  FROM hta_gpu_work
  GROUP BY trace, rank
),
computation AS (
  SELECT trace, busy_time(ts, t_end) AS compute
  FROM hta_gpu_work
  WHERE kernel_type = 'COMPUTATION'
  GROUP BY trace
),
times AS (
  SELECT s.trace, coalesce(s.rank, 0) AS rank,
         s.kernel_time - s.busy AS idle,
         coalesce(c.compute, 0.0) AS compute,
         s.busy - coalesce(c.compute, 0.0) AS non_compute,
         s.kernel_time
  FROM spans s LEFT JOIN computation c ON c.trace = s.trace
)
SELECT rank,
       idle AS "idle_time(us)",
       compute AS "compute_time(us)",
       non_compute AS "non_compute_time(us)",
       kernel_time AS "kernel_time(us)",
       np_round(100.0 * idle / kernel_time, 2) AS idle_time_pctg,
       np_round(100.0 * compute / kernel_time, 2) AS compute_time_pctg,
       np_round(100.0 * non_compute / kernel_time, 2) AS non_compute_time_pctg
FROM times
ORDER BY rank, trace
