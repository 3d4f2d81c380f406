-- name: p2p_transfers
-- version: 1
-- kind: view
-- description: Point-to-point transfers (send/recv) paired across ranks: who sent how much to whom, how long the receiver waited, and the link bandwidth per transfer.
--
-- TraceLens has no bandwidth for send/recv (spec collectives B7). A send on
-- rank a to b and the recv on b from a pair by their order between the two
-- (collective_matching, default mode); the transfer time is the shorter of the
-- two kernels (the other waited for its partner), bandwidth is busbw = algbw
-- for send/recv (nccl-tests). A transfer one side of which the trace lacks has
-- one kernel: its time is that kernel's.
-- Columns:
--   collective_id: the transfer
--   src_rank: the sender
--   dst_rank: the receiver
--   process_group: the process group
--   bytes: what the send moved (its input), bytes; NULL when the dtype has no size
--   send_ts: the send kernel's start, µs (common clock)
--   recv_ts: the recv kernel's start, µs
--   transfer_us: the shorter kernel's duration, µs
--   recv_wait_us: recv_ts − send_ts when the receiver arrived first (negative:
--     the sender waited), µs
--   gb_s: bytes / transfer_us, 10^9 B/s
--   kernels: 2 when both sides were captured
WITH sides AS (
  SELECT m.collective_id, m.pg_key, m.collective_name, m.rank, m.in_msg_mb, m.dur,
    m.ts - coalesce(o.applied_us, 0.0) AS ts
  FROM collective_matching m
  LEFT JOIN rank_clock_offsets o ON o.rank = m.rank
  WHERE m.matched_by = 'pair order'
)
SELECT collective_id,
  coalesce(max(CASE WHEN collective_name = 'send' THEN rank END),
           max(CAST(split_part(split_part(collective_id, '_p2p_', 2), '_to_', 1) AS BIGINT))) AS src_rank,
  coalesce(max(CASE WHEN collective_name = 'recv' THEN rank END),
           max(CAST(split_part(split_part(collective_id, '_to_', 2), '_', 1) AS BIGINT))) AS dst_rank,
  min(pg_key) AS process_group,
  max(CASE WHEN collective_name = 'send' THEN in_msg_mb * 1048576.0 END) AS bytes,
  max(CASE WHEN collective_name = 'send' THEN ts END) AS send_ts,
  max(CASE WHEN collective_name = 'recv' THEN ts END) AS recv_ts,
  min(dur) AS transfer_us,
  max(CASE WHEN collective_name = 'send' THEN ts END) - max(CASE WHEN collective_name = 'recv' THEN ts END)
    AS recv_wait_us,
  max(CASE WHEN collective_name = 'send' THEN in_msg_mb * 1048576.0 END) / nullif(min(dur), 0) / 1e3
    AS gb_s,
  count(*) AS kernels
FROM sides
GROUP BY collective_id
