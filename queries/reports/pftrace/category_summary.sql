-- name: pftrace_category_summary
-- version: 1
-- kind: report
-- formats: pftrace
-- order: 22
-- sheet: category_summary
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: Perfetto-style JSON: GPU time per TraceLens activity category (xla, gemm, attention, memcpy, rccl, ...) for each GPU, with communication overlap, then the average over GPUs.
--
-- TraceLens's pftrace activity report, sheet `category_summary` (spec formats.md §B.5), over
-- the events of view pftrace_activity_events that last at least 5 µs (min_event_ns = 5000; --set pftrace.min_event_ns=N).
-- For each GPU (agent first-seen index, every agent listed even when none of its events
-- count) 14 rows in this order: xla, aiterfwd, aiterbwd, gemm, ckbwd, ckfwd, te,
-- memcpy/memset, fillBuffer, rccl, overlapped_comm, non_overlapped_comm, compute_total
-- (all but rccl), total_incl_comm (compute_total + rccl); the last four have count 0.
-- Then one "Avg" row per category (alphabetical): the mean of each column over the GPUs.
-- Fractions are ratios (not percent) and can exceed 1 (total_incl_comm's compute fraction
-- does whenever there is rccl).
-- Under --tracelens-compat, overlapped_comm is TraceLens's two-pointer walk: for each
-- communication kernel c (sorted by start, duration, name) the sum of
-- max(0, min(end_k, c.end) - max(start_k, c.start)) over the compute kernels k (same
-- order) up to and including the first whose end is after c.end. Overlapping compute
-- kernels are counted twice and later ones can be missed, so non_overlapped_comm =
-- rccl time - overlapped_comm can go negative.
-- Default mode differs from TraceLens in one place:
--   * overlapped_comm is the length of the union of the communication kernels that lies
--     under the union of the compute kernels, and non_overlapped_comm the rest of that union
--     (uncovered_time); both are true interval measures, never negative.
-- Columns:
--   "GPU ID": GPU index (pftrace_agents.gpu), or Avg
--   Category: the category (see above)
--   "Total runtime (ms)": its time, ms
--   "Total count": its kernels (0 for the four derived rows; a float because of the Avg rows)
--   "Fraction of compute runtime": its time / compute_total (0 when compute_total is 0)
--   "Fraction of total runtime": its time / total_incl_comm (0 when that is 0)
WITH act AS (
  SELECT * FROM pftrace_activity_events WHERE dur_ns >= CAST(setting('pftrace.min_event_ns', '5000') AS BIGINT)
),
cats(category, label, pos) AS (
  VALUES ('xla', 'xla', 1), ('aiterfwd', 'aiterfwd', 2), ('aiterbwd', 'aiterbwd', 3),
         ('gemm', 'gemm', 4), ('ckbwd', 'ckbwd', 5), ('ckfwd', 'ckfwd', 6), ('te', 'te', 7),
         ('memcpy', 'memcpy/memset', 8), ('fillBuffer', 'fillBuffer', 9), ('rccl', 'rccl', 10)
),
per_cat AS (
  SELECT trace, gpu, category, sum(dur_ns) AS ns, count(*) AS cnt
  FROM act GROUP BY trace, gpu, category
),
base AS (
  SELECT g.trace, g.gpu, c.label, c.pos,
         COALESCE(p.ns, 0) AS ns, COALESCE(p.cnt, 0) AS cnt
  FROM pftrace_agents g CROSS JOIN cats c
  LEFT JOIN per_cat p ON p.trace = g.trace AND p.gpu = g.gpu AND p.category = c.category
),
totals AS (
  SELECT trace, gpu,
         sum(CASE WHEN label <> 'rccl' THEN ns ELSE 0 END) AS compute_ns,
         sum(CASE WHEN label = 'rccl' THEN ns ELSE 0 END) AS comm_ns
  FROM base GROUP BY trace, gpu
),
-- TraceLens's two-pointer walk (see the header). Pairs are found per 1 ms time bucket
-- (each interval listed in every bucket it touches; a pair counted in the bucket where its
-- intersection starts), so the join stays near-linear.
comp AS (
  SELECT trace, gpu, ts_ns AS s, ts_ns + dur_ns AS e,
         row_number() OVER (PARTITION BY trace, gpu ORDER BY ts_ns, dur_ns, name) AS idx
  FROM act WHERE category <> 'rccl'
),
comm AS (
  SELECT trace, gpu, uid, ts_ns AS s, ts_ns + dur_ns AS e FROM act WHERE category = 'rccl'
),
-- For each communication kernel: the index of the first compute kernel ending after it
-- (the walk's last step). Compute kernels' running maximum end is monotonic in the index,
-- so it is the first one whose running maximum passes c.end.
comp_reach AS (
  SELECT trace, gpu, idx,
         max(e) OVER (PARTITION BY trace, gpu ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS reach
  FROM comp
),
comm_stop AS (
  SELECT trace, gpu, uid, s, e, stop_idx FROM (
    SELECT trace, gpu, uid, s, e, is_comm,
           min(CASE WHEN NOT is_comm THEN idx END) OVER (
             PARTITION BY trace, gpu ORDER BY sort_key, idx
             ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS stop_idx
    FROM (
      -- sort_key puts a compute kernel whose reach equals c.end before c.
      SELECT trace, gpu, CAST(NULL AS BIGINT) AS uid, CAST(NULL AS BIGINT) AS s,
             CAST(NULL AS BIGINT) AS e, reach * 2 AS sort_key, idx IS NULL AS is_comm,
             CAST(idx AS BIGINT) AS idx
      FROM comp_reach
      UNION ALL
      SELECT trace, gpu, uid, s, e, e * 2 + 1 AS sort_key, uid IS NOT NULL AS is_comm,
             CAST(uid AS BIGINT) AS idx
      FROM comm
    )
  ) WHERE is_comm
),
comp_buckets AS (
  SELECT trace, gpu, idx, s, e, unnest(range(s / 1000000, (e - 1) / 1000000 + 1)) AS bucket
  FROM comp
),
comm_buckets AS (
  SELECT trace, gpu, uid, s, e, stop_idx, unnest(range(s / 1000000, (e - 1) / 1000000 + 1)) AS bucket
  FROM comm_stop
),
walk AS (
  SELECT c.trace, c.gpu,
         sum(LEAST(k.e, c.e) - GREATEST(k.s, c.s)) AS overlapped
  FROM comm_buckets c
  JOIN comp_buckets k ON k.trace = c.trace AND k.gpu = c.gpu AND k.bucket = c.bucket
  WHERE k.s < c.e AND k.e > c.s
    AND (c.stop_idx IS NULL OR k.idx <= c.stop_idx)
    AND GREATEST(k.s, c.s) / 1000000 = c.bucket
  GROUP BY c.trace, c.gpu
),
-- Default mode: interval measures over the unions.
unions AS (
  SELECT trace, gpu,
         uncovered_time(CAST(ts_ns AS DOUBLE), CAST(ts_ns + dur_ns AS DOUBLE), category = 'rccl') AS exposed,
         busy_time(CAST(ts_ns AS DOUBLE), CAST(ts_ns + dur_ns AS DOUBLE)) FILTER (WHERE category = 'rccl') AS comm_union
  FROM act GROUP BY trace, gpu
),
overlap AS (
  SELECT t.trace, t.gpu, t.compute_ns, t.comm_ns,
         CASE WHEN tracelens_compat() THEN CAST(COALESCE(w.overlapped, 0) AS DOUBLE)
              ELSE COALESCE(u.comm_union, 0) - COALESCE(u.exposed, 0) END AS overlapped_ns,
         CASE WHEN tracelens_compat() THEN CAST(t.comm_ns - COALESCE(w.overlapped, 0) AS DOUBLE)
              ELSE COALESCE(u.exposed, 0) END AS non_overlapped_ns
  FROM totals t
  LEFT JOIN walk w ON w.trace = t.trace AND w.gpu = t.gpu
  LEFT JOIN unions u ON u.trace = t.trace AND u.gpu = t.gpu
),
gpu_rows AS (
  SELECT b.trace, b.gpu, b.label, b.pos, CAST(b.ns AS DOUBLE) AS ns, b.cnt FROM base b
  UNION ALL
  SELECT trace, gpu, 'overlapped_comm', 11, overlapped_ns, 0 FROM overlap
  UNION ALL
  SELECT trace, gpu, 'non_overlapped_comm', 12, non_overlapped_ns, 0 FROM overlap
  UNION ALL
  SELECT trace, gpu, 'compute_total', 13, CAST(compute_ns AS DOUBLE), 0 FROM overlap
  UNION ALL
  SELECT trace, gpu, 'total_incl_comm', 14, CAST(compute_ns + comm_ns AS DOUBLE), 0 FROM overlap
),
fractions AS (
  SELECT r.trace, r.gpu, r.label, r.pos,
         r.ns / 1000000.0 AS ms,
         CAST(r.cnt AS DOUBLE) AS cnt,
         CASE WHEN o.compute_ns > 0 THEN r.ns / o.compute_ns ELSE 0.0 END AS f_compute,
         CASE WHEN o.compute_ns + o.comm_ns > 0 THEN r.ns / (o.compute_ns + o.comm_ns) ELSE 0.0 END AS f_total
  FROM gpu_rows r JOIN overlap o ON o.trace = r.trace AND o.gpu = r.gpu
),
out_rows AS (
  SELECT trace, 0 AS is_avg, gpu, pos, CAST(gpu AS VARCHAR) AS gpu_id, label,
         ms, cnt, f_compute, f_total
  FROM fractions
  UNION ALL
  SELECT trace, 1, NULL, NULL, 'Avg', label, avg(ms), avg(cnt), avg(f_compute), avg(f_total)
  FROM fractions GROUP BY trace, label
)
SELECT gpu_id AS "GPU ID", label AS "Category", ms AS "Total runtime (ms)", cnt AS "Total count",
       f_compute AS "Fraction of compute runtime", f_total AS "Fraction of total runtime"
FROM out_rows
ORDER BY trace, is_avg, gpu, pos, label
