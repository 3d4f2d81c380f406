-- name: queue_length_time_series
-- version: 1
-- kind: report
-- order: 910
-- runs: on request
-- description: HTA's queue length time series: per rank and stream, the number of operations launched but not yet started on the GPU, after each launch and each start (HTA's get_queue_length_time_series, every rank).
--
-- The rows of hta_queue_length, with HTA's columns: its comment says how the series is
-- built and where it differs from HTA by default (DIFFERENCES.md);
-- `--param hta.compat=true` gives HTA's numbers. Times are whole µs from the
-- session's earliest event, as HTA aligns its ranks.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   index: uid of the event (HTA's index): the launch call, or the GPU operation
--   ts: time of the event, whole µs from the session's earliest event
--   pid: the GPU operation's pid (the device)
--   tid: the GPU operation's tid
--   stream: the GPU operation's stream
--   queue_length: operations queued on the stream just after the event
SELECT rank, uid AS "index", CAST(rel_ts AS BIGINT) AS ts, pid, tid, stream, queue_length
FROM hta_queue_length
ORDER BY rank, trace, stream, device, rel_ts, is_start, uid, op_uid
