-- name: perf_metrics
-- version: 3
-- kind: view
-- description: One row per op instance with a perf model and per pass (fwd, and bwd for ops differentiated by a backward wrapper): its kernels, kernel time, FLOPs, bytes, rates and params, as the perf sheets count them.
--
-- TraceLens's per-instance perf table (spec §7.2, `build_df_perf_metrics` in §8.5),
-- the input of the perf sheets (GEMM, SDPA_fwd, ...; view perf_summary).
-- Rows: every cpu_op whose name has a perf-sheet family in op_registry, in or out
-- of the call tree, with or without kernels (kernel_time 0, rates NULL).
-- * fwd pass: the kernels are all linked GPU work in the op's subtree.
-- * bwd pass (only ops that a backward wrapper differentiates: some
--   ops.forward_uid points at them): the kernels are all linked GPU work under the
--   backward wrappers of the op or of any op below it; FLOPs and bytes are the
--   model's backward ones.
-- The model runs with semantics 'bugfixes': TraceLens's numbers with its four
-- counting bugs fixed (convolution bias, reduce output size, batch-norm training
-- flag, causal attention with N_Q != N_KV); with --tracelens-compat, semantics
-- 'tracelens' (the bugs kept). Rows whose model fails keep
-- model_error and NULL metrics; the sheets leave them out.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the op instance (events.uid)
--   name: op name
--   family: its perf sheet family (op_registry.family)
--   pass: 'fwd' | 'bwd'
--   process_name: name of the op's process (trace metadata)
--   process_label: label of the op's process (trace metadata)
--   thread_name: name of the op's thread (trace metadata)
--   input_dims_json: the op's input shapes as JSON text; NULL for runtime calls
--   input_types_json: the op's input dtypes as JSON text; NULL for runtime calls
--   input_strides_json: the op's input strides as JSON text; NULL for runtime calls
--   concrete_inputs_json: the op's concrete (scalar) inputs as JSON text; NULL for
--     runtime calls
--   kernel_count: GPU events counted
--   kernel_time: their busy time (union of intervals), µs; 0 if none
--   kernel_details: LIST<STRUCT<name, dur, stream>> by GPU start; NULL if none
--   model_class: the perf-model class
--   model_error: the model's error (not_implemented: / invalid: / ...); NULL when it
--     worked
--   GFLOPS: the model's FLOPs / 1e9; NULL where TraceLens has NaN
--   "Data Moved (MB)": the model's bytes / 2^20 (MiB, the reference's MB)
--   "FLOPS/Byte": FLOPs per byte moved
--   "TFLOPS/s": FLOPs / kernel_time, TFLOPS/s; NULL without kernel time
--   "TB/s": bytes / kernel_time, TB/s; NULL without kernel time
--   compute_spec: e.g. matrix_bf16; '' when the dtype has no precision
--   params: LIST<STRUCT<key, value, py_str, kind>> in the model's key order
--   "Roofline Bound": COMPUTE_BOUND or MEMORY_BOUND on the session platform; NULL
--     without a platform or a peak
--   "Roofline Time (µs)": time at the roofline of the session platform, µs; NULL as
--     Roofline Bound
--   "Pct Roofline": roofline time / kernel time · 100, %; NULL as Roofline Bound
WITH RECURSIVE
-- Ops with a perf model (a cheap test; op_registry gives the family at the end).
candidates AS (
  SELECT trace, uid, name, process_name, process_label, thread_name,
         input_dims_json, input_types_json, input_strides_json, concrete_inputs_json
  FROM ops
  WHERE perf_model(name) IS NOT NULL
),
-- Each backward wrapper with the op it differentiates and every op above that one.
wrapped(trace, wrapper_uid, uid) AS (
  SELECT trace, uid, forward_uid FROM ops WHERE forward_uid IS NOT NULL
  UNION ALL
  SELECT w.trace, w.wrapper_uid, o.parent_uid
  FROM wrapped w
  JOIN ops o ON o.trace = w.trace AND o.uid = w.uid
  WHERE o.parent_uid IS NOT NULL
),
-- Op-to-kernel pairs come from unified_op_chain: kernel_ancestors' rows whose
-- ancestor is an op, computed once (kernel_ancestors is derived anew on each
-- scan, with every python frame: 6 M rows on a 1 GB trace).
-- Each (op, kernel) of the backward pass once: a kernel can lie under two
-- wrappers of the same op. (Forward rows cannot repeat: one per kernel and
-- ancestor.)
bwd_kernels AS (
  SELECT DISTINCT c.trace, c.uid, a.kernel_uid
  FROM candidates c
  JOIN wrapped w ON w.trace = c.trace AND w.uid = c.uid
  JOIN unified_op_chain a ON a.trace = w.trace AND a.uid = w.wrapper_uid
),
-- Each op's kernels per pass, aggregated branch by branch: one aggregation over
-- a union of the two would run in two phases (partial, then final over merged
-- lists), a third of this view's time on 1 GB.
fwd_sets AS (
  SELECT c.trace, c.uid, 'fwd' AS pass,
         count(*) AS kernel_count,
         busy_time(k.ts, k.t_end) AS kernel_time,
         array_agg(named_struct('name', k.name, 'dur', k.dur, 'stream', k.stream)
                   ORDER BY k.ts, k.uid) AS kernel_details,
         array_agg(k.name ORDER BY k.ts, k.uid) AS kernel_names
  FROM candidates c
  JOIN unified_op_chain a ON a.trace = c.trace AND a.uid = c.uid
  JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
  GROUP BY c.trace, c.uid
),
bwd_sets AS (
  SELECT b.trace, b.uid, 'bwd' AS pass,
         count(*) AS kernel_count,
         busy_time(k.ts, k.t_end) AS kernel_time,
         array_agg(named_struct('name', k.name, 'dur', k.dur, 'stream', k.stream)
                   ORDER BY k.ts, k.uid) AS kernel_details,
         array_agg(k.name ORDER BY k.ts, k.uid) AS kernel_names
  FROM bwd_kernels b
  JOIN linked_kernels k ON k.trace = b.trace AND k.uid = b.kernel_uid
  GROUP BY b.trace, b.uid
),
kernel_sets AS (
  SELECT * FROM fwd_sets
  UNION ALL
  SELECT * FROM bwd_sets
),
instances AS (
  SELECT c.*, 'fwd' AS pass FROM candidates c
  UNION ALL
  SELECT c.*, 'bwd' AS pass FROM candidates c
  WHERE EXISTS (SELECT 1 FROM ops w WHERE w.trace = c.trace AND w.forward_uid = c.uid)
),
modelled AS (
  SELECT i.*, r.family,
         coalesce(s.kernel_count, 0) AS kernel_count,
         coalesce(s.kernel_time, 0.0) AS kernel_time,
         s.kernel_details,
         op_perf(i.name, i.input_dims_json, i.input_types_json, i.input_strides_json,
                 i.concrete_inputs_json, s.kernel_names, i.pass,
                 CASE WHEN tracelens_compat() THEN 'tracelens' ELSE 'bugfixes' END) AS perf
  FROM instances i
  JOIN op_registry r ON r.name = i.name AND r.family IS NOT NULL
  LEFT JOIN kernel_sets s ON s.trace = i.trace AND s.uid = i.uid AND s.pass = i.pass
)
SELECT trace, uid, name, family, pass, process_name, process_label, thread_name,
       input_dims_json, input_types_json, input_strides_json, concrete_inputs_json,
       kernel_count, kernel_time, kernel_details,
       perf['model_class'] AS model_class,
       perf['error'] AS model_error,
       perf['flops'] / 1e9 AS "GFLOPS",
       perf['bytes'] / 1048576 AS "Data Moved (MB)",
       flops_per_byte(perf['flops'], perf['bytes']) AS "FLOPS/Byte",
       tflops_per_s(perf['flops'], kernel_time) AS "TFLOPS/s",
       tb_per_s(perf['bytes'], kernel_time) AS "TB/s",
       coalesce(perf['compute_spec'], '') AS compute_spec,
       perf['params'] AS params,
       roofline_bound(perf['flops'], perf['bytes'], p.platform, perf['compute_spec'])
         AS "Roofline Bound",
       roofline_time_us(perf['flops'], perf['bytes'], p.platform, perf['compute_spec'])
         AS "Roofline Time (µs)",
       roofline_efficiency(perf['flops'], perf['bytes'], kernel_time, p.platform,
                           perf['compute_spec']) AS "Pct Roofline"
-- The one-row table on the left: DataFusion's cross join buffers its left side
-- and emits a batch per buffered row (one row per batch made this view 5x slower).
FROM session_platform p
CROSS JOIN modelled
