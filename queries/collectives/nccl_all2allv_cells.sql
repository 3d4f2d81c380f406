-- name: nccl_all2allv_cells
-- version: 1
-- kind: view
-- description: The per-rank cells of nccl_all2allv (rank_<r>_ts, _dur, _In msg nelems, ..., _skew in end time), one row per cell, for its `-- spread_from:`.
-- Columns:
--   key: collective_id
--   ord: the order pandas meets the cell: instance position · 10^10, then each
--     rank's eight values, then each rank's two skews
--   column: the cell's column name
--   num: a number
--   txt: the split sizes, as written
WITH r AS (
  SELECT i.*, 'rank_' || CAST(i.rank AS VARCHAR) || '_' AS prefix,
    min(i.arrival) OVER (PARTITION BY i.collective_id) AS first_start,
    max(i.t_end) OVER (PARTITION BY i.collective_id) AS last_end
  FROM collective_instances i JOIN all2allv_instances a ON a.collective_id = i.collective_id
)
SELECT collective_id AS key, position * 10000000000 + rank * 8 AS ord, prefix || 'ts' AS "column", arrival AS num, CAST(NULL AS VARCHAR) AS txt FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 1, prefix || 'dur', dur, NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 2, prefix || 'In msg nelems', CAST(rank_in_msg_nelems AS DOUBLE), NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 3, prefix || 'Out msg nelems', CAST(rank_out_msg_nelems AS DOUBLE), NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 4, prefix || 'In msg size (MB)', rank_in_msg_mb, NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 5, prefix || 'Out msg size (MB)', rank_out_msg_mb, NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 6, prefix || 'In split size', NULL, rank_in_split_size FROM r
UNION ALL SELECT collective_id, position * 10000000000 + rank * 8 + 7, prefix || 'Out split size', NULL, rank_out_split_size FROM r
UNION ALL SELECT collective_id, position * 10000000000 + 5000000000 + rank * 2, prefix || 'skew in start time', arrival - first_start, NULL FROM r
UNION ALL SELECT collective_id, position * 10000000000 + 5000000000 + rank * 2 + 1, prefix || 'skew in end time', last_end - t_end, NULL FROM r
