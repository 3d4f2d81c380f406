-- name: nccl_summary_implicit_sync
-- version: 1
-- kind: collective
-- description: The implicit-sync instances grouped by collective, dtype and size: communication time, start and end skew and bandwidths (mean, median, min, max), count and total (TraceLens's nccl_summary_implicit_sync).
-- order: 1
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- drop_null_columns: algo bw (GB/s)_, bus bw (GB/s)_
-- integer_if: Group size when SELECT group_size FROM comm_int_fields; comm_latency_min, comm_latency_max, skew in start time_min, skew in start time_max, skew in end time_min, skew in end time_max when SELECT times FROM comm_int_fields
--
-- TraceLens groups by (Collective name, dtype, In msg nelems) only, so two
-- process groups of different sizes doing the same call merge into one row
-- labelled with the first one's group (spec collectives B5); default mode also
-- groups by Process Group Name and Group size. Missing keys read 'Unknown'.
-- The bandwidth columns are left out when no instance has one.
-- Columns:
--   "Collective name": the c10d call, or Unknown
--   dtype: element type, or Unknown
--   "In msg nelems": input elements, or Unknown
--   "Process Group Name": the first instance's
--   "Group size": the first instance's
--   "Full msg size (MB)": the first instance's, MiB
--   comm_latency_mean: mean of comm_latency, µs
--   comm_latency_median: median of comm_latency, µs
--   comm_latency_min: min of comm_latency, µs
--   comm_latency_max: max of comm_latency, µs
--   "skew in start time_mean": mean of skew in start time, µs
--   "skew in start time_median": median of skew in start time, µs
--   "skew in start time_min": min of skew in start time, µs
--   "skew in start time_max": max of skew in start time, µs
--   "skew in end time_mean": mean of skew in end time, µs
--   "skew in end time_median": median of skew in end time, µs
--   "skew in end time_min": min of skew in end time, µs
--   "skew in end time_max": max of skew in end time, µs
--   "algo bw (GB/s)_mean": mean of algo bw (GB/s), GiB/s
--   "algo bw (GB/s)_median": median of algo bw (GB/s), GiB/s
--   "algo bw (GB/s)_min": min of algo bw (GB/s), GiB/s
--   "algo bw (GB/s)_max": max of algo bw (GB/s), GiB/s
--   "bus bw (GB/s)_mean": mean of bus bw (GB/s), GiB/s
--   "bus bw (GB/s)_median": median of bus bw (GB/s), GiB/s
--   "bus bw (GB/s)_min": min of bus bw (GB/s), GiB/s
--   "bus bw (GB/s)_max": max of bus bw (GB/s), GiB/s
--   count: instances
--   "Total comm latency (ms)": sum of comm_latency, ms
WITH keyed AS (
  SELECT s.*,
    coalesce(s.collective_name, 'Unknown') AS name_key,
    coalesce(s.dtype, 'Unknown') AS dtype_key,
    CASE WHEN s.in_msg_nelems IS NULL THEN 'Unknown'
         WHEN f.in_nelems THEN CAST(s.in_msg_nelems AS VARCHAR)
         ELSE CAST(s.in_msg_nelems AS VARCHAR) || '.0' END AS nelems_key,
    CASE WHEN tracelens_compat() THEN '' ELSE s.pg_key || '/' || coalesce(CAST(s.group_size AS VARCHAR), '') END
      AS group_key
  FROM implicit_sync_instances s CROSS JOIN comm_int_fields f
)
SELECT name_key AS "Collective name", dtype_key AS dtype, nelems_key AS "In msg nelems",
  first_value(pg_key ORDER BY position) AS "Process Group Name",
  CAST(first_value(group_size ORDER BY position) FILTER (WHERE group_size IS NOT NULL) AS DOUBLE)
    AS "Group size",
  first_value(full_msg_mb ORDER BY position) FILTER (WHERE full_msg_mb IS NOT NULL)
    AS "Full msg size (MB)",
  avg(comm_latency) AS comm_latency_mean, median(comm_latency) AS comm_latency_median,
  min(comm_latency) AS comm_latency_min, max(comm_latency) AS comm_latency_max,
  avg(skew_start) AS "skew in start time_mean", median(skew_start) AS "skew in start time_median",
  min(skew_start) AS "skew in start time_min", max(skew_start) AS "skew in start time_max",
  avg(skew_end) AS "skew in end time_mean", median(skew_end) AS "skew in end time_median",
  min(skew_end) AS "skew in end time_min", max(skew_end) AS "skew in end time_max",
  avg(algbw_gib_s) AS "algo bw (GB/s)_mean", median(algbw_gib_s) AS "algo bw (GB/s)_median",
  min(algbw_gib_s) AS "algo bw (GB/s)_min", max(algbw_gib_s) AS "algo bw (GB/s)_max",
  avg(busbw_gib_s) AS "bus bw (GB/s)_mean", median(busbw_gib_s) AS "bus bw (GB/s)_median",
  min(busbw_gib_s) AS "bus bw (GB/s)_min", max(busbw_gib_s) AS "bus bw (GB/s)_max",
  count(*) AS count,
  sum(comm_latency) / 1000.0 AS "Total comm latency (ms)"
FROM keyed
GROUP BY name_key, dtype_key, nelems_key, group_key
ORDER BY "Total comm latency (ms)" DESC, "Collective name", dtype, "In msg nelems"
