-- name: coll_analysis
-- version: 1
-- kind: report
-- description: Collective kernel time per process group, call, size and stream of this trace (TraceLens's coll_analysis; the multi-rank view is `tracesql collectives`).
-- when: (SELECT count(*) FROM collective_summary_long) > 0
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; In msg nelems when SELECT in_nelems FROM comm_int_fields; Out msg nelems when SELECT out_nelems FROM comm_int_fields; dur_sum, dur_min, dur_max when SELECT times FROM comm_int_fields
--
-- Written when the trace has collective kernels with their metadata (PyTorch 2.x
-- copies it onto the kernel); a trace whose kernels lack it (older PyTorch) has
-- no such sheet, as in TraceLens. One rank's durations include the time spent
-- waiting for the other ranks: `tracesql collectives` over every rank's trace
-- separates the two. rank is the trace's distributedInfo.rank (TraceLens: 0,
-- the trace's position; so under --tracelens-compat).
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
SELECT CASE WHEN tracelens_compat() THEN 0 ELSE rank END AS rank,
  "Process Group Name", "Process Group Ranks", "Collective name", "Group size", dtype,
  "In msg nelems", "Out msg nelems", "In split size", "Out split size", stream,
  "In msg size (MB)_first", "Out msg size (MB)_first", dur_sum, dur_mean, dur_std, dur_min,
  dur_max, operation_count
FROM collective_summary_long
ORDER BY dur_sum DESC, rank, "Process Group Name", "Collective name"
