-- name: hta_events
-- version: 1
-- kind: view
-- description: The events Holistic Trace Analysis (HTA) analyses, per trace: what its reader keeps, with its whole-µs times, and only the profiled iterations' GPU work when the session has several.
--
-- HTA's analyses (temporal_breakdown, ...) start from this, as HTA does:
--  - an event with a duration and a category (not `Trace`): HTA's reader
--    drops the rest;
--  - times in whole µs: HTA moves each start up (ceil) and each end down
--    (floor of ts + dur) when a trace's times have fractions (no change on
--    integer times). An event shorter than a µs can end before it starts
--    then, and HTA counts that as negative busy time (a GPU idle for longer
--    than its span, or HTA's own AssertionError). Here such an event ends
--    where it starts (zero length); `--param hta.compat=true` keeps HTA's
--    negative lengths, to reproduce its numbers exactly (DIFFERENCES.md);
--  - GPU work is an event with a numeric args.stream other than -1 (HTA's
--    test), so a cpu_op that carries a stream counts too;
--  - with two or more distinct ProfilerStep#N names in the session, HTA drops
--    the last iteration: it keeps the CPU events that start before the last
--    ProfilerStep#N event off the GPU (a gpu_user_annotation counts: it has no
--    stream), and the GPU work whose correlation id one of those carries.
--    A trace with no such step event keeps no GPU work then, as in HTA.
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: event uid
--   cat: event category
--   name: event name
--   correlation: args.correlation
--   stream: args.stream (NULL: none, HTA's -1)
--   on_gpu: whether HTA counts it as GPU work (a stream other than -1)
--   ts: start, whole µs (HTA's ceil)
--   t_end: end, whole µs (HTA's floor of ts + dur, not before ts)
WITH timed AS (
  SELECT trace, rank, uid, cat, name, correlation, stream,
         coalesce(stream <> -1, false) AS on_gpu,
         ceil(ts) AS ts,
         CASE WHEN setting('hta.compat', 'false') = 'true' THEN floor(ts + dur)
              ELSE greatest(floor(ts + dur), ceil(ts)) END AS t_end
  FROM events
  WHERE dur IS NOT NULL AND cat IS NOT NULL AND cat <> 'Trace'
),
steps AS (
  SELECT count(DISTINCT name) AS distinct_steps
  FROM timed WHERE regexp_like(name, '^ProfilerStep#[0-9]')
),
cut AS (
  -- The last iteration's start; without a step event, the first CPU event
  -- (nothing starts before it), as HTA falls back.
  SELECT trace,
         coalesce(max(CASE WHEN regexp_like(name, '^ProfilerStep#[0-9]') THEN ts END), min(ts)) AS last_step
  FROM timed WHERE NOT on_gpu GROUP BY trace
),
kept_cpu AS (
  SELECT t.* FROM timed t JOIN cut c ON t.trace = c.trace
  WHERE NOT t.on_gpu AND t.ts < c.last_step
),
kept_correlations AS (
  SELECT DISTINCT trace, correlation FROM kept_cpu WHERE correlation >= 0
)
SELECT t.trace, t.rank, t.uid, t.cat, t.name, t.correlation, t.stream, t.on_gpu, t.ts, t.t_end
FROM timed t CROSS JOIN steps
WHERE steps.distinct_steps < 2
UNION ALL
SELECT trace, rank, uid, cat, name, correlation, stream, on_gpu, ts, t_end
FROM kept_cpu CROSS JOIN steps
WHERE steps.distinct_steps >= 2
UNION ALL
SELECT t.trace, t.rank, t.uid, t.cat, t.name, t.correlation, t.stream, t.on_gpu, t.ts, t.t_end
FROM timed t
JOIN kept_correlations k ON t.trace = k.trace AND t.correlation = k.correlation
CROSS JOIN steps
WHERE steps.distinct_steps >= 2 AND t.on_gpu
