-- name: queue_length_summary
-- version: 1
-- kind: report
-- order: 911
-- runs: on request
-- description: HTA's queue length summary: per rank and stream, count, mean, standard deviation, min, quartiles and max of the queue length over the rows of its time series (HTA's get_queue_length_summary, every rank).
--
-- The statistics of queue_length_time_series per rank and stream (its
-- comment says how the queue is counted, and how it differs from HTA's by
-- default), as HTA's describe() gives them: over the rows (one per launch and
-- one per GPU start), not weighted by time; the sample standard deviation
-- (empty for one row) and the quartiles interpolated linearly. The rows of
-- both GPUs' stream 7 (one process driving two GPUs) make one row here, as
-- in HTA, though each GPU's queue is counted apart.
-- `--param hta.compat=true` counts HTA's launches and queues, as there.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   stream: the stream
--   count: rows of the stream's time series
--   mean: mean queue length over those rows
--   std: their sample standard deviation (empty for one row)
--   min: smallest queue length
--   25%: first quartile (linear interpolation)
--   50%: median
--   75%: third quartile
--   max: largest queue length
SELECT rank, stream,
       CAST(count(*) AS DOUBLE) AS count,
       avg(CAST(queue_length AS DOUBLE)) AS mean,
       stddev(CAST(queue_length AS DOUBLE)) AS std,
       CAST(min(queue_length) AS DOUBLE) AS min,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY CAST(queue_length AS DOUBLE)) AS "25%",
       percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(queue_length AS DOUBLE)) AS "50%",
       percentile_cont(0.75) WITHIN GROUP (ORDER BY CAST(queue_length AS DOUBLE)) AS "75%",
       CAST(max(queue_length) AS DOUBLE) AS max
FROM hta_queue_length
GROUP BY trace, rank, stream
ORDER BY rank, stream, trace
