-- name: nccl_long
-- version: 1
-- kind: collective
-- description: Every collective kernel of every rank with its metadata and the instance it belongs to (TraceLens's nccl_long).
-- order: 5
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- drop_null_columns: node_id, node_span, matched_by, seq
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; In msg nelems when SELECT in_nelems FROM comm_int_fields; Out msg nelems when SELECT out_nelems FROM comm_int_fields; ts, dur when SELECT times FROM comm_int_fields
--
-- Rows by rank, then file order (not time order: two streams interleave).
-- node_id and node_span only when gpus per node is known; matched_by and seq
-- only in default mode.
-- Columns:
--   collective_id: the instance (collective_matching)
--   index_in_group: position among the rank's kernels of the process group
--   rank: the rank
--   Process Group Name: the process group, Unknown_Group without metadata,
--     'all' in simplified mode
--   Process Group Ranks: its ranks, as written
--   Collective name: the c10d call
--   Group size: ranks in the group
--   dtype: element type
--   In msg nelems: input elements
--   In msg size (MB): input MiB
--   Out msg nelems: output elements
--   Out msg size (MB): output MiB
--   In split size: all_to_allv input split (rows per peer), as written
--   Out split size: output split, as written
--   stream: the kernel's stream
--   ts: start, µs (raw)
--   dur: duration, µs
--   node_id: rank / gpus per node
--   node_span: intra_node / inter_node / unknown for the process group
--   matched_by: comms id, seq, pair order or order (default mode)
--   seq: the process group sequence number (default mode)
SELECT m.collective_id, m.index_in_group, m.rank, m.pg_key AS "Process Group Name",
  m.process_group_ranks AS "Process Group Ranks", m.collective_name AS "Collective name",
  CAST(m.group_size AS DOUBLE) AS "Group size", m.dtype,
  CAST(m.in_msg_nelems AS DOUBLE) AS "In msg nelems", m.in_msg_mb AS "In msg size (MB)",
  CAST(m.out_msg_nelems AS DOUBLE) AS "Out msg nelems", m.out_msg_mb AS "Out msg size (MB)",
  m.in_split_size AS "In split size", m.out_split_size AS "Out split size",
  m.stream, m.ts, m.dur,
  m.rank / r.gpus AS node_id, s.node_span,
  CASE WHEN NOT tracelens_compat() THEN m.matched_by END AS matched_by,
  CASE WHEN NOT tracelens_compat() THEN m.seq END AS seq
FROM collective_matching m
CROSS JOIN (SELECT max(gpus_per_node) AS gpus FROM ranks) r
LEFT JOIN pg_node_span s ON s.process_group_ranks IS NOT DISTINCT FROM m.process_group_ranks
ORDER BY m.rank, m.uid
