-- name: pftrace_xla_top
-- version: 1
-- kind: report
-- formats: pftrace
-- order: 23
-- sheet: xla_top
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: Perfetto-style JSON: the 30 XLA-category kernels (TraceLens's catch-all category) with the most GPU time, across all GPUs.
--
-- TraceLens's pftrace activity report, sheet `xla_top` (spec formats.md §B.5): every event
-- of view pftrace_activity_events in category xla (whatever no other category claims),
-- summed by name over all GPUs. Unlike the other activity sheets it has no 5 µs minimum.
-- Sorted by total time, ties in first-seen (file) order; the first 30
-- (--set pftrace.top_xla=N). --set pftrace.merge_kernels=true removes the digits from the
-- names first, so fusion_7 and fusion_8 count as one.
-- Columns:
--   Kernel: kernel name
--   "Total time (ms)": its total time, ms
--   Count: its dispatches
--   "Fraction of XLA": its share of all xla time (ratio)
WITH keyed AS (
  SELECT trace, uid, dur_ns,
         CASE WHEN setting('pftrace.merge_kernels', 'false') = 'true'
              THEN regexp_replace(name, '[0-9]+', '', 'g') ELSE name END AS name
  FROM pftrace_activity_events
  WHERE category = 'xla'
),
agg AS (
  SELECT trace, name, sum(dur_ns) AS ns, count(*) AS cnt, min(uid) AS first_uid
  FROM keyed
  GROUP BY trace, name
),
ranked AS (
  SELECT a.*, sum(ns) OVER (PARTITION BY trace) AS all_ns,
         row_number() OVER (PARTITION BY trace ORDER BY ns DESC, first_uid) AS rn
  FROM agg a
)
SELECT name AS "Kernel", ns / 1000000.0 AS "Total time (ms)", cnt AS "Count",
       CAST(ns AS DOUBLE) / CASE WHEN all_ns = 0 THEN 1 ELSE all_ns END AS "Fraction of XLA"
FROM ranked
WHERE rn <= CAST(setting('pftrace.top_xla', '30') AS BIGINT)
ORDER BY trace, rn
