-- name: pftrace_hip_summary
-- version: 1
-- kind: report
-- formats: pftrace
-- order: 25
-- sheet: hip_summary
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- drop_columns_if: Stream when SELECT strpos(setting('pftrace.hip_summary_group', 'name'), 'stream') = 0 ; Op when SELECT strpos(setting('pftrace.hip_summary_group', 'name'), 'op') = 0
-- description: Perfetto-style JSON: HIP API calls of at least 5 µs grouped by name, nsys-style, with time statistics and share of API time.
--
-- TraceLens's pftrace activity report, sheet `hip_summary` in its default `name` grouping
-- (spec formats.md §B.5): events whose category is exactly hip_api, timed with the
-- activity extractor (args.begin_ns and args.delta_ns when both are written, else int(ts)
-- and int(dur), ×1000 when ts < 1e10), dropping durations <= 0, JSON tids (else args.tid)
-- outside ±1e9 and, as for kernels, calls shorter than 5 µs (min_event_ns = 5000): most
-- launches vanish. "Time %" is against all kept API time. Sorted by total time (ties by name).
-- Pretty times: py_format(ns, 'human_ns'): ≥ 1e6 ns "%.3f ms", ≥ 1e3 ns "%.3f μs", else the
-- truncated integer "N ns".
-- --set pftrace.hip_summary_group=name+stream, name+op or name+stream+op (TraceLens's
-- option; default name) also groups by stream and/or operation, in columns Stream and Op;
-- pftrace.min_event_ns, min_tid and max_tid as for the other activity sheets.
-- Columns:
--   Time: "Time %" as "12.3%"
--   "Total Time": Total Time (ns) as a pretty time
--   Instances: calls
--   Avg: Avg (ns) as a pretty time
--   Med: Med (ns) as a pretty time
--   Min: Min (ns) as a pretty time
--   Max: Max (ns) as a pretty time
--   StdDev: StdDev (ns) as a pretty time
--   Stream: args.stream_ID, 0 when absent (only when the grouping has stream)
--   Op: args.operation, rocprofv3's operation id, 0 when absent (only when the grouping has op)
--   Name: API function
--   "Time %": total / all kept API time · 100
--   "Total Time (ns)": total duration, ns
--   "Avg (ns)": mean duration, ns
--   "Med (ns)": median duration, ns
--   "Min (ns)": shortest, ns
--   "Max (ns)": longest, ns
--   "StdDev (ns)": population standard deviation, ns
WITH timed AS (
  SELECT a.trace, CAST(e.name AS VARCHAR) AS name, a.begin_ns, a.delta_ns, a.thread_id,
         COALESCE(a.stream_id, 0) AS stream, COALESCE(a.operation, 0) AS op,
         CAST(trunc(COALESCE(e.ts, 0)) AS BIGINT) AS ts_int,
         CAST(trunc(COALESCE(e.dur, 0)) AS BIGINT) AS dur_int,
         COALESCE(TRY_CAST(CAST(e.tid AS VARCHAR) AS BIGINT), a.thread_id, -1) AS tid
  FROM api_calls a JOIN events e ON e.trace = a.trace AND e.uid = a.uid
  WHERE CAST(a.domain AS VARCHAR) = 'hip_api' AND a.trace IN (SELECT trace FROM pftrace_traces)
),
calls AS (
  SELECT trace, COALESCE(name, '') AS name,
         CASE WHEN strpos(setting('pftrace.hip_summary_group', 'name'), 'stream') > 0 THEN stream END AS stream,
         CASE WHEN strpos(setting('pftrace.hip_summary_group', 'name'), 'op') > 0 THEN op END AS op,
         CASE WHEN begin_ns IS NOT NULL AND delta_ns IS NOT NULL THEN delta_ns
              WHEN ts_int < 10000000000 THEN dur_int * 1000 ELSE dur_int END AS dur_ns
  FROM timed
  WHERE tid BETWEEN CAST(setting('pftrace.min_tid', '-1000000000') AS BIGINT)
                AND CAST(setting('pftrace.max_tid', '1000000000') AS BIGINT)
),
kept AS (
  SELECT * FROM calls WHERE dur_ns > 0 AND dur_ns >= CAST(setting('pftrace.min_event_ns', '5000') AS BIGINT)
),
baseline AS (
  SELECT trace, sum(dur_ns) AS ns FROM kept GROUP BY trace
),
groups AS (
  SELECT trace, name, stream, op, sum(dur_ns) AS total, count(*) AS n,
         avg(CAST(dur_ns AS DOUBLE)) AS mean, median(CAST(dur_ns AS DOUBLE)) AS med,
         min(dur_ns) AS lo, max(dur_ns) AS hi, stddev_pop(CAST(dur_ns AS DOUBLE)) AS std
  FROM kept GROUP BY trace, name, stream, op
),
shares AS (
  SELECT g.*, CASE WHEN b.ns > 0 THEN CAST(g.total AS DOUBLE) / b.ns ELSE 0.0 END * 100.0 AS pct
  FROM groups g JOIN baseline b ON b.trace = g.trace
)
SELECT py_format(pct, '.1f') || '%' AS "Time",
       py_format(total, 'human_ns') AS "Total Time",
       n AS "Instances",
       py_format(mean, 'human_ns') AS "Avg",
       py_format(med, 'human_ns') AS "Med",
       py_format(lo, 'human_ns') AS "Min",
       py_format(hi, 'human_ns') AS "Max",
       py_format(std, 'human_ns') AS "StdDev",
       stream AS "Stream", op AS "Op", name AS "Name", pct AS "Time %", total AS "Total Time (ns)", mean AS "Avg (ns)",
       med AS "Med (ns)", lo AS "Min (ns)", hi AS "Max (ns)", std AS "StdDev (ns)"
FROM shares
ORDER BY trace, total DESC, name, stream, op
