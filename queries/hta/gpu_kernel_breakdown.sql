-- name: gpu_kernel_breakdown
-- version: 1
-- kind: report
-- order: 902
-- runs: on request
-- description: HTA's GPU kernel breakdown by kernel type: over all ranks, the time covered by computation, communication and memory work, alone or overlapping, µs and % (the first frame of HTA's get_gpu_kernel_breakdown).
--
-- Per rank, the work of each kernel type (hta_gpu_work: COMPUTATION,
-- COMMUNICATION, MEMORY; OTHER is left out, as HTA leaves it) is merged into
-- intervals, and the rank's timeline is cut where any of them starts or ends:
-- each piece goes to the set of types running in it, named as HTA names it
-- ("COMPUTATION overlapping COMMUNICATION"). The pieces are summed over all
-- ranks. `--param hta.include_memory_kernels=false` leaves memory work out
-- (HTA's include_memory_kernels). The top kernels per rank are
-- gpu_kernel_breakdown_kernels.
-- Columns:
--   kernel_type: a kernel type, or types joined by " overlapping "
--   sum: time covered by exactly those types, µs, all ranks
--   percentage: that, % of all the time listed (1 decimal, as numpy rounds)
WITH work AS (
  SELECT trace, coalesce(rank, 0) AS rank, uid, ts, t_end, kernel_type,
         CASE kernel_type WHEN 'COMPUTATION' THEN 1 WHEN 'COMMUNICATION' THEN 2 WHEN 'MEMORY' THEN 4 END AS bit
  FROM hta_gpu_work
  WHERE kernel_type IN ('COMPUTATION', 'COMMUNICATION')
     OR (kernel_type = 'MEMORY' AND setting('hta.include_memory_kernels', 'true') = 'true')
),
reach AS (
  -- How far the type's earlier work reaches: work that starts past it opens
  -- a new merged interval (HTA's merge_kernel_intervals).
  SELECT *, max(t_end) OVER (PARTITION BY trace, bit ORDER BY ts, uid
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reached
  FROM work
),
grouped AS (
  SELECT *, sum(CASE WHEN ts > reached THEN 1 ELSE 0 END)
              OVER (PARTITION BY trace, bit ORDER BY ts, uid ROWS UNBOUNDED PRECEDING) AS interval_no
  FROM reach
),
merged AS (
  SELECT trace, rank, bit, min(ts) AS ts, max(t_end) AS t_end
  FROM grouped GROUP BY trace, rank, bit, interval_no
),
edges AS (
  -- Each merged interval adds its type's bit where it starts, takes it off
  -- where it ends.
  SELECT trace, rank, time, sum(delta) AS delta
  FROM (SELECT trace, rank, ts AS time, bit AS delta FROM merged
        UNION ALL
        SELECT trace, rank, t_end AS time, -bit AS delta FROM merged)
  GROUP BY trace, rank, time
),
pieces AS (
  SELECT sum(delta) OVER (PARTITION BY trace ORDER BY time ROWS UNBOUNDED PRECEDING) AS running,
         lead(time) OVER (PARTITION BY trace ORDER BY time) - time AS dur
  FROM edges
),
typed AS (
  SELECT concat_ws(' overlapping ',
                   CASE WHEN (running & 1) <> 0 THEN 'COMPUTATION' END,
                   CASE WHEN (running & 2) <> 0 THEN 'COMMUNICATION' END,
                   CASE WHEN (running & 4) <> 0 THEN 'MEMORY' END) AS kernel_type,
         dur
  FROM pieces
  WHERE running > 0 AND dur IS NOT NULL
),
summed AS (
  SELECT kernel_type, sum(dur) AS sum FROM typed GROUP BY kernel_type
)
SELECT kernel_type, sum, np_round(100.0 * sum / sum(sum) OVER (), 1) AS percentage
FROM summed
ORDER BY sum DESC, kernel_type
