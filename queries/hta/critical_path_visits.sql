-- name: critical_path_visits
-- version: 1
-- kind: view
-- description: HTA's walk of its call stacks for the critical path, per trace and thread: each entry into and exit from an event that has graph nodes, in walk order, with the event's parent.
--
-- The stack's top at an endpoint is the last start one level down
-- (critical_path_stack): a start's parent (-1: none), and the event an end
-- exits. HTA walks each stack depth first, children in start order, which
-- is the endpoints' order with each end exiting the event on top.
-- Columns:
--   trace: trace name
--   thread_no: the thread (critical_path_stack)
--   pos: the endpoint's position in the thread
--   is_start: an entry (else an exit)
--   owner: the event entered or exited
--   parent: that event's parent in the call stack (-1: none)
--   node_ts: the node's time: the event's start or end, µs
--   is_lock: the event takes the runtime lock (critical_path_events)
--   is_blocking: the event is a blocking call (critical_path_events)
WITH lookup AS (
  SELECT trace, thread_no, pos, query,
         max(CASE WHEN NOT query THEN pos END)
           OVER (PARTITION BY trace, thread_no, level ORDER BY pos ROWS UNBOUNDED PRECEDING) AS top_pos
  FROM (SELECT trace, thread_no, pos, depth AS level, false AS query FROM critical_path_stack WHERE is_start
        UNION ALL
        SELECT trace, thread_no, pos, depth - 1 AS level, true AS query FROM critical_path_stack WHERE depth >= 1)
),
walk AS (
  SELECT s.trace, s.thread_no, s.pos, s.is_start,
         CASE WHEN s.is_start THEN s.uid ELSE t.uid END AS owner,
         CASE WHEN s.is_start THEN coalesce(t.uid, -1) END AS start_parent
  FROM critical_path_stack s
  LEFT JOIN lookup q ON q.trace = s.trace AND q.thread_no = s.thread_no AND q.pos = s.pos AND q.query
  LEFT JOIN critical_path_stack t ON t.trace = q.trace AND t.thread_no = q.thread_no AND t.pos = q.top_pos
)
SELECT w.trace, w.thread_no, w.pos, w.is_start, w.owner,
       max(w.start_parent) OVER (PARTITION BY w.trace, w.thread_no, w.owner) AS parent,
       CASE WHEN w.is_start THEN e.ts ELSE e.t_end END AS node_ts,
       e.is_lock, e.is_blocking
FROM walk w
JOIN critical_path_events e ON e.trace = w.trace AND e.uid = w.owner
WHERE e.has_nodes
