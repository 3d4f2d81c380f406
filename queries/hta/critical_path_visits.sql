-- name: critical_path_visits
-- version: 1
-- kind: view
-- cluster: in process
-- description: HTA's walk of its call stacks for the critical path, per trace and thread: each entry into and exit from an event that has graph nodes, in walk order, with the event's parent.
--
-- A thread (pid, thread of critical_path_events) has a call stack when none
-- of its events is on a GPU stream. interval_stack_walk builds it as HTA does:
-- endpoints by time; at one time an end before a start; of two starts the
-- longer first (then the lower uid), of two ends the shorter first (then the
-- higher uid); a start's parent is the event on top of the stack, an end
-- leaves whatever event is on top (not its own where events overlap without
-- nesting). HTA walks the stack depth first, which meets the endpoints in
-- that order.
-- Columns:
--   trace: trace name
--   thread_no: the thread's position among the trace's threads, by pid then thread (HTA's order)
--   pos: the endpoint's position in the thread (1, 2, ...)
--   is_start: an entry (else an exit)
--   owner: the event entered or left
--   parent: that event's parent in the call stack (-1: none)
--   node_ts: the node's time: the event's start or end, µs
--   is_lock: the event takes the runtime lock (critical_path_events)
--   is_blocking: the event is a blocking call (critical_path_events)
WITH threads AS (
  SELECT trace,
         CAST(row_number() OVER (PARTITION BY trace
                                 ORDER BY try_cast(pid AS BIGINT), pid, try_cast(thread AS BIGINT), thread) AS BIGINT) AS thread_no,
         interval_stack_walk(uid, CAST(ts AS DOUBLE), CAST(t_end AS DOUBLE)) AS walk
  FROM critical_path_events
  GROUP BY trace, pid, thread
  HAVING bool_and(stream < 0)
),
steps AS (
  SELECT trace, thread_no, step['pos'] AS pos, step['is_start'] AS is_start, step['uid'] AS owner,
         step['parent'] AS parent
  FROM (SELECT trace, thread_no, unnest(walk) AS step FROM threads)
)
SELECT s.trace, s.thread_no, s.pos, s.is_start, s.owner, s.parent,
       CASE WHEN s.is_start THEN e.ts ELSE e.t_end END AS node_ts,
       e.is_lock, e.is_blocking
FROM steps s
JOIN critical_path_events e ON e.trace = s.trace AND e.uid = s.owner
WHERE e.has_nodes
