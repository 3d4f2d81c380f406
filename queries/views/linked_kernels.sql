-- name: linked_kernels
-- version: 5
-- kind: view
-- description: GPU work tied to the runtime call that launched it: what the timeline and the launcher tables count.
--
-- Unlinked GPU events (no launch call in the trace carries their correlation id)
-- are left out, as in the reference (spec §4.3). Override this view to change
-- which links count everywhere at once.
--
-- TraceLens ties GPU work to its launch only through `ac2g` flow events (spec
-- §2.4); we also link by correlation id when the profiler wrote no flow
-- (DIFFERENCES.md, "Launches without a flow"). With --tracelens-compat only
-- flow and graph links count, as in TraceLens.
--
-- A trace of another format that records no launch at all (a rocprofv3 or
-- Perfetto kernel trace, written without the HIP API) has nothing to link:
-- there all of its GPU work counts, so that the timeline, the analysis and its
-- rules see the GPU time the file holds. A Kineto trace never takes this
-- branch: there an unlinked kernel is a trace defect (trace_health).
-- Columns:
--   trace: trace name
--   rank: the trace's rank (kernels.rank)
--   uid: event uid
--   name: kernel name, or e.g. 'Memcpy DtoH (Device -> Pinned)'
--   cat: kernel, gpu_memcpy or gpu_memset
--   class: compute, communication, memcpy or memset, from kernel_classes (see
--     classified_kernels); TraceLens's (NCCL/RCCL by name) under --tracelens-compat
--   ts: GPU start, µs
--   dur: GPU duration, µs
--   t_end: ts + dur in f64, µs
--   device: args.device, else the numeric pid
--   stream: args.stream, else the numeric tid
--   correlation: args.correlation
--   external_id: args['External id']
--   launch_uid: the runtime/driver call that launched it (cudaLaunchKernel,
--     hipGraphLaunch, cuLaunchKernel, ...); NULL if unlinked
--   launch_name: name of that call
--   linked_by: flow: a CPU→GPU flow (ac2g or async_cpu_to_gpu) confirms the link;
--     graph: a graph launch claims all GPU work with its correlation; correlation:
--     matched by correlation id alone (no flow in the trace); NULL: unlinked
--   op_uid: the cpu_op it is attributed to: the nearest cpu_op above the launch,
--     skipping python frames and `execute` wrappers; NULL if none
--   op_name: name of that cpu_op
--   grid: args.grid as JSON, e.g. [128, 1, 1]
--   block: args.block as JSON
--   registers_per_thread: args['registers per thread']
--   shared_memory: args['shared memory'], bytes
--   bytes: args.bytes: bytes copied or set (memcpy / memset)
--   kernel_family: the kernel_classes family that matched; NULL when none did
--   collective_kind: allreduce, alltoall, dispatch, ... where kernel_classes tells it
--   scope_uid: the operation the work is attributed to (classified_kernels)
--   scope_name: that event's name
--   scope_kind: op, python, annotation, kernel or launch (compat)
WITH launchless AS (
  -- Non-Kineto traces without a single launch record.
  SELECT m.trace FROM trace_meta m
  WHERE m.key = 'source_format' AND m.value <> '"kineto"'
    AND NOT EXISTS (
      SELECT 1 FROM classified_kernels k WHERE k.trace = m.trace AND k.launch_uid IS NOT NULL
    )
)
-- A join rather than `trace IN (SELECT ...)` under OR: the same rows (one
-- launchless row per trace at most), and no mark join, which a cluster's plan
-- codec cannot carry.
SELECT k.* FROM classified_kernels k
LEFT JOIN launchless l ON l.trace = k.trace
WHERE (k.launch_uid IS NOT NULL
       AND (NOT tracelens_compat() OR k.linked_by IN ('flow', 'graph')))
   OR l.trace IS NOT NULL
