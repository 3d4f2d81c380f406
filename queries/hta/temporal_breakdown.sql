-- name: temporal_breakdown
-- version: 2
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
WITH times AS (
  SELECT trace, coalesce(rank, 0) AS rank,
         max(t_end) - min(ts) AS kernel_time,
         busy_time(ts, t_end) AS busy,
         coalesce(busy_time(ts, t_end) FILTER (WHERE kernel_type = 'COMPUTATION'), 0.0) AS compute
  FROM hta_gpu_work
  GROUP BY trace, rank
)
SELECT rank,
       kernel_time - busy AS "idle_time(us)",
       compute AS "compute_time(us)",
       busy - compute AS "non_compute_time(us)",
       kernel_time AS "kernel_time(us)",
       np_round(100.0 * (kernel_time - busy) / kernel_time, 2) AS idle_time_pctg,
       np_round(100.0 * compute / kernel_time, 2) AS compute_time_pctg,
       np_round(100.0 * (busy - compute) / kernel_time, 2) AS non_compute_time_pctg
FROM times
ORDER BY rank, trace
