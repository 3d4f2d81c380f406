-- name: unified_perf_events
-- version: 4
-- kind: view
-- description: The ops unified_perf_summary counts, one row each: the topmost op with a perf model on every call path, else the op that launched the kernels, plus a synthetic op per kernel nothing collected; with CPU duration, kernels, kernel time and perf metrics.
--
-- TraceLens's unified event collection and per-event table (spec §8.6,
-- `collect_unified_perf_events` and `build_df_unified_perf_table`), python frames off.
-- The walk goes down the call tree from every root cpu_op, through cpu_ops with GPU
-- work below them. At an op:
-- * it has a perf model: collect it and stop;
-- * an op with a model and GPU work lies below it: go down into its children;
-- * it launched kernels itself (a cuda_runtime call under it started GPU work;
--   cuda_driver launches do not count): collect it, unless its GPU work includes a
--   collective, then skip it; stop;
-- * else go down into its children.
-- Each linked GPU event is decided by the path above it: the first op on that path
-- (from the root) where the walk stops. That is done with joins over
-- kernel_ancestors instead of a recursive walk, in steps that are views of their
-- own so that each is computed once however often it is read: unified_op_chain
-- (the ops above each GPU event) → unified_collected_work (the walk's outcome) →
-- unified_collected_ops (one row per collected op, its perf model run once).
-- Kernels that no collected op covers (collectives left out) become synthetic ops
-- named "<op>-><kernel> (Synthetic Op)", copies of the nearest cpu_op above the
-- kernel, or of its launch call when there is no cpu_op; their uids follow the
-- trace's last uid, launch-call copies first, each in kernel uid order. In
-- default mode a kernel with no cpu_op above it is named after its scope (the
-- python frame or annotation around its launch, linked_kernels.scope_name), or
-- "<kernel> (Synthetic Op)" when nothing is around it: never after the launch
-- call.
-- Not reproduced: the "sole backward op of a forward op with a model" rule
-- (TraceLens then reports the backward op with the forward op's backward
-- metrics). It only applies to a backward op with GPU work and no modelled op
-- below it whose forward op's model has a backward; no conformance trace has one.
-- Rows whose model does not implement the op (a not_implemented: error) are left
-- out with their kernel time, as in the reference; other model errors keep the
-- row without metrics.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the event (synthetic ops: a new uid after the trace's last)
--   name: the op name (synthetic ops: "<op or scope>-><kernel> (Synthetic Op)")
--   seq: the order TraceLens collects them in (by CPU start; synthetic ops last)
--   op_category: registry / name pattern / first-kernel fallback
--   process_name: name of the op's process (trace metadata)
--   process_label: label of the op's process (trace metadata)
--   thread_name: name of the op's thread (trace metadata)
--   input_dims_json: the op's input shapes as JSON text; NULL for runtime calls
--   input_types_json: the op's input dtypes as JSON text; NULL for runtime calls
--   input_strides_json: the op's input strides as JSON text; NULL for runtime calls
--   concrete_inputs_json: the op's concrete (scalar) inputs as JSON text; NULL for
--     runtime calls
--   duration_us: the op's CPU duration, µs
--   has_perf_model: the op has a perf model
--   kernel_time: busy time of its GPU work (collectives included), µs
--   kernel_details: LIST<STRUCT<name, dur, stream>> in launch order
--   model_error: the model's error; NULL when it worked or there is none
--   GFLOPS: the model's FLOPs / 1e9; NULL where TraceLens has NaN
--   "Data Moved (MB)": the model's bytes / 2^20 (MiB, the reference's MB)
--   "FLOPS/Byte": FLOPs per byte moved
--   "TFLOPS/s": FLOPs / kernel_time, TFLOPS/s; NULL without kernel time
--   "TB/s": bytes / kernel_time, TB/s; NULL without kernel time
--   compute_spec: e.g. matrix_bf16; NULL without metrics
--   flops: the model's FLOPs
--   bytes: the model's bytes
--   perf_params: the model's params as a Python dict; NULL without metrics
--   "Roofline Bound": COMPUTE_BOUND or MEMORY_BOUND on the session platform; NULL
--     without a platform or a peak
--   "Roofline Time (µs)": time at the roofline of the session platform, µs; NULL as
--     Roofline Bound
--   "Pct Roofline": roofline time / kernel time · 100, %; NULL as Roofline Bound
WITH
-- Per GPU event: the nearest cpu_op above it.
nearest_op AS (
  SELECT trace, kernel_uid, first_value(uid ORDER BY depth) AS parent_uid
  FROM unified_op_chain
  GROUP BY trace, kernel_uid
),
-- GPU work no collected op covers, collectives left out, with that op.
orphan_parents AS (
  SELECT k.*, n.parent_uid
  FROM linked_kernels k
  LEFT JOIN nearest_op n ON n.trace = k.trace AND n.kernel_uid = k.uid
  WHERE k.class <> 'communication'
    AND NOT EXISTS (SELECT 1 FROM unified_collected_work w
                    WHERE w.trace = k.trace AND w.kernel_uid = k.uid)
),
last_uid AS (
  SELECT trace, max(uid) AS uid FROM events GROUP BY trace
),
-- The ops collected (not_implemented models left out), and their order
-- computed on three columns: a window over the whole rows would sort their
-- kernel lists along (the view's size, twice, on a 1 GB trace).
real_rows AS (
  SELECT * FROM unified_collected_ops
  WHERE perf['error'] IS NULL OR NOT starts_with(perf['error'], 'not_implemented')
),
real_order AS (
  SELECT trace, uid, row_number() OVER (PARTITION BY trace ORDER BY order_ts, uid) AS seq
  FROM real_rows
),
real_counts AS (
  SELECT trace, count(*) AS real_count FROM real_rows GROUP BY trace
),
-- Synthetic ops come after the real ones: launch-call copies first, each in
-- kernel uid order.
orphans_numbered AS (
  SELECT p.*, row_number() OVER (PARTITION BY p.trace
                                 ORDER BY p.parent_uid IS NOT NULL, p.uid) AS position
  FROM orphan_parents p
),
synthetic_rows AS (
  SELECT p.trace,
         u.uid + p.position AS uid,
         arrow_cast(coalesce(c.real_count, 0), 'UInt64') + p.position AS seq,
         coalesce(
           CASE
             WHEN o.name IS NOT NULL THEN o.name
             WHEN tracelens_compat() THEN e.name
             WHEN p.scope_kind IN ('python', 'annotation') THEN p.scope_name
           END || '->', '') || p.name || ' (Synthetic Op)' AS name,
         coalesce(o.process_name, th.process_name) AS process_name,
         coalesce(o.process_label, th.process_label) AS process_label,
         coalesce(o.thread_name, th.thread_name) AS thread_name,
         o.input_dims_json, o.input_types_json, o.input_strides_json,
         o.concrete_inputs_json,
         coalesce(o.dur, e.dur) AS duration_us,
         nullif(false, true) AS has_perf_model,
         CASE
           WHEN starts_with(coalesce(o.name, e.name), 'triton') THEN 'triton'
           WHEN starts_with(coalesce(o.name, e.name), 'record_param_comms')
             THEN 'record_param_comms'
           WHEN o.uid IS NULL OR NOT starts_with(f.first_kernel_name, 'void at::native')
             THEN 'other'
           WHEN strpos(f.first_kernel_name, 'elementwise') > 0 THEN 'elementwise'
           WHEN strpos(f.first_kernel_name, 'reduce') > 0 THEN 'reduce'
           WHEN strpos(f.first_kernel_name, 'multi_tensor_apply') > 0 THEN 'multi_tensor_apply'
           ELSE 'other'
         END AS op_category,
         p.t_end - p.ts AS kernel_time,
         make_array(named_struct('name', p.name, 'dur', p.dur, 'stream', p.stream))
           AS kernel_details
  FROM orphans_numbered p
  JOIN last_uid u ON u.trace = p.trace
  LEFT JOIN real_counts c ON c.trace = p.trace
  LEFT JOIN ops o ON o.trace = p.trace AND o.uid = p.parent_uid
  LEFT JOIN launchers f ON f.trace = p.trace AND f.uid = p.parent_uid
  LEFT JOIN events e ON e.trace = p.trace AND e.uid = p.launch_uid
  LEFT JOIN threads th ON th.trace = e.trace AND th.pid = e.pid AND th.tid = e.tid
),
all_rows AS (
  SELECT r.trace, r.uid, r.name, o.seq, r.op_category, r.process_name,
         r.process_label, r.thread_name, r.input_dims_json, r.input_types_json,
         r.input_strides_json, r.concrete_inputs_json, r.duration_us, r.has_perf_model,
         r.kernel_time, r.kernel_details, r.perf['error'] AS model_error,
         r.perf['flops'] AS flops, r.perf['bytes'] AS bytes,
         r.perf['compute_spec'] AS compute_spec, r.perf_params
  FROM real_rows r
  JOIN real_order o ON o.trace = r.trace AND o.uid = r.uid
  UNION ALL
  SELECT trace, uid, name, seq, op_category, process_name, process_label,
         thread_name, input_dims_json, input_types_json, input_strides_json,
         concrete_inputs_json, duration_us, has_perf_model, kernel_time, kernel_details,
         CAST(NULL AS VARCHAR), CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE),
         CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR)
  FROM synthetic_rows
)
SELECT trace, uid, name, seq, op_category, process_name, process_label, thread_name,
       input_dims_json, input_types_json, input_strides_json, concrete_inputs_json,
       duration_us, has_perf_model, kernel_time, kernel_details, model_error,
       flops / 1e9 AS "GFLOPS",
       bytes / 1048576 AS "Data Moved (MB)",
       flops_per_byte(flops, bytes) AS "FLOPS/Byte",
       tflops_per_s(flops, kernel_time) AS "TFLOPS/s",
       tb_per_s(bytes, kernel_time) AS "TB/s",
       CASE WHEN model_error IS NULL THEN compute_spec END AS compute_spec,
       flops, bytes,
       CASE WHEN model_error IS NULL THEN perf_params END AS perf_params,
       roofline_bound(flops, bytes, p.platform, compute_spec) AS "Roofline Bound",
       roofline_time_us(flops, bytes, p.platform, compute_spec) AS "Roofline Time (µs)",
       roofline_efficiency(flops, bytes, kernel_time, p.platform, compute_spec)
         AS "Pct Roofline"
FROM all_rows
CROSS JOIN session_platform p
