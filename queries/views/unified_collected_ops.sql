-- name: unified_collected_ops
-- version: 4
-- kind: view
-- description: The ops unified_perf_events collects, one row each, with their GPU work, op category and perf model result.
--
-- A step of unified_perf_events; a view of its own so that each op's perf model
-- runs once. It keeps the model's result without its params list: written out
-- per row, the list was half of this view's memory (66 of 143 MB on the 1 GB
-- benchmark trace), and the final table reads only perf_params (its text). The
-- result stays one column, cast to the fields kept: taking the fields out here
-- would have DataFusion evaluate the model once per field.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the collected cpu_op (events.uid)
--   name: its name
--   order_ts: its CPU start (the order TraceLens collects in), µs
--   process_name: name of the op's process (trace metadata)
--   process_label: label of the op's process (trace metadata)
--   thread_name: name of the op's thread (trace metadata)
--   input_dims_json: the op's input shapes as JSON text; NULL for runtime calls
--   input_types_json: the op's input dtypes as JSON text; NULL for runtime calls
--   input_strides_json: the op's input strides as JSON text; NULL for runtime calls
--   concrete_inputs_json: the op's concrete (scalar) inputs as JSON text; NULL for
--     runtime calls
--   duration_us: its CPU duration, µs
--   has_perf_model: it has a perf model
--   op_category: registry / name pattern / first-kernel fallback
--     (launchers.op_category), else 'other'
--   kernel_time: busy time of its GPU work (collectives included), µs
--   kernel_details: LIST<STRUCT<name, dur, stream>> in launch order
--   perf: op_perf's result (fwd pass, 'bugfixes'; 'tracelens' with
--     --tracelens-compat) without its params: STRUCT<model_class, flops, bytes,
--     compute_spec, error>; NULL without a model
--   perf_params: op_params' result (a Python dict); NULL without a model
WITH sets AS (
  SELECT trace, uid, bool_or(has_model) AS has_model,
         busy_time(ts, t_end) AS kernel_time,
         array_agg(named_struct('name', name, 'dur', dur, 'stream', stream)
                   ORDER BY launch_uid, kernel_uid) AS kernels,
         array_agg(name ORDER BY ts, kernel_uid) AS kernel_names
  FROM unified_collected_work
  GROUP BY trace, uid
),
modelled AS (
  SELECT s.trace, s.uid, o.name, o.ts AS order_ts, o.process_name, o.process_label,
         o.thread_name, o.input_dims_json, o.input_types_json, o.input_strides_json,
         o.concrete_inputs_json, o.dur AS duration_us,
         s.has_model AS has_perf_model,
         coalesce(l.op_category, c.category, 'other') AS op_category,
         s.kernel_time, s.kernels,
         CASE WHEN s.has_model THEN
           op_perf(o.name, o.input_dims_json, o.input_types_json, o.input_strides_json,
                   o.concrete_inputs_json, s.kernel_names, 'fwd',
                   CASE WHEN tracelens_compat() THEN 'tracelens' ELSE 'bugfixes' END)
         END AS model,
         CASE WHEN s.has_model THEN
           op_params(o.name, o.input_dims_json, o.input_types_json, o.input_strides_json,
                     o.concrete_inputs_json, s.kernel_names, 'fwd',
                     CASE WHEN tracelens_compat() THEN 'tracelens' ELSE 'bugfixes' END)
         END AS perf_params
  FROM sets s
  JOIN ops o ON o.trace = s.trace AND o.uid = s.uid
  LEFT JOIN launchers l ON l.trace = s.trace AND l.uid = s.uid
  LEFT JOIN op_category_by_name c ON c.name = o.name
)
SELECT trace, uid, name, order_ts, process_name, process_label, thread_name,
       input_dims_json, input_types_json, input_strides_json, concrete_inputs_json,
       duration_us, has_perf_model, op_category, kernel_time,
       -- Names stay dictionary-encoded, each written once per batch: as plain
       -- text the lists were 2/3 of this view (54 of 84 MB on 1 GB). (No sort
       -- downstream: unified_perf_events numbers its rows without one.)
       kernels AS kernel_details,
       arrow_cast(model,
         'Struct("model_class": Utf8, "flops": Float64, "bytes": Float64, "compute_spec": Utf8, "error": Utf8)')
         AS perf,
       perf_params
FROM modelled
