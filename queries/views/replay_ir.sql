-- name: replay_ir
-- version: 3
-- kind: view
-- description: One row per distinct traced call of a kernel-launching op (its name and four recorded argument lists, as ops_unique_args groups them): the replay IR built from the shipped torch schema catalog, whether it can be replayed and why not, and the GPU time the calls took.
--
-- The IR is tracesql's own (TraceLens's bugs fixed, assumptions listed) and
-- TraceLens's exactly under --tracelens-compat. `tracesql replay` packages
-- these rows; `replay_args` lists their arguments; `replay_coverage` sums them.
-- An op counts as kernel-launching when it launched GPU work itself
-- (ops.direct_kernel_count > 0), the op TraceLens's perf reports time.
-- Columns:
--   trace: trace name
--   rank: the trace's rank (NULL for a single trace)
--   id: the signature's id, <op>__<8 hex> (replay_id): its package's name and the key of replay_runs rows
--   ex_uid: uid of the signature's first call (ops.uid, TraceLens's ex_UID)
--   name: op name, e.g. aten::addmm
--   count: calls with this signature
--   traced_kernel_us_total: GPU time of all these calls, µs (ops.direct_kernel_time summed)
--   traced_kernel_us_median: median GPU time of one call, µs
--   traced_kernel_us_min: shortest call, µs
--   traced_kernel_us_max: longest call, µs
--   status: 'ok' (an IR was built) or 'refused'
--   reason: why refused: a stable class (no_schema, arity_mismatch:15/17, unknown_type:Dimname, unsupported_dtype:..., tensor_list_truncated, value_lost:ARG; TraceLens's error class under --tracelens-compat); NULL when ok
--   error: the refusal in words, naming the closest overload and the argument where it stops fitting
--   overload: the overload chosen, as torch.ops spells it (aten::add.Tensor, aten::addmm.default)
--   schema: that overload's schema text
--   n_args: recorded arguments
--   schema_drift: the trace's torch had fewer trailing keyword arguments than the catalog's (filled from defaults)
--   assumptions: what the IR assumes that the trace did not record, '; '-separated; NULL if nothing
--   ir_json: the IR entry as JSON (strict: non-finite floats as strings)
--   input_types_json: args['Input type'] as written
--   input_dims_json: args['Input Dims'] as written
--   input_strides_json: args['Input Strides'] as written
--   concrete_inputs_json: args['Concrete Inputs'] as written
WITH signatures AS (
  SELECT trace, rank, name, input_types_json, input_dims_json, input_strides_json,
         concrete_inputs_json,
         min(uid) AS ex_uid,
         count(*) AS count,
         sum(direct_kernel_time) AS traced_kernel_us_total,
         median(direct_kernel_time) AS traced_kernel_us_median,
         min(direct_kernel_time) AS traced_kernel_us_min,
         max(direct_kernel_time) AS traced_kernel_us_max
  FROM ops
  WHERE direct_kernel_count > 0
  GROUP BY trace, rank, name, input_types_json, input_dims_json, input_strides_json,
           concrete_inputs_json
),
built AS (
  -- Tensor lists take the trace's most common floating dtype (replay_list_dtype).
  SELECT s.*,
         replay_ir(s.name, s.input_types_json, s.input_dims_json, s.input_strides_json,
                   s.concrete_inputs_json, tracelens_compat(), l.dtype) AS r
  FROM signatures s
  LEFT JOIN replay_list_dtype l ON l.trace = s.trace
)
SELECT trace, rank,
       replay_id(name, input_types_json, input_dims_json, input_strides_json,
                 concrete_inputs_json) AS id,
       ex_uid, name, count,
       traced_kernel_us_total, traced_kernel_us_median, traced_kernel_us_min,
       traced_kernel_us_max,
       r['status'] AS status, r['reason'] AS reason, r['error'] AS error,
       r['overload'] AS overload, r['schema'] AS schema, r['n_args'] AS n_args,
       r['schema_drift'] AS schema_drift, r['assumptions'] AS assumptions,
       r['ir_json'] AS ir_json,
       input_types_json, input_dims_json, input_strides_json, concrete_inputs_json
FROM built
