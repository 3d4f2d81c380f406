-- name: tracediff_args
-- version: 1
-- kind: view
-- description: Each cpu_op's arguments as TraceLens's TraceDiff prints them in diff_stats: Input Dims, Input Strides, Input type, Concrete Inputs as Python text.
--
-- Read with tracediff_nodes for `compare --tracelens-compat --out DIR`
-- (DIR/tracediff/diff_stats.csv, spec compare.md §3.6).
-- One row per cpu_op, by uid.
-- Columns:
--   uid: the cpu_op
--   input_dims: its Input Dims
--   input_strides: its Input Strides
--   input_type: its Input type
--   concrete_inputs: its Concrete Inputs
SELECT uid,
       py_repr(input_dims_json) AS input_dims,
       py_repr(input_strides_json) AS input_strides,
       py_repr(input_types_json) AS input_type,
       py_repr(concrete_inputs_json) AS concrete_inputs
FROM ops
ORDER BY uid
