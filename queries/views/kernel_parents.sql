-- name: kernel_parents
-- version: 1
-- kind: view
-- description: Every GPU kernel (cat = kernel, linked or not) with its launcher, the cpu_op directly above the launcher, and that op's category and inputs.
--
-- Input of kernel_summary and the short-kernel sheets (spec §8.7). Unlike
-- kernels.op_uid, the parent here does not skip `execute` wrappers.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the kernel (events.uid)
--   name: kernel name
--   stream: its GPU stream
--   dur: its duration, µs
--   launcher_name: the runtime call that launched it; NULL when unlinked
--   parent_uid: the cpu_op directly above the launch call; NULL without one
--   parent_name: that op's name
--   parent_category: that op's category; 'graph' or 'runtime' by the launch call when
--     there is no op
--   input_dims_json: the parent op's input shapes, JSON text
--   input_strides_json: the parent op's input strides, JSON text
--   concrete_inputs_json: the parent op's concrete inputs, JSON text
SELECT
  k.trace,
  k.uid,
  k.name,
  k.stream,
  k.dur,
  l.name AS launcher_name,
  p.uid AS parent_uid,
  p.name AS parent_name,
  CASE
    WHEN p.uid IS NOT NULL THEN coalesce(la.op_category, c.category, 'other')
    WHEN strpos(lower(l.name), 'cudagraph') > 0 OR strpos(lower(l.name), 'graphlaunch') > 0 THEN 'graph'
    WHEN l.name IS NOT NULL THEN 'runtime'
  END AS parent_category,
  p.input_dims_json,
  p.input_strides_json,
  p.concrete_inputs_json
FROM kernels k
LEFT JOIN events l ON l.trace = k.trace AND l.uid = k.launch_uid
LEFT JOIN ops p ON p.trace = k.trace AND p.uid = l.parent_uid
LEFT JOIN launchers la ON la.trace = k.trace AND la.uid = p.uid
LEFT JOIN op_category_by_name c ON c.name = p.name
WHERE k.cat = 'kernel'
