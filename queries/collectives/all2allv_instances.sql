-- name: all2allv_instances
-- version: 1
-- kind: view
-- description: One row per all_to_allv instance: data moved by the group, wall time, per-rank durations and throughputs, size imbalance and skews (the general columns of TraceLens's nccl_all2allv).
--
-- all_to_allv ranks send different amounts, so it has no single message size
-- and no bus bandwidth: its throughput is the group's data over the wall time.
-- `total data communicated` sums what every rank sends (spec collectives §4.5).
-- Columns:
--   collective_id: the instance
--   position: row order (first appearance)
--   pg_key: process group (first listed rank)
--   process_group_ranks: the group's ranks as written
--   collective_name: all_to_allv
--   group_size: recorded group size
--   dtype: element type
--   stream: stream (first listed rank)
--   total_mb: Σ over ranks of the input size, MiB
--   total_nelems: Σ over ranks of the input elements
--   wall_time: last end − first start, µs
--   max_rank_dur: longest rank duration, µs
--   min_rank_dur: shortest rank duration, µs
--   avg_rank_dur: mean rank duration, µs
--   throughput: total_mb/1024 / (wall_time/1e6), GiB/s
--   max_rank_throughput: best rank's input MiB/1024 / (dur/1e6) over ranks with data and time, GiB/s
--   min_rank_throughput: worst such rank's, GiB/s
--   size_imbalance: largest input / mean input
--   skew_start: last start − first start, µs
--   skew_end: last end − first end, µs
--   partial: fewer ranks than the process group ran
WITH rows AS (
  SELECT i.*, i.rank_in_msg_mb / 1024.0 / (i.dur / 1e6) AS rank_throughput
  FROM collective_instances i
  WHERE i.collective_name = 'all_to_allv'
)
SELECT collective_id, min(position) AS position, min(pg_key) AS pg_key,
  min(process_group_ranks) AS process_group_ranks, min(collective_name) AS collective_name,
  min(group_size) AS group_size, min(dtype) AS dtype, min(stream) AS stream,
  sum(rank_in_msg_mb) AS total_mb, sum(rank_in_msg_nelems) AS total_nelems,
  max(t_end) - min(arrival) AS wall_time,
  max(dur) AS max_rank_dur, min(dur) AS min_rank_dur, avg(dur) AS avg_rank_dur,
  CASE WHEN max(t_end) - min(arrival) > 0
    THEN sum(rank_in_msg_mb) / 1024.0 / ((max(t_end) - min(arrival)) / 1e6) END AS throughput,
  max(rank_throughput) FILTER (WHERE rank_in_msg_mb > 0 AND dur > 0) AS max_rank_throughput,
  min(rank_throughput) FILTER (WHERE rank_in_msg_mb > 0 AND dur > 0) AS min_rank_throughput,
  CASE WHEN avg(rank_in_msg_mb) <> 0 THEN max(rank_in_msg_mb) / avg(rank_in_msg_mb) END
    AS size_imbalance,
  max(arrival) - min(arrival) AS skew_start,
  max(t_end) - min(t_end) AS skew_end,
  bool_or(partial) AS partial
FROM rows
GROUP BY collective_id
