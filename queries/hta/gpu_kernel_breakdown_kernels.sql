-- name: gpu_kernel_breakdown_kernels
-- version: 1
-- kind: report
-- order: 903
-- runs: on request
-- description: HTA's top GPU kernels per rank and kernel type: each kernel's total, max, min, mean and standard deviation of duration, the tail grouped as "others" (the second frame of HTA's get_gpu_kernel_breakdown).
--
-- Per rank and kernel type (hta_gpu_work: COMPUTATION, COMMUNICATION and,
-- unless `--param hta.include_memory_kernels=false`, MEMORY), kernels by name,
-- largest total first (ties by name). When a type has more than
-- `hta.num_kernels` names (default 10), those past the first num_kernels, and
-- those whose running total passes the `hta.duration_ratio` quantile (default
-- 0.8, linear, of the running totals), become one row "others".
-- The statistics of a kept kernel are its own, and those of "others" are over
-- all durations in it. HTA instead re-aggregates its per-name totals once it
-- groups: a kept kernel's max, min and mean become its total and its stddev 0,
-- and those of "others" are taken over the grouped names' totals;
-- `--param hta.compat=true` reproduces that (DIFFERENCES.md).
-- Columns:
--   name: kernel name, or others
--   "sum (us)": total duration, µs
--   "max (us)": longest, µs
--   "min (us)": shortest, µs
--   stddev: sample standard deviation of the durations, µs (0 for one)
--   "mean (us)": mean duration, µs
--   kernel_type: COMPUTATION, COMMUNICATION or MEMORY
--   rank: the trace's rank (0 when the trace gives none)
WITH work AS (
  SELECT trace, coalesce(rank, 0) AS rank, name, kernel_type, t_end - ts AS dur
  FROM hta_gpu_work
  WHERE kernel_type IN ('COMPUTATION', 'COMMUNICATION')
     OR (kernel_type = 'MEMORY' AND setting('hta.include_memory_kernels', 'true') = 'true')
),
per_name AS (
  SELECT trace, rank, kernel_type, name, sum(dur) AS total
  FROM work GROUP BY trace, rank, kernel_type, name
),
ranked AS (
  SELECT *,
         row_number() OVER (PARTITION BY trace, kernel_type ORDER BY total DESC, name) - 1 AS position,
         sum(total) OVER (PARTITION BY trace, kernel_type ORDER BY total DESC, name
                          ROWS UNBOUNDED PRECEDING) AS running_total,
         count(*) OVER (PARTITION BY trace, kernel_type) AS names
  FROM per_name
),
cut AS (
  -- The duration_ratio quantile of the running totals, interpolated
  -- linearly between the two nearest positions (pandas' quantile).
  SELECT trace, kernel_type, lo + (hi - lo) * (at - floor(at)) AS quantile
  FROM (
    SELECT trace, kernel_type, at,
           max(CASE WHEN position = floor(at) THEN running_total END) AS lo,
           max(CASE WHEN position = least(floor(at) + 1, names - 1) THEN running_total END) AS hi
    FROM (SELECT *, (names - 1) * CAST(setting('hta.duration_ratio', '0.8') AS DOUBLE) AS at FROM ranked)
    GROUP BY trace, kernel_type, at
  )
),
named AS (
  SELECT r.trace, r.rank, r.kernel_type, r.name, r.total,
         CASE WHEN r.names > CAST(setting('hta.num_kernels', '10') AS BIGINT)
                   AND (r.running_total > c.quantile
                        OR r.position >= CAST(setting('hta.num_kernels', '10') AS BIGINT))
              THEN 'others' ELSE r.name END AS shown,
         r.names > CAST(setting('hta.num_kernels', '10') AS BIGINT) AS grouped
  FROM ranked r JOIN cut c ON c.trace = r.trace AND c.kernel_type = r.kernel_type
),
ours AS (
  SELECT n.trace, n.rank, n.kernel_type, n.shown AS name,
         sum(w.dur) AS total, max(w.dur) AS longest, min(w.dur) AS shortest,
         coalesce(stddev(w.dur), 0.0) AS spread, avg(w.dur) AS average
  FROM named n
  JOIN work w ON w.trace = n.trace AND w.kernel_type = n.kernel_type AND w.name = n.name
  WHERE setting('hta.compat', 'false') <> 'true' OR NOT n.grouped
  GROUP BY n.trace, n.rank, n.kernel_type, n.shown
),
theirs AS (
  -- HTA once it groups: statistics over the per-name totals.
  SELECT trace, rank, kernel_type, shown AS name,
         sum(total) AS total, max(total) AS longest, min(total) AS shortest,
         coalesce(stddev(total), 0.0) AS spread, avg(total) AS average
  FROM named
  WHERE setting('hta.compat', 'false') = 'true' AND grouped
  GROUP BY trace, rank, kernel_type, shown
),
rows AS (SELECT * FROM ours UNION ALL SELECT * FROM theirs)
SELECT name, total AS "sum (us)", longest AS "max (us)", shortest AS "min (us)",
       spread AS stddev, average AS "mean (us)", kernel_type, rank
FROM rows
ORDER BY kernel_type, name, rank, trace
