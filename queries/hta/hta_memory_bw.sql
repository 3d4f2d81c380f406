-- name: hta_memory_bw
-- version: 1
-- kind: view
-- description: The summed bandwidth of the copies or sets of each memory type running, per rank, at each start and end (HTA's memory bandwidth time series, absolute and relative times): memory_bw_time_series, memory_bw_summary and the counter tracks of `export --counters` read it.
--
-- Each copy or set adds its bandwidth (the trace's "memory bandwidth (GB/s)",
-- which the profiler computes from its bytes and duration) when it starts and
-- removes it when it ends; the series is the running sum per memory type over
-- all streams and GPUs of the rank, one row per start and per end, in time
-- order. Times are whole µs as HTA reads them (hta_events: the profiled
-- iterations), relative to the earliest event of the session, as HTA aligns
-- its ranks. An operation of zero length (a sub-µs one, once rounded) lasts
-- 1 µs, as in HTA: it did move its bytes at its bandwidth, so it shows.
-- At the same µs an end comes before a start (an operation that ends as
-- another starts does not overlap it), then event order.
-- Memory work is what the kernel-class table calls memcpy or memset (ROCm's
-- CopyDeviceToHost and the like typed by the direction their name tells,
-- else "Memcpy Unknown"); a copy without the bandwidth argument gets bytes /
-- duration. When no operation of a type runs, its bandwidth is exactly 0
-- (the running sum of floats can leave 1e-16 there).
-- HTA instead types memory work by name only (Memcpy..., Memset..., dma...),
-- takes a missing bandwidth as 0, keeps the negative length its whole-µs
-- rounding gives a sub-µs operation (its end before its start: the series
-- dips below 0), and sorts with an unstable sort, so at the same µs its order
-- is arbitrary; `--param hta.compat=true` reproduces all but that order,
-- for which it takes HTA's order with a stable sort: starts first
-- (DIFFERENCES.md).
-- Columns:
--   trace: trace name
--   rank: the trace's rank (0 when the trace gives none)
--   ts: time of the start or end, whole µs (hta_events)
--   rel_ts: that, from the session's earliest event (HTA's aligned time)
--   pid: the operation's pid (the device)
--   memory_type: Memcpy HtoD, Memcpy DtoH, Memcpy DtoD, ..., Memcpy Unknown or Memset
--   tie_order: the order of a start and an end at the same µs
--   uid: the copy or set
--   memory_bw_gbps: summed bandwidth of the type's running operations just after the event, GB/s
WITH memory_work AS (
  SELECT w.trace, w.rank, w.uid, w.name, w.ts, w.t_end, e.pid, e.dur, k.class, k.bytes,
         json_get_float(e.args, 'memory bandwidth (GB/s)') AS bandwidth_arg
  FROM hta_gpu_work w
  JOIN events e ON e.trace = w.trace AND e.uid = w.uid
  LEFT JOIN classified_kernels k ON k.trace = w.trace AND k.uid = w.uid
  WHERE w.kernel_type = 'MEMORY'
),
typed AS (
  SELECT trace, rank, uid, ts, pid,
         CASE
           WHEN setting('hta.compat', 'false') <> 'true' AND class = 'memset' THEN 'Memset'
           WHEN (setting('hta.compat', 'false') = 'true' OR class IS NULL) AND starts_with(name, 'Memset') THEN 'Memset'
           WHEN starts_with(name, 'Memcpy') THEN substr(name, 1, 11)
           -- ROCm's names (CopyDeviceToHost, ...) tell the direction too.
           WHEN setting('hta.compat', 'false') <> 'true' AND class = 'memcpy' THEN
             CASE
               WHEN strpos(name, 'HostToDevice') > 0 THEN 'Memcpy HtoD'
               WHEN strpos(name, 'DeviceToHost') > 0 THEN 'Memcpy DtoH'
               WHEN strpos(name, 'DeviceToDevice') > 0 THEN 'Memcpy DtoD'
               WHEN strpos(name, 'PeerToPeer') > 0 THEN 'Memcpy PtoP'
               ELSE 'Memcpy Unknown'
             END
           ELSE 'Memcpy Unknown'
         END AS memory_type,
         CASE
           WHEN bandwidth_arg IS NOT NULL THEN bandwidth_arg
           WHEN setting('hta.compat', 'false') <> 'true' AND bytes > 0 AND dur > 0 THEN bytes / (dur * 1000.0)
           ELSE 0.0
         END AS bandwidth,
         -- The whole-µs end (before the start under compat: HTA's rounding
         -- of a sub-µs operation); an operation of length 0 ends 1 µs after
         -- its start, as in HTA.
         CASE WHEN t_end = ts THEN ts + 1 ELSE t_end END AS ends
  FROM memory_work
),
changes AS (
  -- +bandwidth at the start, -bandwidth at the end. At the same µs an end
  -- comes first: an operation that ends as another starts does not overlap
  -- it. Under compat a start comes first, as HTA's order with a stable sort.
  SELECT trace, rank, uid, ts, pid, memory_type, bandwidth AS change, 1 AS active,
         CASE WHEN setting('hta.compat', 'false') = 'true' THEN 0 ELSE 1 END AS tie_order
  FROM typed
  UNION ALL
  SELECT trace, rank, uid, ends, pid, memory_type, -bandwidth, -1,
         CASE WHEN setting('hta.compat', 'false') = 'true' THEN 1 ELSE 0 END
  FROM typed
),
series AS (
  SELECT c.trace, coalesce(c.rank, 0) AS rank, c.ts, c.ts - o.t0 AS rel_ts, c.pid, c.memory_type, c.tie_order, c.uid,
         sum(c.change) OVER w AS running_bandwidth,
         sum(c.active) OVER w AS running_ops
  FROM changes c CROSS JOIN hta_origin o
  WINDOW w AS (PARTITION BY c.trace, c.memory_type ORDER BY c.ts, c.tie_order, c.uid
               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT trace, rank, ts, rel_ts, pid, memory_type, tie_order, uid,
       CASE WHEN running_ops = 0 AND setting('hta.compat', 'false') <> 'true' THEN 0.0
            ELSE running_bandwidth END AS memory_bw_gbps
FROM series
