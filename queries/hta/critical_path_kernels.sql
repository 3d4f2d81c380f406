-- name: critical_path_kernels
-- version: 1
-- kind: view
-- cluster: in process
-- description: The GPU side of HTA's critical path graph, per trace: the GPU work and sync events of critical_path_events in HTA's order, each kernel with the previous one on its stream, its launch and whether the launch found the stream's queue empty.
--
-- Order: by start, a cuda_sync event by its end (then by uid). The queue
-- length of a stream (HTA's, over all of hta_events) rises by one at each
-- runtime launch onto it and falls by one as launched work starts; a
-- kernel's launch delay is on the path (kernel_launch_delay) when the queue
-- was 1 after its launch and 0 as it started, and the previous kernel on
-- the stream had ended before the launch. Streams are told apart by number
-- alone, as in HTA. A Stream Wait Event (critical_path_waits) makes a
-- kernel wait for other work: its launch delay then counts only when that
-- work had ended by its launch.
-- Columns:
--   trace: trace name
--   n: position in HTA's order (1, 2, ...)
--   uid: the event
--   name: its name
--   stream: its stream (-1: a device-wide sync)
--   is_sync: a cuda_sync event (Stream Sync, Context Sync, ...), else GPU work
--   ts: start, µs
--   t_end: end, µs
--   index_correlation: the CPU call linked to it (critical_path_frame)
--   prev_uid: the previous GPU work on the stream (NULL for sync events and the stream's first)
--   prev_end: its end, µs
--   launch_ts: the launch call's start, µs
--   launch_node: the launch call, when the graph has nodes for it
--   wait_src: for a kernel, the work a Stream Wait Event before it made it wait for; for an Event Sync, the work the host waited for (NULL: none, or the graph has no node for it)
--   wait_src_end: that work's end, µs
--   launch_delay: whether the launch delay is an edge (see above)
--   is_comm: a communication kernel, for bound_by: HTA tells by its short name (without template arguments, parameters and return type) starting with nccl, hip or hccl, or holding ncclKernel; here a kernel, copy or set by its class (classified_kernels: also DeepEP, NVSHMEM, custom all-reduce), other GPU work and all under `hta.compat` by HTA's test
WITH launches AS (
  SELECT trace, uid, ts, correlation FROM critical_path_frame
  WHERE index_correlation > 0
    AND name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx',
                 'cudaMemcpyAsync', 'cudaMemsetAsync', 'hipLaunchKernel', 'hipExtModuleLaunchKernel',
                 'hipMemcpyAsync', 'hipMemsetAsync', 'hipMemcpyWithStream',
                 'runFunction - job_prep_and_submit_for_execution')
),
queue AS (
  -- +1 at each launch (on the stream of the work it launched), -1 as
  -- launched work starts; at one time, launches first.
  SELECT trace, uid,
         sum(delta) OVER (PARTITION BY trace, stream ORDER BY ts, delta DESC, uid ROWS UNBOUNDED PRECEDING) AS queue_length
  FROM (SELECT l.trace, l.uid, l.ts, g.stream, 1 AS delta
        FROM launches l
        JOIN critical_path_frame g ON g.trace = l.trace AND g.correlation = l.correlation AND g.stream <> -1
        UNION ALL
        SELECT g.trace, g.uid, g.ts, g.stream, -1 AS delta
        FROM critical_path_frame g
        JOIN (SELECT DISTINCT trace, correlation FROM launches) l ON l.trace = g.trace AND l.correlation = g.correlation
        WHERE g.stream <> -1)
),
ordered AS (
  SELECT e.trace, e.uid, e.name, e.stream, e.cat = 'cuda_sync' AS is_sync, e.ts, e.t_end, e.index_correlation,
         CAST(row_number() OVER (PARTITION BY e.trace
                                 ORDER BY CASE WHEN e.cat = 'cuda_sync' THEN e.t_end ELSE e.ts END, e.uid) AS BIGINT) AS n
  FROM critical_path_events e
  WHERE (e.stream <> -1 OR e.name IN ('Event Sync', 'Context Sync')) AND e.index_correlation >= 0
),
previous AS (
  SELECT trace, n,
         lag(uid) OVER (PARTITION BY trace, stream ORDER BY n) AS prev_uid,
         lag(t_end) OVER (PARTITION BY trace, stream ORDER BY n) AS prev_end
  FROM ordered
  WHERE NOT is_sync
),
event_waits AS (
  SELECT o.trace, o.n, o.name, src.uid AS src, src.t_end AS src_end, w.dest_work AS dest
  FROM ordered o
  JOIN critical_path_waits w ON w.trace = o.trace AND w.uid = o.uid
  LEFT JOIN critical_path_events src ON src.trace = o.trace AND src.uid = w.src_work AND src.has_nodes
),
kernel_waits AS (
  -- A kernel waits for the work of the last Stream Wait Event before it
  -- (in HTA's order) that names it; no wait where that work has no node.
  SELECT k.trace, k.n, last_value(w.src ORDER BY w.n) AS src, last_value(w.src_end ORDER BY w.n) AS src_end
  FROM ordered k
  JOIN event_waits w ON w.trace = k.trace AND w.dest = k.uid AND w.n < k.n
  WHERE NOT k.is_sync AND w.name = 'Stream Wait Event'
  GROUP BY k.trace, k.n
)
SELECT k.trace, k.n, k.uid, k.name, k.stream, k.is_sync, k.ts, k.t_end, k.index_correlation,
       p.prev_uid, p.prev_end, l.ts AS launch_ts, ln.uid AS launch_node,
       coalesce(kw.src, ew.src) AS wait_src, coalesce(kw.src_end, ew.src_end) AS wait_src_end,
       coalesce(NOT k.is_sync AND qlr.queue_length = 1 AND qk.queue_length = 0
                AND (p.prev_end IS NULL OR p.prev_end < l.ts)
                AND (kw.src_end IS NULL OR kw.src_end < l.ts), false) AS launch_delay,
       CASE
         WHEN setting('hta.compat', 'false') <> 'true' AND c.class IS NOT NULL THEN c.class = 'communication'
         WHEN regexp_like(k.name, '^(hip)?Memcpy|^(hip)?Memset|^dma') THEN false
         ELSE regexp_like(
                regexp_replace(
                  regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                    replace(k.name, '->', ''),
                    '<[^<>]*>|\([^()]*\)', '', 'g'), '<[^<>]*>|\([^()]*\)', '', 'g'),
                    '<[^<>]*>|\([^()]*\)', '', 'g'), '<[^<>]*>|\([^()]*\)', '', 'g'),
                    '<[^<>]*>|\([^()]*\)', '', 'g'),
                  '^.* ', ''),
                '^(nccl|hip|hccl)|ncclKernel')
       END AS is_comm
FROM ordered k
LEFT JOIN previous p ON p.trace = k.trace AND p.n = k.n
LEFT JOIN critical_path_frame l ON l.trace = k.trace AND l.uid = k.index_correlation
LEFT JOIN queue qlr ON qlr.trace = k.trace AND qlr.uid = k.index_correlation
LEFT JOIN queue qk ON qk.trace = k.trace AND qk.uid = k.uid
LEFT JOIN critical_path_events ln ON ln.trace = k.trace AND ln.uid = k.index_correlation AND ln.has_nodes
LEFT JOIN classified_kernels c ON c.trace = k.trace AND c.uid = k.uid
LEFT JOIN kernel_waits kw ON kw.trace = k.trace AND kw.n = k.n
LEFT JOIN event_waits ew ON ew.trace = k.trace AND ew.n = k.n AND ew.name = 'Event Sync'
