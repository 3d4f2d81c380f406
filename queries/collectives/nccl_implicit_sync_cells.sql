-- name: nccl_implicit_sync_cells
-- version: 1
-- kind: view
-- description: The per-rank cells of nccl_implicit_sync (rank_<r>_ts, rank_<r>_dur, rank_<r>_wait_time), one row per cell, for its `-- spread_from:`.
-- Columns:
--   key: collective_id
--   ord: the order pandas meets the cell: instance position · 10^10, then every
--     rank's ts and dur, then every rank's wait
--   column: rank_<r>_ts, rank_<r>_dur or rank_<r>_wait_time
--   num: the value, µs
--   txt: always NULL
SELECT i.collective_id AS key, i.position * 10000000000 + i.rank * 2 AS ord,
  'rank_' || CAST(i.rank AS VARCHAR) || '_ts' AS "column", i.arrival AS num, CAST(NULL AS VARCHAR) AS txt
FROM collective_instances i JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
UNION ALL
SELECT i.collective_id, i.position * 10000000000 + i.rank * 2 + 1, 'rank_' || CAST(i.rank AS VARCHAR) || '_dur', i.dur, NULL
FROM collective_instances i JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
UNION ALL
SELECT i.collective_id, i.position * 10000000000 + 5000000000 + i.rank, 'rank_' || CAST(i.rank AS VARCHAR) || '_wait_time', i.wait_time, NULL
FROM collective_instances i JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
