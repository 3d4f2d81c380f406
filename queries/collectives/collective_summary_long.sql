-- name: collective_summary_long
-- version: 1
-- kind: view
-- description: Collective kernels grouped by rank, process group, call, sizes and stream: time and count per group (TraceLens's nccl_summary_long and the single-trace coll_analysis).
--
-- A kernel missing any key (no metadata, or simplified mode) is in no group,
-- as pandas' groupby drops rows with a missing key.
-- Columns:
--   rank: the rank
--   "Process Group Name": process group (Unknown_Group / all as in nccl_long)
--   "Process Group Ranks": its ranks, as written
--   "Collective name": the c10d call
--   "Group size": ranks in the group
--   dtype: element type
--   "In msg nelems": input elements
--   "Out msg nelems": output elements
--   "In split size": input split, as written
--   "Out split size": output split, as written
--   stream: the kernels' stream
--   "In msg size (MB)_first": the group's first input size, MiB
--   "Out msg size (MB)_first": the group's first output size, MiB
--   dur_sum: total kernel time, µs
--   dur_mean: mean, µs
--   dur_std: sample standard deviation, µs (empty for one kernel)
--   dur_min: shortest, µs
--   dur_max: longest, µs
--   operation_count: kernels
SELECT rank, pg_key AS "Process Group Name", process_group_ranks AS "Process Group Ranks",
  collective_name AS "Collective name", CAST(group_size AS DOUBLE) AS "Group size", dtype,
  CAST(in_msg_nelems AS DOUBLE) AS "In msg nelems", CAST(out_msg_nelems AS DOUBLE) AS "Out msg nelems",
  in_split_size AS "In split size", out_split_size AS "Out split size", stream,
  first_value(in_msg_mb ORDER BY rank, uid) FILTER (WHERE in_msg_mb IS NOT NULL) AS "In msg size (MB)_first",
  first_value(out_msg_mb ORDER BY rank, uid) FILTER (WHERE out_msg_mb IS NOT NULL) AS "Out msg size (MB)_first",
  sum(dur) AS dur_sum, avg(dur) AS dur_mean, stddev(dur) AS dur_std,
  min(dur) AS dur_min, max(dur) AS dur_max, count(*) AS operation_count
FROM collective_matching
WHERE pg_key IS NOT NULL AND process_group_ranks IS NOT NULL AND collective_name IS NOT NULL
  AND group_size IS NOT NULL AND dtype IS NOT NULL AND in_msg_nelems IS NOT NULL
  AND out_msg_nelems IS NOT NULL AND in_split_size IS NOT NULL AND out_split_size IS NOT NULL
  AND stream IS NOT NULL
GROUP BY rank, pg_key, process_group_ranks, collective_name, group_size, dtype, in_msg_nelems,
  out_msg_nelems, in_split_size, out_split_size, stream
