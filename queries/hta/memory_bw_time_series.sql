-- name: memory_bw_time_series
-- version: 1
-- kind: report
-- order: 912
-- runs: on request
-- description: HTA's memory bandwidth time series: per rank and memory type (Memcpy HtoD, Memcpy DtoH, ..., Memset), the summed bandwidth of the copies or sets running, GB/s, at each start and end (HTA's get_memory_bw_time_series, every rank).
--
-- The rows of hta_memory_bw, with HTA's columns: its comment says how the series is
-- built and where it differs from HTA by default (DIFFERENCES.md);
-- `--param hta.compat=true` gives HTA's numbers. Times are whole µs from the
-- session's earliest event, as HTA aligns its ranks.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   ts: time of the start or end, whole µs from the session's earliest event
--   pid: the operation's pid (the device)
--   name: memory type: Memcpy HtoD, Memcpy DtoH, Memcpy DtoD, ..., Memcpy Unknown or Memset
--   memory_bw_gbps: summed bandwidth of the type's running operations just after the event, GB/s
SELECT rank, rel_ts AS ts, pid, memory_type AS name, memory_bw_gbps
FROM hta_memory_bw
ORDER BY rank, trace, name, rel_ts, tie_order, uid
