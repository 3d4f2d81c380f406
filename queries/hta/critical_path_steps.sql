-- name: critical_path_steps
-- version: 1
-- kind: view
-- cluster: in process
-- description: HTA's critical path, per trace: the edges of critical_path_graph on the longest path from its first node to its last, in path order (networkx's dag_longest_path, ties broken as HTA's graph breaks them).
--
-- The path is the longest in µs, negative weights counting as 0;
-- dag_longest_path takes the edges in critical_path_graph's order (ord), so
-- of paths of equal length the one HTA reports is chosen.
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   step: the edge's position on the path (1, 2, ...)
--   ord: the edge (critical_path_graph.ord)
--   src_uid: the event of the source node
--   src_start: whether the source is the event's start (else its end)
--   src_ts: the source's time, µs
--   dst_uid: the event of the destination node
--   dst_start: whether the destination is the event's start
--   dst_ts: the destination's time, µs
--   type: operator, dependency, kernel_launch_delay, kernel_kernel_delay or sync_dependency
--   weight: µs (HTA's duration, negative where a rounded kernel ends before it starts)
--   event_uid: the event the edge is attributed to (NULL: none)
--   bound_by: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead or '' (dependencies)
WITH paths AS (
  SELECT trace,
         dag_longest_path(2 * src_uid + CASE WHEN src_start THEN 0 ELSE 1 END,
                          2 * dst_uid + CASE WHEN dst_start THEN 0 ELSE 1 END,
                          CAST(greatest(weight, 0) AS DOUBLE), ord) AS path
  FROM critical_path_graph
  GROUP BY trace
),
steps AS (
  SELECT trace, step['step'] AS step, step['ord'] AS ord
  FROM (SELECT trace, unnest(path) AS step FROM paths)
)
SELECT g.trace, g.rank, s.step, g.ord, g.src_uid, g.src_start, g.src_ts, g.dst_uid, g.dst_start, g.dst_ts,
       g.type, g.weight, g.event_uid, g.bound_by
FROM steps s
JOIN critical_path_graph g ON g.trace = s.trace AND g.ord = s.ord
