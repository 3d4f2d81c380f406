-- name: collective_instances
-- version: 1
-- kind: view
-- description: One row per collective instance per rank: arrival, end, how long the rank waited for the last arrival, the instance's pure communication time, sizes and bandwidths.
--
-- The per-rank form of TraceLens's nccl_implicit_sync and nccl_all2allv (which
-- spread ranks over columns): every sheet and the straggler ranking are GROUP
-- BYs over it. Times are on the common clock in default mode (ts minus the
-- rank's applied clock offset, rank_clock_offsets); raw under
-- --tracelens-compat.
--
-- An instance's metadata (type, sizes, group size) is that of its first listed
-- rank, as TraceLens takes it: the lowest rank, in file order. Bus bandwidth
-- uses the recorded group size, not the number of ranks present.
-- Columns:
--   collective_id: the instance (collective_matching)
--   position: the instance's order of first appearance: the lowest rank's file order first (TraceLens's row order)
--   rank: the rank
--   rank_position: the order in which this rank first appears over all instances (TraceLens's column order)
--   matched_by: comms id, seq, pair order or order, as the instance's first
--     listed kernel was matched
--   participants: ranks present in this instance
--   expected: ranks that ran any collective of this process group
--   partial: fewer ranks present than expected (a profiling window that does not cover the instance on every rank)
--   arrival: this rank's kernel start on the common clock, µs
--   t_end: this rank's kernel end, µs
--   dur: this rank's kernel duration, µs
--   wait_time: last arrival − this rank's arrival: time spent waiting for the others, µs
--   lateness: this rank's arrival − first arrival, µs
--   comm_latency: the shortest duration over ranks: the pure communication time, µs
--   skew_start: last arrival − first arrival, µs
--   skew_end: last end − first end, µs
--   avg_wait_time: mean wait over the ranks present, µs
--   earliest_arrival_rank: the rank that arrived first (ties: the highest rank)
--   last_arrival_rank: the rank that arrived last (ties: the first in rank_position)
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
--   implicit_sync: whether the type finishes together on all ranks
--   group_size: recorded group size (first listed rank)
--   dtype: element type (first listed rank)
--   in_msg_nelems: input elements (first listed rank)
--   out_msg_nelems: output elements (first listed rank)
--   in_msg_mb: input MiB (first listed rank)
--   out_msg_mb: output MiB (first listed rank)
--   stream: stream (first listed rank)
--   rank_in_msg_nelems: this rank's input elements
--   rank_out_msg_nelems: this rank's output elements
--   rank_in_msg_mb: this rank's input MiB
--   rank_out_msg_mb: this rank's output MiB
--   rank_in_split_size: this rank's In split size, as written
--   rank_out_split_size: this rank's Out split size, as written
--   rank_stream: this rank's kernel stream
--   uid: this rank's kernel uid
--   trace: this rank's trace
--   integer_times: whether this rank's trace writes integer times
WITH long AS (
  SELECT m.*,
    m.ts - coalesce(o.applied_us, 0.0) AS arrival,
    row_number() OVER (ORDER BY m.rank, m.uid) AS long_position
  FROM collective_matching m
  LEFT JOIN rank_clock_offsets o ON o.rank = m.rank
),
participants AS (
  SELECT pg_key, count(DISTINCT rank) AS n FROM collective_matching GROUP BY pg_key
),
per_instance AS (
  SELECT collective_id,
    min(long_position) AS first_row,
    count(*) AS participants,
    min(arrival) AS first_arrival,
    max(arrival) AS last_arrival,
    min(arrival + dur) AS first_end,
    max(arrival + dur) AS last_end,
    min(dur) AS comm_latency
  FROM long GROUP BY collective_id
),
head AS (
  SELECT l.collective_id, l.pg_key, l.matched_by, l.process_group_name, l.process_group_ranks,
    l.collective_name, l.collective_type, l.implicit_sync, l.busbw_factor, l.full_size_from,
    l.group_size, l.dtype, l.in_msg_nelems, l.out_msg_nelems, l.in_msg_mb, l.out_msg_mb,
    l.stream
  FROM long l JOIN per_instance i ON i.first_row = l.long_position
),
positions AS (
  SELECT collective_id, dense_rank() OVER (ORDER BY first_row) AS position FROM per_instance
),
rank_positions AS (
  SELECT rank, dense_rank() OVER (ORDER BY first_seen) AS rank_position
  FROM (SELECT l.rank, min(p.position * 1000000 + l.long_position) AS first_seen
        FROM long l JOIN positions p ON p.collective_id = l.collective_id GROUP BY l.rank)
),
rows AS (
  SELECT l.collective_id, p.position, l.rank, rp.rank_position,
    i.participants, pt.n AS expected, i.participants < pt.n AS partial,
    l.arrival, l.arrival + l.dur AS t_end, l.dur,
    i.last_arrival - l.arrival AS wait_time,
    l.arrival - i.first_arrival AS lateness,
    i.comm_latency,
    i.last_arrival - i.first_arrival AS skew_start,
    i.last_end - i.first_end AS skew_end,
    h.*,
    l.in_msg_nelems AS rank_in_msg_nelems, l.out_msg_nelems AS rank_out_msg_nelems,
    l.in_msg_mb AS rank_in_msg_mb, l.out_msg_mb AS rank_out_msg_mb,
    l.in_split_size AS rank_in_split_size, l.out_split_size AS rank_out_split_size,
    l.stream AS rank_stream, l.uid, l.trace, l.integer_times,
    CASE WHEN h.collective_type IS NULL THEN NULL
         WHEN h.full_size_from = 'out' THEN h.out_msg_mb ELSE h.in_msg_mb END AS full_msg_mb
  FROM long l
  JOIN per_instance i ON i.collective_id = l.collective_id
  JOIN positions p ON p.collective_id = l.collective_id
  JOIN rank_positions rp ON rp.rank = l.rank
  JOIN participants pt ON pt.pg_key = l.pg_key
  JOIN head h ON h.collective_id = l.collective_id
),
bandwidth AS (
  SELECT r.*,
    avg(wait_time) OVER (PARTITION BY collective_id) AS avg_wait_time,
    first_value(rank) OVER (PARTITION BY collective_id ORDER BY wait_time DESC, rank DESC)
      AS earliest_arrival_rank,
    first_value(rank) OVER (PARTITION BY collective_id ORDER BY wait_time, rank_position)
      AS last_arrival_rank,
    CASE WHEN comm_latency > 0 THEN (full_msg_mb / 1024.0) / (comm_latency / 1e6) END
      AS algbw_gib_s,
    CASE busbw_factor
      WHEN 'allreduce_ring' THEN 2.0 * (group_size - 1) / group_size
      WHEN 'ring' THEN (group_size - 1.0) / group_size
      WHEN 'one' THEN 1.0 END AS bus_factor
  FROM rows r
)
SELECT collective_id, position, rank, rank_position, matched_by, participants, expected, partial,
  arrival, t_end, dur, wait_time, lateness, comm_latency, skew_start, skew_end, avg_wait_time,
  earliest_arrival_rank, last_arrival_rank, full_msg_mb, algbw_gib_s,
  algbw_gib_s * bus_factor AS busbw_gib_s,
  algbw_gib_s * 1.073741824 AS algbw_gb_s,
  algbw_gib_s * 1.073741824 * bus_factor AS busbw_gb_s,
  pg_key, process_group_name, process_group_ranks, collective_name, collective_type,
  implicit_sync, group_size, dtype, in_msg_nelems, out_msg_nelems, in_msg_mb, out_msg_mb, stream,
  rank_in_msg_nelems, rank_out_msg_nelems, rank_in_msg_mb, rank_out_msg_mb,
  rank_in_split_size, rank_out_split_size, rank_stream, uid, trace, integer_times
FROM bandwidth
