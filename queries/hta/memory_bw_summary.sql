-- name: memory_bw_summary
-- version: 1
-- kind: report
-- order: 913
-- runs: on request
-- description: HTA's memory bandwidth summary: per rank and memory type, count, mean, standard deviation, min, quartiles and max of the bandwidth, GB/s, over the positive points of its time series (HTA's get_memory_bw_summary, every rank).
--
-- The statistics of memory_bw_time_series per rank and memory type (its
-- comment says how the series is built, and how it differs from HTA's by
-- default), as HTA's describe() gives them: over the rows whose bandwidth is
-- above 0 (so, without overlaps, one per operation), not weighted by time;
-- the sample standard deviation (empty for one row) and the quartiles
-- interpolated linearly. A type whose series never rises above 0 (no
-- bandwidth argument) has no row. `--param hta.compat=true` types and
-- measures memory work as HTA does, as there.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   name: memory type: Memcpy HtoD, Memcpy DtoH, Memcpy DtoD, ..., Memcpy Unknown or Memset
--   count: points of the type's series above 0 GB/s
--   mean: their mean bandwidth, GB/s
--   std: their sample standard deviation, GB/s (empty for one point)
--   min: lowest, GB/s
--   25%: first quartile (linear interpolation), GB/s
--   50%: median, GB/s
--   75%: third quartile, GB/s
--   max: highest, GB/s
SELECT rank, memory_type AS name,
       CAST(count(*) AS DOUBLE) AS count,
       avg(memory_bw_gbps) AS mean,
       stddev(memory_bw_gbps) AS std,
       min(memory_bw_gbps) AS min,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY memory_bw_gbps) AS "25%",
       percentile_cont(0.5) WITHIN GROUP (ORDER BY memory_bw_gbps) AS "50%",
       percentile_cont(0.75) WITHIN GROUP (ORDER BY memory_bw_gbps) AS "75%",
       max(memory_bw_gbps) AS max
FROM hta_memory_bw
WHERE memory_bw_gbps > 0
GROUP BY trace, rank, memory_type
ORDER BY rank, name, trace
