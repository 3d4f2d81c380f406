-- name: critical_path_stack
-- version: 1
-- kind: view
-- description: HTA's call stacks for its critical path, per trace and thread: the start and end of each event of critical_path_events in the order HTA sorts them, and how deep the stack is before each.
--
-- A thread (pid, thread) has a call stack when none of its events is on a
-- GPU stream. HTA's order: by time; at one time an end before a start; of
-- two starts the longer first (then the lower uid); of two ends the
-- shorter first (then the higher uid). A start pushes its event, an end
-- pops whatever event is on top (not necessarily its own, where events
-- overlap without nesting).
-- Columns:
--   trace: trace name
--   thread_no: the thread's position among the trace's threads, by pid then thread (HTA's order)
--   pos: the endpoint's position in the thread (1, 2, ...)
--   uid: the event
--   is_start: a start (else an end)
--   at: its time, µs
--   depth: events on the stack before it
WITH threads AS (
  SELECT trace, pid, thread,
         CAST(row_number() OVER (PARTITION BY trace
                                 ORDER BY try_cast(pid AS BIGINT), pid, try_cast(thread AS BIGINT), thread) AS BIGINT) AS thread_no
  FROM critical_path_events
  GROUP BY trace, pid, thread
  HAVING bool_and(stream < 0)
),
endpoints AS (
  SELECT e.trace, n.thread_no, e.uid, s.is_start, CASE WHEN s.is_start THEN e.ts ELSE e.t_end END AS at, e.dur
  FROM critical_path_events e
  JOIN threads n ON n.trace = e.trace AND n.pid = e.pid AND n.thread = e.thread
  CROSS JOIN (VALUES (true), (false)) AS s(is_start)
),
ordered AS (
  SELECT *,
         CAST(row_number() OVER (PARTITION BY trace, thread_no
                                 ORDER BY at, is_start,
                                          CASE WHEN is_start THEN -dur ELSE dur END,
                                          CASE WHEN is_start THEN uid ELSE -uid END) AS BIGINT) AS pos
  FROM endpoints
)
SELECT trace, thread_no, pos, uid, is_start, at,
       coalesce(sum(CASE WHEN is_start THEN 1 ELSE -1 END)
         OVER (PARTITION BY trace, thread_no ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS depth
FROM ordered
