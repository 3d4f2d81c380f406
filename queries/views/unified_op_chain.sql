-- name: unified_op_chain
-- version: 1
-- kind: view
-- description: Every cpu_op above each linked GPU event, with the two facts unified_perf_events' walk tests: the op has a perf model, the op is a root of the call tree.
--
-- A step of unified_perf_events, kept as a view of its own so that it is computed
-- once: the walk reads it four times.
-- Columns:
--   trace: the trace file the row comes from
--   kernel_uid: the linked GPU event (kernel_ancestors.kernel_uid)
--   uid: a cpu_op above it
--   depth: kernel_ancestors.depth: steps up from the launch call, so a smaller depth
--     lies nearer the kernel
--   has_model: the op has a perf model (a Triton kernel op only when its model can read
--     its args: TraceLens's can_model)
--   walk_root: the op is a root of the call tree, where the walk starts
WITH op_models AS (
  SELECT trace, uid, is_root AND in_tree AS walk_root,
         CASE
           WHEN perf_model(name) IS NULL THEN false
           WHEN NOT starts_with(name, 'triton_') THEN true
           ELSE coalesce(NOT starts_with(
                  op_perf(name, input_dims_json, input_types_json, input_strides_json,
                          concrete_inputs_json)['error'], 'cannot_model'), true)
         END
           AS has_model
  FROM ops
)
SELECT a.trace, a.kernel_uid, a.ancestor_uid AS uid, a.depth, o.has_model, o.walk_root
FROM kernel_ancestors a
JOIN op_models o ON o.trace = a.trace AND o.uid = a.ancestor_uid
