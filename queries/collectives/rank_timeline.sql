-- name: rank_timeline
-- version: 1
-- kind: view
-- description: Per rank: computation, exposed communication, idle and total GPU time, how much of its communication hides under computation, and how its collective time splits into waiting for other ranks and transfer.
--
-- One rank's trace alone cannot tell waiting from transfer; over all ranks,
-- comm_wait_ms is Σ over the rank's instances of (last arrival − its arrival)
-- and pure_comm_ms Σ of each instance's comm_latency (the shortest duration).
-- A rank is a trace, or one GPU of a trace driving several (rank_devices).
-- Columns:
--   rank: the rank
--   trace: its trace
--   computation_ms: busy time of compute kernels and memsets, ms
--   exposed_comm_ms: communication not overlapped by computation, ms
--   exposed_memcpy_ms: memcpy overlapped by nothing else, ms
--   idle_ms: GPU span minus busy time, ms
--   total_ms: GPU span (first start to last end), ms
--   total_comm_ms: busy time of communication, ms
--   comm_overlap_pct: share of communication under computation, % (HTA's
--     comp_comm_overlap_pctg); NULL without communication
--   exposed_comm_pct: exposed_comm_ms / total_ms, %
--   comm_wait_ms: time its collectives waited for later ranks, ms
--   pure_comm_ms: Σ comm_latency of its collective instances, ms
--   instances: collective instances it took part in
WITH timeline AS (
  SELECT d.rank, min(t.trace) AS trace,
    sum(t.computation_time) AS computation, sum(t.exposed_comm_time) AS exposed_comm,
    sum(t.exposed_memcpy_time) AS exposed_memcpy, sum(t.idle_time) AS idle,
    sum(t.total_time) AS total, sum(t.total_comm_time) AS total_comm
  FROM device_time_totals t
  JOIN rank_devices d ON d.trace = t.trace AND d.device = t.device
  GROUP BY d.rank
),
comm AS (
  SELECT rank, sum(wait_time) AS wait, sum(comm_latency) AS pure, count(*) AS instances
  FROM collective_instances GROUP BY rank
)
SELECT t.rank, t.trace, t.computation / 1e3 AS computation_ms, t.exposed_comm / 1e3 AS exposed_comm_ms,
  t.exposed_memcpy / 1e3 AS exposed_memcpy_ms, t.idle / 1e3 AS idle_ms, t.total / 1e3 AS total_ms,
  t.total_comm / 1e3 AS total_comm_ms,
  CASE WHEN t.total_comm > 0 THEN (t.total_comm - t.exposed_comm) / t.total_comm * 100 END
    AS comm_overlap_pct,
  CASE WHEN t.total > 0 THEN t.exposed_comm / t.total * 100 END AS exposed_comm_pct,
  coalesce(c.wait, 0) / 1e3 AS comm_wait_ms, coalesce(c.pure, 0) / 1e3 AS pure_comm_ms,
  coalesce(c.instances, 0) AS instances
FROM timeline t LEFT JOIN comm c ON c.rank = t.rank
