-- name: rank_clock_offsets
-- version: 1
-- kind: view
-- description: Each rank's clock offset against the lowest rank, estimated from the ends of the collectives all ranks must finish together; applied (default mode) where it passes the threshold.
--
-- Ranks on different hosts read different clocks (NTP/PTP error), and
-- TraceLens compares their raw ts, so a node whose clock runs 1.5 ms ahead
-- looks like a 1.5 ms straggler and the true one is missed (spec collectives
-- B6, §8.2). An implicit-sync collective (allreduce, all-gather, ...) cannot
-- end on one rank before every rank has arrived, and ends within microseconds
-- everywhere: the median over such instances of (this rank's end − the
-- instance's median end) is this rank's clock offset; ranks on one node (gpus
-- per node known) share their node's median. Only instances every rank of
-- their process group took part in count.
--
-- The offset is applied (subtracted from the rank's ts) when it is at least
-- `threshold_us` (10 µs) away from the lowest rank's, so that ranks on one
-- host, which share a clock, keep their times. Never under --tracelens-compat.
-- Columns:
--   rank: the rank
--   clock: the clock it reads: its node number, or 'rank N' when gpus per node
--     is unknown
--   instances: implicit-sync instances the estimate is taken over
--   offset_us: the rank's clock minus the lowest rank's clock, µs (median)
--   spread_us: the median absolute deviation of that estimate, µs
--   threshold_us: the smallest offset that is applied
--   applied_us: what is subtracted from the rank's ts (0 below the threshold,
--     and under --tracelens-compat)
WITH participants AS (
  SELECT pg_key, count(DISTINCT rank) AS n FROM collective_matching GROUP BY pg_key
),
full_instances AS (
  SELECT m.collective_id, m.rank, m.ts + m.dur AS t_end
  FROM collective_matching m
  JOIN participants p ON p.pg_key = m.pg_key
  WHERE m.implicit_sync
    AND p.n >= 2
    AND (SELECT count(DISTINCT rank) FROM collective_matching x
         WHERE x.collective_id = m.collective_id) = p.n
),
deviations AS (
  SELECT f.rank, f.t_end - med.t_end AS deviation
  FROM full_instances f
  JOIN (SELECT collective_id, median(t_end) AS t_end FROM full_instances GROUP BY collective_id) med
    ON med.collective_id = f.collective_id
),
nodes AS (
  -- Ranks on one host read one clock: with gpus per node known, the offset is
  -- the node's (every rank of the node pooled); else each rank's own.
  SELECT DISTINCT d.rank,
    coalesce(CAST(d.rank / g.gpus AS VARCHAR), 'rank ' || CAST(d.rank AS VARCHAR)) AS clock
  FROM deviations d CROSS JOIN (SELECT max(gpus_per_node) AS gpus FROM ranks) g
),
per_clock AS (
  SELECT n.clock, median(d.deviation) AS clock_offset
  FROM deviations d JOIN nodes n ON n.rank = d.rank GROUP BY n.clock
),
per_rank AS (
  SELECT d.rank, min(n.clock) AS clock, count(*) AS instances, min(c.clock_offset) AS clock_offset
  FROM deviations d JOIN nodes n ON n.rank = d.rank JOIN per_clock c ON c.clock = n.clock
  GROUP BY d.rank
),
relative AS (
  SELECT rank, clock, instances,
    clock_offset - first_value(clock_offset) OVER (ORDER BY rank) AS offset_us
  FROM per_rank
),
spread AS (
  SELECT d.rank, median(abs(d.deviation - p.clock_offset)) AS spread_us
  FROM deviations d JOIN per_rank p ON p.rank = d.rank GROUP BY d.rank
)
SELECT r.rank, r.clock, r.instances, r.offset_us, s.spread_us, 10.0 AS threshold_us,
  CASE WHEN NOT tracelens_compat() AND abs(r.offset_us) >= 10.0 THEN r.offset_us ELSE 0.0 END
    AS applied_us
FROM relative r JOIN spread s ON s.rank = r.rank
