-- name: nccl_all2allv_heatmap
-- version: 1
-- kind: collective
-- description: Data each rank sent each peer in all_to_allv, summed over instances: one row per (source, destination) pair (TraceLens's nccl_all2allv_heatmap).
-- order: 4
--
-- A split size is a row count (all_to_all_single splits dim 0), and its index
-- is the peer's position in the process group. TraceLens counts split·bytes
-- per element as bytes (low by the row width) and uses the position as the
-- destination rank (wrong in a sub-group; spec collectives §4.7); default mode
-- scales rows to elements (In msg nelems / Σ splits per row) and maps the
-- position to the group's global rank. A row whose split list does not have
-- Group size entries, or whose dtype has no size, is skipped.
-- Columns:
--   src_rank: the sending rank
--   dst_rank: the receiving rank (TraceLens: the group position)
--   "total_sent_MB": MiB sent over all instances
--   "avg_sent_MB": per instance
--   count: instances
WITH rows AS (
  SELECT m.rank, m.in_msg_nelems, m.group_size, m.in_msg_mb,
    CAST(string_to_array(btrim(m.in_split_size, '[]() '), ',') AS BIGINT[]) AS splits,
    string_to_array(btrim(coalesce(m.process_group_ranks, ''), '[]() '), ',') AS members
  FROM collective_matching m
  WHERE m.collective_name = 'all_to_allv' AND m.in_split_size IS NOT NULL
    AND m.in_msg_mb IS NOT NULL AND m.in_msg_nelems IS NOT NULL
),
bytes_per_element AS (
  SELECT *, in_msg_mb * 1048576.0 / in_msg_nelems AS bpe FROM rows
  WHERE cardinality(splits) = group_size AND in_msg_nelems > 0
),
pairs AS (
  SELECT rank, bpe, splits, members, in_msg_nelems, unnest(range(1, CAST(cardinality(splits) AS BIGINT) + 1)) AS j
  FROM bytes_per_element
),
sent AS (
  SELECT rank AS src_rank,
    CASE WHEN tracelens_compat() THEN j - 1
         ELSE coalesce(TRY_CAST(btrim(array_element(members, j)) AS BIGINT), j - 1) END AS dst_rank,
    CASE WHEN tracelens_compat() THEN array_element(splits, j) * bpe
         ELSE array_element(splits, j) * (CAST(in_msg_nelems AS DOUBLE)
              / nullif(array_sum(splits), 0)) * bpe END AS bytes
  FROM pairs
)
SELECT src_rank, dst_rank, sum(bytes) / 1048576.0 AS "total_sent_MB",
  sum(bytes) / 1048576.0 / count(*) AS "avg_sent_MB", count(*) AS count
FROM sent
GROUP BY src_rank, dst_rank
ORDER BY src_rank, dst_rank
