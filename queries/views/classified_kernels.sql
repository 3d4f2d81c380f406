-- name: classified_kernels
-- version: 1
-- kind: view
-- description: Every GPU event of `kernels` with its class from kernel_classes (communication beyond NCCL: DeepEP, NVSHMEM, custom all-reduce, ...), its kernel family and collective kind: what the timeline, the analyzer, compare and collectives count.
--
-- TraceLens calls a kernel communication only when its name holds nccl, rccl
-- or cross_device_reduce, so expert-parallel all-to-all kernels (DeepEP),
-- NVSHMEM and the custom all-reduce kernels of serving stacks count as
-- computation. In default mode the first kernel_classes row (by priority)
-- whose pattern the name matches gives the class; a name no row matches is
-- memcpy or memset by its category, else compute. Each distinct name is
-- matched once. Under --tracelens-compat the class is TraceLens's
-- (kernels.class) and family / collective_kind are NULL.
--
-- The scope is the operation the work is attributed to. TraceLens attributes
-- work whose launch has no cpu_op above it to the runtime call itself, so
-- `cudaLaunchKernelExC` or `cuLaunchKernel` becomes the top "operation" of a
-- trace of Triton or DeepEP kernels. In default mode such work goes to the
-- innermost named scope instead: the Python frame directly above the launch
-- if recorded, else the innermost user_annotation around the launch on its
-- thread (else a ProfilerStep#N of its process), else the kernel itself; the
-- launch call stays a column. Under --tracelens-compat the scope is the
-- cpu_op, else the launch call (TraceLens's launcher).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   uid: event uid
--   name: kernel name, or e.g. 'Memcpy DtoH (Device -> Pinned)'
--   cat: kernel, gpu_memcpy or gpu_memset
--   class: compute, communication, memcpy or memset
--   ts: GPU start, µs
--   dur: GPU duration, µs
--   t_end: ts + dur in f64, µs
--   device: args.device, else the numeric pid
--   stream: args.stream, else the numeric tid
--   correlation: args.correlation
--   external_id: args['External id']
--   launch_uid: the runtime/driver call that launched it; NULL if unlinked
--   launch_name: name of that call
--   linked_by: flow, graph or correlation (see kernels); NULL: unlinked
--   op_uid: the cpu_op it is attributed to (see kernels); NULL if none
--   op_name: name of that cpu_op
--   grid: args.grid as JSON
--   block: args.block as JSON
--   registers_per_thread: args['registers per thread']
--   shared_memory: args['shared memory'], bytes
--   bytes: args.bytes (memcpy / memset)
--   kernel_family: the kernel_classes family that matched (nccl, deepep, ...); NULL
--     when none did
--   collective_kind: what kind of communication the pattern tells (allreduce,
--     alltoall, dispatch, ...); NULL when unknown or not communication
--   scope_uid: the operation the work is attributed to (an event uid): op_uid,
--     else (default mode) the Python frame or annotation around its launch, else
--     the kernel itself; under --tracelens-compat op_uid, else launch_uid
--   scope_name: that event's name
--   scope_kind: op, python, annotation, kernel (nothing named above it), launch
--     (compat: the runtime call); NULL for unlinked work without an op
WITH names AS (
  SELECT DISTINCT name FROM kernels WHERE NOT tracelens_compat()
),
matched AS (
  SELECT n.name, c.class, c.family, c.collective_kind,
    row_number() OVER (PARTITION BY n.name ORDER BY c.priority, c.family, c.pattern) AS pick
  FROM names n JOIN kernel_classes c ON regexp_like(n.name, c.pattern)
),
chosen AS (
  SELECT name, class, family, collective_kind FROM matched WHERE pick = 1
),
-- Launches with no cpu_op above them (default mode), and where they are.
bare AS (
  SELECT k.trace, k.uid, l.pid, l.tid, l.ts AS at, l.parent_uid
  FROM kernels k JOIN events l ON l.trace = k.trace AND l.uid = k.launch_uid
  WHERE NOT tracelens_compat() AND k.op_uid IS NULL
),
frames AS (
  SELECT b.trace, b.uid, p.uid AS scope_uid, p.name AS scope_name
  FROM bare b JOIN events p ON p.trace = b.trace AND p.uid = b.parent_uid
  WHERE p.cat = 'python_function'
),
annotations AS (
  SELECT trace, uid, name, pid, tid, ts, t_end, starts_with(name, 'ProfilerStep#') AS step
  FROM events
  WHERE cat = 'user_annotation' AND ph = 'X' AND dur > 0 AND NOT tracelens_compat()
),
-- Annotations around each bare launch: on its thread (an equi-join per
-- thread), and the ProfilerStep#N of its process (few) for launches from other
-- threads.
containing AS (
  SELECT b.trace, b.uid, a.uid AS scope_uid, a.name AS scope_name, 0 AS other_thread,
    a.ts, a.t_end
  FROM bare b JOIN annotations a ON a.trace = b.trace AND a.pid = b.pid AND a.tid = b.tid
  WHERE b.at >= a.ts AND b.at < a.t_end
  UNION ALL
  SELECT b.trace, b.uid, a.uid, a.name, 1, a.ts, a.t_end
  FROM bare b JOIN annotations a ON a.trace = b.trace AND a.pid = b.pid
  WHERE a.step AND a.tid <> b.tid AND b.at >= a.ts AND b.at < a.t_end
),
around AS (
  SELECT trace, uid, scope_uid, scope_name,
    row_number() OVER (PARTITION BY trace, uid
      ORDER BY other_thread, ts DESC, t_end, scope_uid) AS pick
  FROM containing
),
scopes AS (
  SELECT b.trace, b.uid,
    coalesce(f.scope_uid, a.scope_uid, b.uid) AS scope_uid,
    CASE WHEN f.scope_uid IS NOT NULL THEN f.scope_name WHEN a.scope_uid IS NOT NULL THEN a.scope_name END
      AS scope_name,
    CASE WHEN f.scope_uid IS NOT NULL THEN 'python' WHEN a.scope_uid IS NOT NULL THEN 'annotation'
      ELSE 'kernel' END AS scope_kind
  FROM bare b
  LEFT JOIN frames f ON f.trace = b.trace AND f.uid = b.uid
  LEFT JOIN around a ON a.trace = b.trace AND a.uid = b.uid AND a.pick = 1
)
SELECT k.trace, k.rank, k.uid, k.name, k.cat,
  CASE
    WHEN tracelens_compat() THEN k.class
    WHEN m.class IS NOT NULL THEN m.class
    WHEN k.cat = 'gpu_memcpy' THEN 'memcpy'
    WHEN k.cat = 'gpu_memset' THEN 'memset'
    ELSE 'compute'
  END AS class,
  k.ts, k.dur, k.t_end, k.device, k.stream, k.correlation, k.external_id,
  k.launch_uid, k.launch_name, k.linked_by, k.op_uid, k.op_name, k.grid, k.block,
  k.registers_per_thread, k.shared_memory, k.bytes,
  m.family AS kernel_family,
  CASE WHEN m.class = 'communication' THEN m.collective_kind END AS collective_kind,
  CASE WHEN k.op_uid IS NOT NULL THEN k.op_uid
       WHEN tracelens_compat() THEN k.launch_uid
       ELSE s.scope_uid END AS scope_uid,
  CASE WHEN k.op_uid IS NOT NULL THEN CAST(k.op_name AS VARCHAR)
       WHEN tracelens_compat() THEN CAST(k.launch_name AS VARCHAR)
       WHEN s.scope_kind = 'kernel' THEN CAST(k.name AS VARCHAR)
       ELSE CAST(s.scope_name AS VARCHAR) END AS scope_name,
  CASE WHEN k.op_uid IS NOT NULL THEN 'op'
       WHEN tracelens_compat() AND k.launch_uid IS NOT NULL THEN 'launch'
       ELSE s.scope_kind END AS scope_kind
FROM kernels k
LEFT JOIN chosen m ON m.name = k.name
LEFT JOIN scopes s ON s.trace = k.trace AND s.uid = k.uid
