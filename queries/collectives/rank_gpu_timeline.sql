-- name: rank_gpu_timeline
-- version: 1
-- kind: collective
-- description: Per rank: computation, exposed communication, idle and total GPU time, how much of its communication hides under computation, and how its collective time splits into waiting for other ranks and transfer (view rank_timeline).
-- order: 9
-- Columns:
--   rank_timeline.*: one row per rank
SELECT * FROM rank_timeline ORDER BY rank
