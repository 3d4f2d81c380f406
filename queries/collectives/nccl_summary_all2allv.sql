-- name: nccl_summary_all2allv
-- version: 1
-- kind: collective
-- description: all_to_allv instances per process group and dtype: data, wall time, throughput, imbalance and skew statistics (TraceLens's nccl_summary_all2allv).
-- order: 3
-- drop_null_columns: node_span
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; wall_time (us)_min, wall_time (us)_max, Total wall_time (us), max_rank_dur (us)_max, skew in start time_max, skew in end time_max when SELECT times FROM comm_int_fields
--
-- Sorted by total wall time, largest first.
-- Columns:
--   "Process Group Name": group key
--   dtype: group key
--   "total data communicated (MB)_mean": mean, MiB
--   "total data communicated (MB)_median": median, MiB
--   "total data communicated (MB)_min": min, MiB
--   "total data communicated (MB)_max": max, MiB
--   "wall_time (us)_mean": mean, µs
--   "wall_time (us)_median": median, µs
--   "wall_time (us)_min": min, µs
--   "wall_time (us)_max": max, µs
--   "Total wall_time (us)": sum, µs
--   "throughput (GB/s)_mean": mean, GiB/s
--   "throughput (GB/s)_median": median, GiB/s
--   "throughput (GB/s)_min": min, GiB/s
--   "throughput (GB/s)_max": max, GiB/s
--   size_imbalance_mean: mean
--   size_imbalance_max: max
--   "max_rank_dur (us)_mean": mean, µs
--   "max_rank_dur (us)_max": max, µs
--   "skew in start time_mean": mean, µs
--   "skew in start time_max": max, µs
--   "skew in end time_mean": mean, µs
--   "skew in end time_max": max, µs
--   count: instances
--   "Process Group Ranks": the first instance's
--   "Collective name": the first instance's
--   "Group size": the first instance's
--   "Total wall_time (ms)": ms
--   node_span: intra_node / inter_node / unknown
SELECT a.pg_key AS "Process Group Name", a.dtype,
  avg(total_mb) AS "total data communicated (MB)_mean", median(total_mb) AS "total data communicated (MB)_median",
  min(total_mb) AS "total data communicated (MB)_min", max(total_mb) AS "total data communicated (MB)_max",
  avg(wall_time) AS "wall_time (us)_mean", median(wall_time) AS "wall_time (us)_median",
  min(wall_time) AS "wall_time (us)_min", max(wall_time) AS "wall_time (us)_max",
  sum(wall_time) AS "Total wall_time (us)",
  avg(throughput) AS "throughput (GB/s)_mean", median(throughput) AS "throughput (GB/s)_median",
  min(throughput) AS "throughput (GB/s)_min", max(throughput) AS "throughput (GB/s)_max",
  avg(size_imbalance) AS size_imbalance_mean, max(size_imbalance) AS size_imbalance_max,
  avg(max_rank_dur) AS "max_rank_dur (us)_mean", max(max_rank_dur) AS "max_rank_dur (us)_max",
  avg(skew_start) AS "skew in start time_mean", max(skew_start) AS "skew in start time_max",
  avg(skew_end) AS "skew in end time_mean", max(skew_end) AS "skew in end time_max",
  count(*) AS count,
  first_value(a.process_group_ranks ORDER BY position) AS "Process Group Ranks",
  first_value(collective_name ORDER BY position) AS "Collective name",
  CAST(first_value(group_size ORDER BY position) AS DOUBLE) AS "Group size",
  sum(wall_time) / 1000.0 AS "Total wall_time (ms)",
  first_value(n.node_span ORDER BY position) AS node_span
FROM all2allv_instances a
LEFT JOIN pg_node_span n ON n.process_group_ranks IS NOT DISTINCT FROM a.process_group_ranks
GROUP BY a.pg_key, a.dtype
ORDER BY "Total wall_time (ms)" DESC, "Process Group Name", dtype
