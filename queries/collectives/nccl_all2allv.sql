-- name: nccl_all2allv
-- version: 1
-- kind: collective
-- description: One row per all_to_allv instance: data moved, wall time, per-rank durations, throughputs, size imbalance, skews and every rank's values (TraceLens's nccl_all2allv).
-- order: 7
-- spread_from: nccl_all2allv_cells
-- spread_before: node_span
-- drop_null_columns: node_span
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; rank_*_In msg nelems, total nelems communicated when SELECT in_nelems FROM comm_int_fields; rank_*_Out msg nelems when SELECT out_nelems FROM comm_int_fields; wall_time (us), max_rank_dur (us), min_rank_dur (us), skew in start time, skew in end time, rank_*_ts, rank_*_dur, rank_*_skew in start time, rank_*_skew in end time when SELECT times FROM comm_int_fields
--
-- Sorted by total data communicated, largest first. rank_<r>_skew in end time
-- is measured against the last end (the code's behaviour; TraceLens's docs say
-- the first).
-- Columns:
--   collective_id: the instance
--   "Process Group Name": the first listed rank's
--   "Process Group Ranks": the first listed rank's
--   "Collective name": all_to_allv
--   "Group size": the first listed rank's
--   dtype: the first listed rank's
--   stream: the first listed rank's
--   "total data communicated (MB)": Σ over ranks of the input size, MiB
--   "total nelems communicated": Σ over ranks of the input elements
--   "wall_time (us)": last end − first start
--   "max_rank_dur (us)": longest rank duration
--   "min_rank_dur (us)": shortest rank duration
--   "avg_rank_dur (us)": mean rank duration
--   "throughput (GB/s)": total data / wall time, GiB/s
--   "max_rank_throughput (GB/s)": best rank's, GiB/s
--   "min_rank_throughput (GB/s)": worst rank's, GiB/s
--   size_imbalance: largest input / mean input
--   "skew in start time": µs
--   "skew in end time": µs
--   node_span: intra_node / inter_node / unknown
SELECT a.collective_id, a.pg_key AS "Process Group Name", a.process_group_ranks AS "Process Group Ranks",
  a.collective_name AS "Collective name", CAST(a.group_size AS DOUBLE) AS "Group size", a.dtype,
  a.stream, a.total_mb AS "total data communicated (MB)",
  CAST(a.total_nelems AS DOUBLE) AS "total nelems communicated",
  a.wall_time AS "wall_time (us)", a.max_rank_dur AS "max_rank_dur (us)",
  a.min_rank_dur AS "min_rank_dur (us)", a.avg_rank_dur AS "avg_rank_dur (us)",
  a.throughput AS "throughput (GB/s)", a.max_rank_throughput AS "max_rank_throughput (GB/s)",
  a.min_rank_throughput AS "min_rank_throughput (GB/s)", a.size_imbalance,
  a.skew_start AS "skew in start time", a.skew_end AS "skew in end time",
  n.node_span
FROM all2allv_instances a
LEFT JOIN pg_node_span n ON n.process_group_ranks IS NOT DISTINCT FROM a.process_group_ranks
ORDER BY a.total_mb DESC, a.position
