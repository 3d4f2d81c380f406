-- name: run_facts
-- version: 1
-- kind: view
-- description: Per trace, what a comparison needs to know to pool or normalize it: the number of profiler steps it recorded.
--
-- `tracesql compare` reads this in each side's session; two traces that
-- profiled different numbers of steps are compared per step.
-- One row per trace.
-- Columns:
--   trace: the trace file the row comes from
--   profiler_steps: distinct ProfilerStep#N annotations (0 when the trace has none)
SELECT t.trace, coalesce(s.steps, 0) AS profiler_steps
FROM (SELECT DISTINCT trace FROM trace_meta) t
LEFT JOIN (
  SELECT trace, count(DISTINCT name) AS steps
  FROM events
  WHERE name LIKE 'ProfilerStep#%'
  GROUP BY trace
) s ON s.trace = t.trace
