-- name: straggler_summary
-- version: 1
-- kind: collective
-- description: Per rank over the implicit-sync instances: total and mean wait, how often it arrived last and first, and its total collective time; the first row is the straggler (TraceLens's straggler_summary).
-- order: 8
-- drop_null_columns: node_id
-- integer_if: total_wait_time_us, total_nccl_dur_us when SELECT times FROM comm_int_fields
--
-- Sorted by total wait, smallest first: the rank that waited least made the
-- others wait. Ties in "arrived last" go to the first rank in column order and
-- in "arrived first" to the highest rank, as in TraceLens, so instances where
-- all ranks arrive together still count one of each (spec collectives B12);
-- default mode compares arrivals on the aligned clock and leaves partial
-- instances out (straggler_ranking splits ties). Rounded to 0.1 with ties to
-- even (np_round), as numpy rounds.
-- Columns:
--   rank: the rank
--   total_wait_time_us: Σ wait over the instances it is in, µs
--   mean_wait_time_us: mean wait, µs
--   times_arrived_last: instances where it arrived last
--   times_arrived_first: instances where it arrived first
--   pct_arrived_last: times_arrived_last / num_collectives, %
--   num_collectives: implicit-sync instances
--   total_nccl_dur_us: Σ duration of all its collective kernels, µs
--   node_id: rank / gpus per node
WITH kept AS (
  SELECT i.* FROM collective_instances i
  JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
),
k AS (SELECT count(*) AS n FROM implicit_sync_instances),
per_rank AS (
  SELECT rank, sum(wait_time) AS total_wait, avg(wait_time) AS mean_wait,
    sum(CASE WHEN last_arrival_rank = rank THEN 1 ELSE 0 END) AS times_last,
    sum(CASE WHEN earliest_arrival_rank = rank THEN 1 ELSE 0 END) AS times_first
  FROM kept GROUP BY rank
),
durations AS (
  SELECT rank, sum(dur) AS total_dur FROM collective_matching GROUP BY rank
),
numbers AS (
  SELECT p.rank, p.total_wait, p.mean_wait, p.times_last, p.times_first,
    100.0 * p.times_last / k.n AS pct_last, k.n, d.total_dur
  FROM per_rank p CROSS JOIN k JOIN durations d ON d.rank = p.rank
)
SELECT n.rank,
  np_round(total_wait, 1) AS total_wait_time_us,
  np_round(mean_wait, 1) AS mean_wait_time_us,
  times_last AS times_arrived_last, times_first AS times_arrived_first,
  np_round(pct_last, 1) AS pct_arrived_last,
  n.n AS num_collectives,
  np_round(total_dur, 1) AS total_nccl_dur_us,
  n.rank / r.gpus AS node_id
FROM numbers n CROSS JOIN (SELECT max(gpus_per_node) AS gpus FROM ranks) r
ORDER BY total_wait_time_us, n.rank
