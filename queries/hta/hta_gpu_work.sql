-- name: hta_gpu_work
-- version: 1
-- kind: view
-- description: The GPU work of hta_events with its kernel type as HTA's breakdowns name it (COMPUTATION, COMMUNICATION, MEMORY, OTHER), taken from the one kernel-class table.
--
-- HTA types a kernel by its name alone: communication when it starts with
-- nccl, hip or hccl (or holds ncclKernel), memory when it starts with Memcpy,
-- Memset or dma, other for a few names (synchronisation, launches), else
-- computation. Here a kernel of `kernels` gets the class classified_kernels
-- gives it (kernel_classes: NCCL and RCCL, but also DeepEP, NVSHMEM and the
-- custom all-reduce kernels of serving stacks are communication; ROCm's copy
-- kernels are memory), so where HTA's names miss we differ, and
-- tests/conformance/DIFFERENCES.md says where. GPU work that is no kernel,
-- copy or set (a cpu_op or a synchronisation event that carries a stream) is
-- typed by HTA's name patterns, and so is all work under `--param
-- hta.compat=true` (HTA's numbers exactly).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: event uid
--   name: event name
--   stream: args.stream
--   ts: start, whole µs (see hta_events)
--   t_end: end, whole µs
--   kernel_type: COMPUTATION, COMMUNICATION, MEMORY or OTHER
WITH typed AS (
  SELECT e.trace, e.rank, e.uid, e.name, e.stream, e.ts, e.t_end,
         CASE
           WHEN setting('hta.compat', 'false') = 'true' THEN NULL
           WHEN k.class = 'communication' THEN 'COMMUNICATION'
           WHEN k.class IN ('memcpy', 'memset') THEN 'MEMORY'
           WHEN k.class = 'compute' THEN 'COMPUTATION'
         END AS class_type,
         CASE
           WHEN regexp_like(e.name, '^nccl|^hip|^hccl|ncclKernel') THEN 'COMMUNICATION'
           WHEN regexp_like(e.name, '^(hip)?Memcpy|^(hip)?Memset|^dma') THEN 'MEMORY'
           WHEN regexp_like(e.name, 'Memcpy|Memset|dma|Sync|^Stream Wait Event|^cuda.*LaunchKernel|^runFunction|^job_exe|^packet|^pe_exe|^cpum_exe_subgraph|^collective_subgraph_execution')
             THEN 'OTHER'
           ELSE 'COMPUTATION'
         END AS name_type
  FROM hta_events e
  LEFT JOIN classified_kernels k ON k.trace = e.trace AND k.uid = e.uid
  WHERE e.on_gpu
)
SELECT trace, rank, uid, name, stream, ts, t_end, coalesce(class_type, name_type) AS kernel_type
FROM typed
