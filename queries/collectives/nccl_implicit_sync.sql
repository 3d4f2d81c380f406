-- name: nccl_implicit_sync
-- version: 1
-- kind: collective
-- description: One row per implicit-sync collective instance: pure communication time, start and end skew, who arrived first, bandwidths, and every rank's start, duration and wait (TraceLens's nccl_implicit_sync).
-- order: 6
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- spread_from: nccl_implicit_sync_cells
-- spread_before: node_span
-- drop_null_columns: node_span, matched_by, participants, algbw_gb_s, busbw_gb_s
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; In msg nelems when SELECT in_nelems FROM comm_int_fields; Out msg nelems when SELECT out_nelems FROM comm_int_fields; comm_latency, skew in start time, skew in end time, rank_*_ts, rank_*_dur, rank_*_wait_time when SELECT times FROM comm_int_fields
--
-- comm_latency is the shortest duration over the ranks: the rank that arrived
-- last waited for nobody, so its kernel time is the transfer. "GB/s" is
-- TraceLens's label for GiB/s (2^30 B/s); default mode adds the same in
-- 10^9 B/s (nccl-tests' unit) and how each instance was matched.
-- Columns:
--   collective_id: the instance
--   "Process Group Name": of the first listed rank
--   "Process Group Ranks": of the first listed rank
--   "Collective name": of the first listed rank
--   "Group size": of the first listed rank
--   dtype: of the first listed rank
--   "In msg nelems": of the first listed rank
--   "Out msg nelems": of the first listed rank
--   "In msg size (MB)": MiB
--   "Out msg size (MB)": MiB
--   "Full msg size (MB)": the whole buffer (the output of an all-gather, else the input), MiB
--   comm_latency: shortest duration over ranks, µs
--   "skew in start time": last arrival − first arrival, µs
--   "earliest arrival rank": first to arrive (ties: highest rank)
--   avg_wait_time: mean over ranks of (last arrival − arrival), µs
--   "skew in end time": last end − first end, µs
--   "algo bw (GB/s)": Full msg size / comm_latency, GiB/s
--   "bus bw (GB/s)": algo bw × the type's bus factor for Group size, GiB/s
--   node_span: intra_node / inter_node / unknown (gpus per node known)
--   matched_by: comms id, seq, pair order or order (default mode)
--   participants: ranks present (default mode)
--   algbw_gb_s: algo bw in 10^9 B/s, nccl-tests units (default mode)
--   busbw_gb_s: bus bw in 10^9 B/s (default mode)
SELECT s.collective_id, s.pg_key AS "Process Group Name",
  s.process_group_ranks AS "Process Group Ranks", s.collective_name AS "Collective name",
  CAST(s.group_size AS DOUBLE) AS "Group size", s.dtype,
  CAST(s.in_msg_nelems AS DOUBLE) AS "In msg nelems", CAST(s.out_msg_nelems AS DOUBLE) AS "Out msg nelems",
  s.in_msg_mb AS "In msg size (MB)", s.out_msg_mb AS "Out msg size (MB)",
  s.full_msg_mb AS "Full msg size (MB)",
  s.comm_latency, s.skew_start AS "skew in start time",
  s.earliest_arrival_rank AS "earliest arrival rank", s.avg_wait_time,
  s.skew_end AS "skew in end time",
  s.algbw_gib_s AS "algo bw (GB/s)", s.busbw_gib_s AS "bus bw (GB/s)",
  n.node_span,
  CASE WHEN NOT tracelens_compat() THEN s.matched_by END AS matched_by,
  CASE WHEN NOT tracelens_compat() THEN s.participants END AS participants,
  CASE WHEN NOT tracelens_compat() THEN s.algbw_gb_s END AS algbw_gb_s,
  CASE WHEN NOT tracelens_compat() THEN s.busbw_gb_s END AS busbw_gb_s
FROM implicit_sync_instances s
LEFT JOIN pg_node_span n ON n.process_group_ranks IS NOT DISTINCT FROM s.process_group_ranks
ORDER BY s.position
