-- name: tracediff_nodes
-- version: 1
-- kind: view
-- description: The call tree TraceLens's TraceDiff aligns: cpu_ops, runtime/driver calls and the GPU work they launched (no python frames), with each cpu_op's arguments as Python text.
--
-- `compare --tracelens-compat --out DIR` reads this in each side's session to
-- write DIR/tracediff/ (spec compare.md §3). Parents are host nesting and
-- launch edges only (tree_edges kinds host and launch); GPU work no launch
-- claims is left out, as TraceLens leaves unlinked kernels out of its tree.
-- One row per event, by uid.
-- Columns:
--   uid: the event
--   name: its name
--   cat: its category
--   ts: start, µs
--   dur: duration, µs
--   parent_uid: its host or launching parent (NULL for a top-level event)
--   is_cpu_root: a cpu_op with no cpu_op around it (TraceLens's cpu_root_nodes)
--   in_tree: false for a host event the bleed rule left out of the tree
--   input_dims: the cpu_op's Input Dims, Python text
--   input_strides: its Input Strides
--   input_type: its Input type
--   concrete_inputs: its Concrete Inputs
SELECT e.uid, CAST(e.name AS VARCHAR) AS name, CAST(e.cat AS VARCHAR) AS cat, e.ts, e.dur,
       te.parent_uid,
       coalesce(o.is_root, false) AS is_cpu_root,
       coalesce(o.in_tree, true) AS in_tree,
       py_repr(o.input_dims_json) AS input_dims,
       py_repr(o.input_strides_json) AS input_strides,
       py_repr(o.input_types_json) AS input_type,
       py_repr(o.concrete_inputs_json) AS concrete_inputs
FROM events e
LEFT JOIN (SELECT child_uid, parent_uid FROM tree_edges WHERE kind IN ('host', 'launch')) te
  ON te.child_uid = e.uid
LEFT JOIN ops o ON o.uid = e.uid
WHERE e.ph = 'X'
  AND e.cat IN ('cpu_op', 'cuda_runtime', 'cuda_driver', 'kernel', 'gpu_memcpy', 'gpu_memset')
  AND (e.cat NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset') OR te.parent_uid IS NOT NULL)
ORDER BY e.uid
