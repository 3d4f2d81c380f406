-- name: replay_args
-- version: 1
-- kind: view
-- description: The arguments of every replay IR: one row per argument of each replay_ir signature, with its schema name and type, and for tensors the dtype, shape, strides, storage extent and fill.
--
-- Questions it answers in one query: which GEMM shapes have a column-major
-- `mat2` (strides), which SDPA calls are causal, which inputs are broadcast
-- (storage_numel below the element count).
-- Columns:
--   trace: trace name
--   rank: the trace's rank (NULL for a single trace)
--   ex_uid: replay_ir.ex_uid of the signature
--   name: op name
--   overload: the overload chosen
--   status: replay_ir.status (refused signatures have no arguments)
--   pos: argument position in the schema, from 0
--   arg_name: the schema's name for it (self, mat1, alpha, ...)
--   arg_type: the schema's type (Tensor, Scalar, int[1]?, ...)
--   kw_only: keyword-only in the schema (after `*`)
--   kind: tensor, tensor_list, int, float, bool, scalar, int_list, dtype, str, none, ... (TraceLens IR: tensor or value)
--   dtype: tensor dtype as torch names it (bfloat16, int64); the trace's spelling under --tracelens-compat
--   trace_dtype: tensor dtype as the trace spells it (c10::BFloat16, long int)
--   shape: tensor shape
--   strides: tensor strides
--   storage_numel: elements the tensor's storage spans (below the element count for a broadcast input)
--   init: how the replay fills it: normal, zeros, randint:BOUND, empty (an output)
--   value_json: a non-tensor argument's value as JSON
WITH expanded AS (
  SELECT trace, rank, ex_uid, name, overload, status, unnest(replay_args(ir_json)) AS a
  FROM replay_ir
)
SELECT trace, rank, ex_uid, name, overload, status,
       a['pos'] AS pos, a['arg_name'] AS arg_name, a['arg_type'] AS arg_type,
       a['kw_only'] AS kw_only, a['kind'] AS kind, a['dtype'] AS dtype,
       a['trace_dtype'] AS trace_dtype, a['shape'] AS shape, a['strides'] AS strides,
       a['storage_numel'] AS storage_numel, a['init'] AS init, a['value_json'] AS value_json
FROM expanded
