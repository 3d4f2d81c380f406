-- name: pftrace_agents
-- version: 1
-- kind: view
-- description: Perfetto-style JSON: each distinct args.agent string and the GPU index TraceLens gives it (first-seen order in the file).
--
-- TraceLens's pftrace reports number GPUs by the first-seen order of the distinct truthy
-- args.agent strings over the whole event list in file order, 0..N-1 (spec formats.md §B.3):
-- "Agent-3" is GPU 0 when it appears first. This is not the GPU ordinal.
-- The agents come from the events tracesql reads args.agent of: kernel-like events
-- (kernel_dispatches) and API calls (api_calls).
-- Columns:
--   trace: the trace file the row comes from
--   agent: the agent string as written ('Agent-2', 'gpu_0')
--   gpu: its index, 0-based, in first-seen order
--   first_uid: uid of the first event naming it
WITH named AS (
  SELECT trace, CAST(agent AS VARCHAR) AS agent, uid FROM kernel_dispatches WHERE agent IS NOT NULL AND trace IN (SELECT trace FROM pftrace_traces)
  UNION ALL
  SELECT trace, CAST(agent AS VARCHAR) AS agent, uid FROM api_calls WHERE agent IS NOT NULL AND trace IN (SELECT trace FROM pftrace_traces)
),
seen AS (
  SELECT n.trace, n.agent, min(n.uid) AS first_uid
  FROM named n
  JOIN trace_meta m ON m.trace = n.trace AND m.key = 'source_format' AND m.value = '"pftrace"'
  GROUP BY n.trace, n.agent
)
SELECT trace, agent,
       row_number() OVER (PARTITION BY trace ORDER BY first_uid) - 1 AS gpu,
       first_uid
FROM seen
