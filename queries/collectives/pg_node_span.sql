-- name: pg_node_span
-- version: 1
-- kind: view
-- description: Whether each process group's ranks sit on one node or span several, with contiguous placement (rank r on node r / gpus_per_node).
--
-- TraceLens's node_span column (spec collectives §4.9): 'unknown' when the
-- ranks cannot be read. No rows when gpus per node is unknown.
-- Columns:
--   process_group_ranks: the group's ranks as written ('[0, 1, 2, 3]')
--   node_span: intra_node, inter_node or unknown
WITH per_node AS (
  SELECT max(gpus_per_node) AS gpus FROM ranks
),
groups AS (
  SELECT DISTINCT process_group_ranks FROM comm_kernels
),
members AS (
  SELECT process_group_ranks,
    unnest(string_to_array(btrim(coalesce(process_group_ranks, ''), '[]() '), ',')) AS member
  FROM groups
),
nodes AS (
  SELECT m.process_group_ranks, TRY_CAST(btrim(m.member) AS BIGINT) / p.gpus AS node
  FROM members m CROSS JOIN per_node p
)
SELECT g.process_group_ranks,
  CASE WHEN count(n.node) = 0 THEN 'unknown'
       WHEN min(n.node) = max(n.node) THEN 'intra_node'
       ELSE 'inter_node' END AS node_span
FROM groups g
CROSS JOIN per_node p
LEFT JOIN nodes n ON n.process_group_ranks IS NOT DISTINCT FROM g.process_group_ranks
WHERE p.gpus IS NOT NULL
GROUP BY g.process_group_ranks
