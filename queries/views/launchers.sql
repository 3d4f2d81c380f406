-- name: launchers
-- version: 3
-- kind: view
-- description: One row per kernel launcher: the cpu_op that launched non-collective GPU work (through `execute` wrappers and python frames), else the innermost named scope around the launch (TraceLens: the runtime call itself); with its direct and subtree kernel time and op category.
--
-- This is TraceLens's "ops" table (spec §5), the input of ops_summary,
-- ops_summary_by_category and ops_unique_args.
--
-- The launcher is classified_kernels.scope_uid: in default mode work with no
-- cpu_op above its launch belongs to the Python frame or annotation around
-- the launch (else the kernel itself), never to cudaLaunchKernel* /
-- cuLaunchKernel* / hipLaunchKernel*; under --tracelens-compat to the runtime
-- call, as in TraceLens. An annotation is not in the call tree: its subtree
-- time is its direct time.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the launcher event (events.uid)
--   name: its name
--   cat: cpu_op, or cuda_runtime / cuda_driver for runtime-call launchers
--   ts: its CPU start, µs
--   dur: its CPU duration, µs
--   process_name: name of the op's process (trace metadata)
--   process_label: label of the op's process (trace metadata)
--   thread_name: name of the op's thread (trace metadata)
--   input_dims_json: the op's input shapes as JSON text; NULL for runtime calls
--   input_types_json: the op's input dtypes as JSON text; NULL for runtime calls
--   input_strides_json: the op's input strides as JSON text; NULL for runtime calls
--   concrete_inputs_json: the op's concrete (scalar) inputs as JSON text; NULL for
--     runtime calls
--   direct_kernel_count: GPU events it launched itself (collectives excluded)
--   total_direct_kernel_time: busy time of those events, µs
--   total_subtree_kernel_time: busy time of every GPU event below it, µs
--   first_kernel_name: its first direct kernel by GPU start
--   kernel_details: its direct kernels LIST<STRUCT<name, dur, stream>> by GPU start
--   op_category: registry / name pattern / first-kernel fallback / other
WITH
-- Non-collective GPU work linked to a launch, keyed by its launcher.
direct_work AS (
  SELECT trace, scope_uid AS launcher_uid, uid, name, ts, t_end, dur, stream
  FROM linked_kernels
  WHERE class <> 'communication'
),
-- What each launcher launched itself, in GPU start order.
per_launcher AS (
  SELECT trace, launcher_uid,
         count(*) AS direct_kernel_count,
         busy_time(ts, t_end) AS total_direct_kernel_time,
         array_agg(named_struct('name', name, 'dur', dur, 'stream', stream) ORDER BY ts, uid)
           AS kernel_details
  FROM direct_work
  GROUP BY trace, launcher_uid
),
-- The first kernel is the list's first element: read there rather than by a
-- second ordered aggregate (DataFusion groups first_value only over plain
-- types; over dictionary names it kept one accumulator per launcher).
first_kernel AS (
  SELECT *, kernel_details[1]['name'] AS first_kernel_name
  FROM per_launcher
),
-- Busy time of all linked GPU work below each launcher, collectives included.
subtree AS (
  SELECT a.trace, a.ancestor_uid AS uid, busy_time(k.ts, k.t_end) AS subtree_time
  FROM (SELECT DISTINCT trace, launcher_uid FROM direct_work) l
  JOIN kernel_ancestors a ON a.trace = l.trace AND a.ancestor_uid = l.launcher_uid
  JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
  GROUP BY a.trace, a.ancestor_uid
)
SELECT
  l.trace,
  l.launcher_uid AS uid,
  e.name,
  e.cat,
  e.ts,
  e.dur,
  th.process_name,
  th.process_label,
  th.thread_name,
  o.input_dims_json,
  o.input_types_json,
  o.input_strides_json,
  o.concrete_inputs_json,
  l.direct_kernel_count,
  l.total_direct_kernel_time,
  coalesce(s.subtree_time, l.total_direct_kernel_time) AS total_subtree_kernel_time,
  l.first_kernel_name,
  l.kernel_details,
  coalesce(
    c.category,
    CASE
      WHEN NOT starts_with(l.first_kernel_name, 'void at::native') THEN 'other'
      WHEN strpos(l.first_kernel_name, 'elementwise') > 0 THEN 'elementwise'
      WHEN strpos(l.first_kernel_name, 'reduce') > 0 THEN 'reduce'
      WHEN strpos(l.first_kernel_name, 'multi_tensor_apply') > 0 THEN 'multi_tensor_apply'
      ELSE 'other'
    END
  ) AS op_category
FROM first_kernel l
JOIN events e ON e.trace = l.trace AND e.uid = l.launcher_uid
LEFT JOIN threads th ON th.trace = e.trace AND th.pid = e.pid AND th.tid = e.tid
LEFT JOIN ops o ON o.trace = l.trace AND o.uid = l.launcher_uid
LEFT JOIN subtree s ON s.trace = l.trace AND s.uid = l.launcher_uid
LEFT JOIN op_category_by_name c ON c.name = e.name
