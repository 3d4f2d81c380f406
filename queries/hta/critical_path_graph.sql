-- name: critical_path_graph
-- version: 1
-- kind: view
-- cluster: in process
-- description: The graph of HTA's critical path analysis, per trace: its edges between the starts and ends of CPU operators, runtime calls and GPU kernels, with their weights, types and the events they are attributed to, in the order HTA adds them (which decides between paths of equal length).
--
-- The events are critical_path_events: one instance of an annotation
-- (`hta.annotation`, `hta.instance`). A node is the start or end of a CPU
-- operator, a runtime or driver call, or a launched GPU event. Edges, in
-- HTA's order:
--  1. runtime lock: each cudaLaunchKernel, cudaMemcpyAsync or cudaHostAlloc
--     from its start to its end (operator). Calls on several threads that
--     overlap instead link every start to the first end after it, and each
--     end to the next (dependency);
--  2. call stacks, per thread (a backward thread joins the forward one when
--     one thread has the "forward" ops and another the "autograd" ones):
--     every endpoint to the next in the thread's call stack, the stack built
--     as HTA does (events by start, longer first; an end closes the event on
--     top). A gap between top-level operators is a dependency of weight 0,
--     and so is a blocking call (cudaDeviceSynchronize,
--     cudaStreamSynchronize, cudaEventQuery, cudaEventSynchronize,
--     cudaMemcpy, cudaMemcpyAsync) from its last child to its end; two
--     endpoints of lock calls are not linked here (edge 1 links them);
--  3. GPU, in start order (a cuda_sync event at its end): each kernel from
--     its start to its end (operator); from its launch call's start
--     (kernel_launch_delay) when the stream's queue was empty at the launch
--     and the stream's previous kernel had ended, else from the previous
--     kernel's end (kernel_kernel_delay) when the gap is under 1500 µs; a
--     Stream Sync event links the stream's last kernel, and a Context Sync
--     every stream's, to the end of the CPU call that waited (sync_dependency,
--     weight 0). CUDA event waits (critical_path_waits, read with `--param
--     hta.cuda_event_waits=true` or under `hta.compat`): an Event Sync links
--     the work launched last before the cudaEventRecord it waits for to the
--     end of the CPU call, a Stream Wait Event links it to the start of the
--     next kernel its thread launches onto the waiting stream, whose launch
--     delay or gap then counts only if that work had ended before.
-- The weight is the time from source to destination (0 for dependencies);
-- negative weights count as 0 on the path (HTA's graph) but as themselves
-- in critical_path_summary (HTA's summary). An edge is attributed to an
-- event: a kernel or the previous kernel, the operator whose time it is, or
-- for the gap between two children the parent. Not modelled: data loading
-- events (HTA's data_load_events).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   ord: the edge's position in HTA's insertion order (1, 2, ...)
--   src_uid: the event of the source node
--   src_start: whether the source is the event's start (else its end)
--   src_ts: the source's time, µs
--   dst_uid: the event of the destination node
--   dst_start: whether the destination is the event's start
--   dst_ts: the destination's time, µs
--   type: operator, dependency, kernel_launch_delay, kernel_kernel_delay or sync_dependency
--   weight: µs (dst_ts - src_ts; 0 for dependencies and blocking calls)
--   event_uid: the event the edge is attributed to (NULL: none)
--   bound_by: what the edge's time is bound by, as HTA says: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead, or '' for dependencies
WITH lock_nodes AS (
  -- 1. The runtime lock: its calls' starts and ends in time order.
  SELECT trace, uid, is_start, node_ts,
         CAST(row_number() OVER (PARTITION BY trace ORDER BY node_ts, uid, is_start DESC) AS BIGINT) AS p
  FROM (SELECT e.trace, e.uid, s.is_start, CASE WHEN s.is_start THEN e.ts ELSE e.t_end END AS node_ts
        FROM critical_path_events e CROSS JOIN (VALUES (true), (false)) AS s(is_start)
        WHERE e.has_nodes AND e.is_lock)
),
lock_seq AS (
  SELECT *,
         min(CASE WHEN NOT is_start THEN p END)
           OVER (PARTITION BY trace ORDER BY p ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS first_end,
         lag(is_start) OVER (PARTITION BY trace ORDER BY p) AS prev_start,
         lag(uid) OVER (PARTITION BY trace ORDER BY p) AS prev_uid,
         lag(node_ts) OVER (PARTITION BY trace ORDER BY p) AS prev_ts
  FROM lock_nodes
),
lock_edges AS (
  -- Each end takes the starts since the previous end, latest first.
  SELECT s.trace, 1 AS pass, e.p AS k1, -s.p AS k2, 0 AS k3,
         s.uid AS src_uid, true AS src_start, s.node_ts AS src_ts,
         e.uid AS dst_uid, false AS dst_start, e.node_ts AS dst_ts,
         CASE WHEN s.uid = e.uid THEN 'operator' ELSE 'dependency' END AS type,
         CASE WHEN s.uid = e.uid THEN e.node_ts - s.node_ts ELSE 0 END AS weight,
         CASE WHEN s.uid = e.uid THEN s.uid END AS event_uid, false AS comm
  FROM lock_seq s JOIN lock_seq e ON e.trace = s.trace AND e.p = s.first_end
  WHERE s.is_start
  UNION ALL
  SELECT trace, 1, p, 0, 1, prev_uid, false, prev_ts, uid, false, node_ts, 'dependency', 0, NULL, false
  FROM lock_seq
  WHERE NOT is_start AND NOT prev_start
),
-- 2. The call stacks.,
-- 2. The call stacks.
stack_edges AS (
  SELECT trace, 2 AS pass, thread_no AS k1, pos AS k2, 0 AS k3,
         prev_owner AS src_uid, prev_start AS src_start, prev_ts AS src_ts,
         owner AS dst_uid, is_start AS dst_start, node_ts AS dst_ts,
         CASE WHEN is_start AND op_depth = 0 THEN 'dependency' ELSE 'operator' END AS type,
         CASE WHEN is_start AND op_depth = 0 THEN 0
              WHEN NOT is_start AND is_blocking THEN 0
              ELSE node_ts - prev_ts END AS weight,
         CASE WHEN is_start AND op_depth = 0 THEN NULL
              WHEN prev_start THEN prev_owner
              WHEN NOT is_start THEN owner
              ELSE prev_parent END AS event_uid,
         false AS comm
  FROM (SELECT *,
               lag(owner) OVER (PARTITION BY trace, thread_no ORDER BY pos) AS prev_owner,
               lag(is_start) OVER (PARTITION BY trace, thread_no ORDER BY pos) AS prev_start,
               lag(node_ts) OVER (PARTITION BY trace, thread_no ORDER BY pos) AS prev_ts,
               lag(is_lock) OVER (PARTITION BY trace, thread_no ORDER BY pos) AS prev_lock,
               lag(parent) OVER (PARTITION BY trace, thread_no ORDER BY pos) AS prev_parent,
               -- (Not a named window: DataFusion drops a named window's
               -- partitioning and order when its frame is given.)
               coalesce(sum(CASE WHEN is_start THEN 1 ELSE -1 END)
                 OVER (PARTITION BY trace, thread_no ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS op_depth
        FROM critical_path_visits)
  WHERE prev_owner IS NOT NULL
    AND NOT (prev_lock AND is_lock AND (prev_start OR NOT is_start))
),
-- 3. The GPU.
kernel_edges AS (
  SELECT trace, 3 AS pass, n AS k1, 0 AS k2, 0 AS k3, uid AS src_uid, true AS src_start, ts AS src_ts,
         uid AS dst_uid, false AS dst_start, t_end AS dst_ts, 'operator' AS type, t_end - ts AS weight, uid AS event_uid,
         is_comm AS comm
  FROM critical_path_kernels
  WHERE NOT is_sync
  UNION ALL
  SELECT trace, 3, n, 1, 0, wait_src, false, wait_src_end, uid, true, ts, 'sync_dependency', 0, NULL, false
  FROM critical_path_kernels
  WHERE NOT is_sync AND wait_src IS NOT NULL
  UNION ALL
  SELECT trace, 3, n, 2, 0, launch_node, true, launch_ts, uid, true, ts, 'kernel_launch_delay', ts - launch_ts, NULL, false
  FROM critical_path_kernels
  WHERE launch_delay AND launch_node IS NOT NULL
  UNION ALL
  SELECT trace, 3, n, 2, 0, prev_uid AS src_uid, false, prev_end, uid, true, ts, 'kernel_kernel_delay', ts - prev_end,
         prev_uid AS event_uid, false
  FROM critical_path_kernels
  WHERE NOT is_sync AND NOT launch_delay AND prev_uid IS NOT NULL AND ts - prev_end < 1500
    AND (wait_src_end IS NULL OR wait_src_end < prev_end)
),
stream_firsts AS (
  SELECT trace, stream, min(n) AS first_n FROM critical_path_kernels WHERE NOT is_sync GROUP BY trace, stream
),
sync_queries AS (
  -- A Stream Sync waits for its stream, a Context Sync for every stream
  -- that has run work by then.
  SELECT s.trace, s.stream, s.n, s.index_correlation AS cpu_uid, f.first_n
  FROM critical_path_kernels s JOIN stream_firsts f ON f.trace = s.trace AND f.stream = s.stream
  WHERE s.is_sync AND s.name = 'Stream Sync'
  UNION ALL
  SELECT s.trace, f.stream, s.n, s.index_correlation, f.first_n
  FROM critical_path_kernels s JOIN stream_firsts f ON f.trace = s.trace AND f.first_n < s.n
  WHERE s.is_sync AND s.name = 'Context Sync'
),
sync_lookup AS (
  SELECT trace, stream, n, cpu_uid, first_n, query,
         max(CASE WHEN NOT query THEN n END)
           OVER (PARTITION BY trace, stream ORDER BY n, query ROWS UNBOUNDED PRECEDING) AS last_n
  FROM (SELECT trace, stream, n, CAST(NULL AS BIGINT) AS cpu_uid, CAST(NULL AS BIGINT) AS first_n, false AS query
        FROM critical_path_kernels WHERE NOT is_sync
        UNION ALL
        SELECT trace, stream, n, cpu_uid, first_n, true AS query FROM sync_queries)
),
event_sync_edges AS (
  -- An Event Sync: the work the host waited for, to the end of its call.
  SELECT k.trace, 3 AS pass, k.n AS k1, 3 AS k2, 0 AS k3,
         k.wait_src AS src_uid, false AS src_start, k.wait_src_end AS src_ts,
         c.uid AS dst_uid, false AS dst_start, c.t_end AS dst_ts,
         'sync_dependency' AS type, 0 AS weight, CAST(NULL AS BIGINT) AS event_uid, false AS comm
  FROM critical_path_kernels k
  JOIN critical_path_events c ON c.trace = k.trace AND c.uid = k.index_correlation AND c.has_nodes
  WHERE k.is_sync AND k.name = 'Event Sync' AND k.wait_src IS NOT NULL
),
sync_edges AS (
  SELECT q.trace, 3 AS pass, q.n AS k1, 3 AS k2, q.first_n AS k3,
         k.uid AS src_uid, false AS src_start, k.t_end AS src_ts,
         c.uid AS dst_uid, false AS dst_start, c.t_end AS dst_ts,
         'sync_dependency' AS type, 0 AS weight, CAST(NULL AS BIGINT) AS event_uid, false AS comm
  FROM sync_lookup q
  JOIN critical_path_kernels k ON k.trace = q.trace AND k.n = q.last_n
  JOIN critical_path_events c ON c.trace = q.trace AND c.uid = q.cpu_uid AND c.has_nodes
  WHERE q.query
),
edges AS (
  SELECT * FROM lock_edges
  UNION ALL SELECT * FROM stack_edges
  UNION ALL SELECT * FROM kernel_edges
  UNION ALL SELECT * FROM sync_edges
  UNION ALL SELECT * FROM event_sync_edges
),
-- Numbered before the ranks are joined: DataFusion 55 sorted the join of the
-- union by its branches' own orders and its plan check refused it.
numbered AS (
  SELECT e.*, CAST(row_number() OVER (PARTITION BY e.trace ORDER BY e.pass, e.k1, e.k2, e.k3) AS BIGINT) AS ord
  FROM edges e
)
SELECT e.trace, r.rank, e.ord,
       e.src_uid, e.src_start, e.src_ts, e.dst_uid, e.dst_start, e.dst_ts, e.type, e.weight, e.event_uid,
       -- An operator edge is the time of a CPU event but for a kernel's own.
       CASE
         WHEN e.type = 'kernel_kernel_delay' THEN 'gpu_kernel_kernel_overhead'
         WHEN e.type = 'kernel_launch_delay' THEN 'gpu_kernel_launch_overhead'
         WHEN e.type IN ('dependency', 'sync_dependency') THEN ''
         WHEN e.pass < 3 THEN 'cpu_bound'
         WHEN e.comm THEN 'gpu_communication_bound'
         ELSE 'gpu_compute_bound'
       END AS bound_by
FROM numbered e
JOIN ranks r ON r.trace = e.trace
