-- name: kernel_parents
-- version: 1
-- kind: view
-- description: Every GPU kernel (cat = kernel, linked or not) with its launcher, the cpu_op directly above the launcher, and that op's category and inputs.
--
-- Input of kernel_summary and the short-kernel sheets (spec §8.7). Unlike
-- kernels.op_uid, the parent here does not skip `execute` wrappers.
-- Columns: trace, uid, name, stream, dur, launcher_name, parent_uid, parent_name,
-- parent_category, input_dims_json, input_strides_json, concrete_inputs_json.
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
