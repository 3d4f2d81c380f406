-- name: implicit_sync_instances
-- version: 1
-- kind: view
-- description: The collective instances whose ranks finish together (allreduce, reduce-scatter, all-gather, all-to-all), one row each: what nccl_implicit_sync, its summary and the straggler sheets read.
--
-- TraceLens keeps an instance when the type of its first listed rank is
-- implicit-sync; in simplified mode also the untyped ones (spec collectives
-- §4.1). Default mode also knows the list-API reduce_scatter and, for kernels
-- without metadata, the type their name gives; and it leaves out partial
-- instances (a rank's profiling window does not cover them: their waits would
-- be the window offset, not skew), which collective_windows lists.
-- Columns:
--   collective_id: the instance (collective_matching)
--   position: the instance's order of first appearance: the lowest rank's file order first (TraceLens's row order)
--   matched_by: comms id, seq, pair order or order, as the instance's first
--     listed kernel was matched
--   participants: ranks present in this instance
--   expected: ranks that ran any collective of this process group
--   partial: fewer ranks present than expected (a profiling window that does not cover the instance on every rank)
--   comm_latency: the shortest duration over ranks: the pure communication time, µs
--   skew_start: last arrival − first arrival, µs
--   skew_end: last end − first end, µs
--   avg_wait_time: mean wait over the ranks present, µs
--   earliest_arrival_rank: the rank that arrived first (ties: the highest rank)
--   full_msg_mb: the whole buffer: the output of an all-gather, else the input, MiB
--   algbw_gib_s: full_msg_mb/1024 / (comm_latency/1e6): GiB/s, TraceLens's "GB/s"
--   busbw_gib_s: algbw × the bus factor of the type for the recorded group size, GiB/s
--   algbw_gb_s: algbw in 10^9 B/s (nccl-tests units)
--   busbw_gb_s: busbw in 10^9 B/s
--   pg_key: the instance's process group (first listed rank)
--   process_group_name: args['Process Group Name'] (first listed rank)
--   process_group_ranks: the group's ranks as written (first listed rank)
--   collective_name: the c10d call (first listed rank)
--   collective_type: its type (collective_types)
--   group_size: recorded group size (first listed rank)
--   dtype: element type (first listed rank)
--   in_msg_nelems: input elements (first listed rank)
--   out_msg_nelems: output elements (first listed rank)
--   in_msg_mb: input MiB (first listed rank)
--   out_msg_mb: output MiB (first listed rank)
SELECT DISTINCT collective_id, position, matched_by, participants, expected, partial,
  comm_latency, skew_start, skew_end, avg_wait_time, earliest_arrival_rank,
  full_msg_mb, algbw_gib_s, busbw_gib_s, algbw_gb_s, busbw_gb_s,
  pg_key, process_group_name, process_group_ranks, collective_name, collective_type,
  group_size, dtype, in_msg_nelems, out_msg_nelems, in_msg_mb, out_msg_mb
FROM collective_instances i
WHERE CASE
  WHEN tracelens_compat() AND pg_key = 'all'
    THEN collective_name IS NULL OR collective_type IS NULL OR implicit_sync
  WHEN tracelens_compat() THEN coalesce(implicit_sync, false)
  ELSE coalesce(implicit_sync, false) AND NOT partial
END
