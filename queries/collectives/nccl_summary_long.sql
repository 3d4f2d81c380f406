-- name: nccl_summary_long
-- version: 1
-- kind: collective
-- description: Collective kernel time per rank, process group, call, size and stream, over all ranks (TraceLens's nccl_summary_long).
-- order: 2
-- empty: write
-- drop_null_columns: node_id, node_span
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; In msg nelems when SELECT in_nelems FROM comm_int_fields; Out msg nelems when SELECT out_nelems FROM comm_int_fields; dur_sum, dur_min, dur_max when SELECT times FROM comm_int_fields
--
-- Sorted by dur_sum, largest first. node_id and node_span when gpus per node
-- is known.
-- Columns:
--   collective_summary_long.*: the group and its times
--   node_id: rank / gpus per node
--   node_span: intra_node / inter_node / unknown for the process group
SELECT l.*, l.rank / r.gpus AS node_id, n.node_span
FROM collective_summary_long l
CROSS JOIN (SELECT max(gpus_per_node) AS gpus FROM ranks) r
LEFT JOIN pg_node_span n ON n.process_group_ranks IS NOT DISTINCT FROM l."Process Group Ranks"
ORDER BY l.dur_sum DESC, l.rank, l."Process Group Name", l."Collective name"
