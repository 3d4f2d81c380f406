-- name: collective_matching
-- version: 2
-- kind: view
-- description: Which collective instance each collective kernel belongs to, across ranks: by its Comms Id or the process group's sequence number where the trace records them, else by order within the process group.
--
-- TraceLens assumes the k-th kernel of a process group on every rank is the
-- same collective (spec collectives §3). One kernel more on one rank (a
-- profiling window that starts earlier) shifts every later pairing: TraceLens
-- then aborts on a size mismatch or silently pairs the wrong kernels (bugs B2,
-- B3). PyTorch records the process group's sequence number (`Seq`) on
-- record_param_comms, the same on every rank for one instance, and the newest
-- versions a `Comms Id` (a hash of the group, Seq, whether it is P2P, and the
-- group's global ranks: one id per instance across ranks). In default mode the
-- Comms Id is the key where present, else Seq, and the order is the fallback
-- (`matched_by`). A send and its
-- recv pair by their order between the two ranks, in that direction (the P2P
-- sequence counter is per process, not per pair). Under --tracelens-compat it
-- is always the order within the process group.
--
-- Simplified mode (TraceLens's, both modes): when no kernel has a process group
-- and every rank has one collective stream, all of a rank's kernels form one
-- sequence (process group 'all', ids '0', '1', ...).
-- Columns:
--   collective_id: the instance: '<process group>_<seq or ordinal>',
--     '<process group>_c<comms id>', or the ordinal alone in simplified mode; in
--     default mode kernels without a key in a process group whose other kernels
--     have one get '<pg>_n<ordinal>', and a send/recv
--     '<pg>_p2p_<src>_to_<dst>_<k>' (the k-th between them)
--   index_in_group: 0-based position of the kernel among its rank's kernels of
--     its process group, by start time (then file order)
--   matched_by: comms id, seq (sequence number), pair order (send/recv) or
--     order (ordinal)
--   simplified: true in TraceLens's simplified mode
--   pg_key: Process Group Name, 'Unknown_Group' when the kernel has none, 'all'
--     in simplified mode
--   comm_kernels.*: the kernel's columns
WITH mode AS (
  SELECT
    count(process_group_name) = 0
    AND coalesce(max(streams), 0) <= 1 AS simplified
  FROM comm_kernels
  CROSS JOIN (SELECT max(n) AS streams FROM
    (SELECT rank, count(DISTINCT stream) AS n FROM comm_kernels GROUP BY rank)) s
),
p2p AS (
  -- send/recv: the peer is record_param_comms' Rank, a rank of the process
  -- group; its global rank is that position of Process Group Ranks.
  SELECT k.*,
    coalesce(TRY_CAST(btrim(array_element(
      string_to_array(btrim(coalesce(k.process_group_ranks, ''), '[]() '), ','),
      k.peer_rank + 1)) AS BIGINT), k.peer_rank) AS peer
  FROM comm_kernels k
),
keyed AS (
  SELECT k.*, m.simplified,
    CASE WHEN m.simplified THEN 'all' ELSE coalesce(k.process_group_name, 'Unknown_Group') END
      AS pg_key,
    NOT tracelens_compat() AND k.collective_name IN ('send', 'recv') AND k.peer IS NOT NULL
      AS by_pair,
    CASE WHEN k.collective_name = 'send' THEN k.rank ELSE k.peer END AS src,
    CASE WHEN k.collective_name = 'send' THEN k.peer ELSE k.rank END AS dst,
    NOT tracelens_compat() AND k.comms_id IS NOT NULL
      AND NOT coalesce(k.collective_name IN ('send', 'recv') AND k.peer IS NOT NULL, false)
      AS by_comms_id,
    NOT tracelens_compat() AND k.seq IS NOT NULL AND k.comms_id IS NULL
      AND NOT coalesce(k.collective_name IN ('send', 'recv') AND k.peer IS NOT NULL, false) AS by_seq
  FROM p2p k CROSS JOIN mode m
),
ordered AS (
  SELECT *,
    row_number() OVER (PARTITION BY rank, pg_key ORDER BY ts, uid) - 1 AS index_in_group,
    row_number() OVER (PARTITION BY rank, pg_key, by_comms_id, by_seq, by_pair ORDER BY ts, uid) - 1
      AS ordinal,
    row_number() OVER (PARTITION BY rank, pg_key, by_pair, src, dst ORDER BY ts, uid) - 1
      AS pair_ordinal,
    bool_or(by_seq OR by_comms_id) OVER (PARTITION BY pg_key) AS group_has_key
  FROM keyed
)
SELECT
  CASE
    WHEN by_pair THEN pg_key || '_p2p_' || CAST(src AS VARCHAR) || '_to_' || CAST(dst AS VARCHAR)
      || '_' || CAST(pair_ordinal AS VARCHAR)
    WHEN by_comms_id THEN pg_key || '_c' || comms_id
    WHEN by_seq THEN pg_key || '_' || CAST(seq AS VARCHAR)
    WHEN simplified THEN CAST(ordinal AS VARCHAR)
    WHEN group_has_key THEN pg_key || '_n' || CAST(ordinal AS VARCHAR)
    ELSE pg_key || '_' || CAST(ordinal AS VARCHAR)
  END AS collective_id,
  index_in_group,
  CASE WHEN by_pair THEN 'pair order' WHEN by_comms_id THEN 'comms id' WHEN by_seq THEN 'seq'
    ELSE 'order' END AS matched_by,
  simplified, pg_key,
  rank, trace, uid, kernel_name, device, stream, ts, dur, integer_times,
  process_group_name, process_group_ranks, collective_name, collective_type, implicit_sync,
  busbw_factor, full_size_from, group_size, dtype, in_msg_nelems, out_msg_nelems,
  in_msg_mb, out_msg_mb, in_split_size, out_split_size, seq, comms_id, peer_rank
FROM ordered
