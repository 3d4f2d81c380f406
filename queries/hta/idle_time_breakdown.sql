-- name: idle_time_breakdown
-- version: 1
-- kind: report
-- order: 901
-- runs: on request
-- description: HTA's idle time breakdown: per rank and stream, the gaps between consecutive GPU kernels, copies and sets, as host wait, kernel wait or other, µs and share (HTA's get_idle_time_breakdown, every rank).
--
-- On each stream, work in start order (hta_events: whole µs, the profiled
-- iterations). The gap before a kernel is its start minus the previous one's
-- end (none before the first). It is host wait when the kernel's launch call
-- began after the previous kernel ended (the CPU had not enqueued it yet), else
-- kernel wait when shorter than `hta.consecutive_kernel_delay` µs (default 30,
-- HTA's default: the gap of launching back-to-back kernels), else other.
-- A category appears when a kernel of the stream falls in it (the first
-- kernel, which has no gap, is in other with 0 µs). Set the threshold with
-- `--param hta.consecutive_kernel_delay=N`.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   stream: the stream
--   idle_category: host_wait, kernel_wait or other
--   idle_time: the category's gaps summed, µs (2 decimals, as HTA rounds)
--   idle_time_ratio: that, as a share of the stream's idle time, 2 decimals (empty when the stream has none)
WITH work AS (
  SELECT trace, coalesce(rank, 0) AS rank, uid, stream, correlation, ts, t_end
  FROM hta_events
  WHERE on_gpu
    AND cat IN ('kernel', 'Kernel', 'gpu_memset', 'Memset', 'gpu_memcpy', 'Memcpy', 'mtia_ccp_events')
),
launches AS (
  -- The CPU event that carries the kernel's correlation id: its launch call.
  SELECT trace, correlation, max(ts) AS ts
  FROM hta_events
  WHERE NOT on_gpu AND correlation >= 0
  GROUP BY trace, correlation
),
gaps AS (
  SELECT w.trace, w.rank, w.stream, w.ts, l.ts AS launch_ts,
         lag(w.t_end) OVER (PARTITION BY w.trace, w.stream ORDER BY w.ts, w.uid) AS previous_end
  FROM work w
  LEFT JOIN launches l ON l.trace = w.trace AND l.correlation = w.correlation
),
categorized AS (
  SELECT trace, rank, stream, ts - previous_end AS gap,
         CASE
           WHEN launch_ts > previous_end THEN 'host_wait'
           WHEN ts - previous_end < CAST(setting('hta.consecutive_kernel_delay', '30') AS DOUBLE) THEN 'kernel_wait'
           ELSE 'other'
         END AS idle_category
  FROM gaps
),
summed AS (
  SELECT trace, rank, stream, idle_category, coalesce(sum(gap), 0.0) AS idle_time
  FROM categorized
  GROUP BY trace, rank, stream, idle_category
)
SELECT rank, stream, idle_category, np_round(idle_time, 2) AS idle_time,
       np_round(idle_time / nullif(sum(idle_time) OVER (PARTITION BY trace, stream), 0.0), 2) AS idle_time_ratio
FROM summed
ORDER BY rank, stream, idle_category, trace
