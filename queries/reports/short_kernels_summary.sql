-- name: short_kernels_summary
-- version: 4
-- kind: report
-- order: 22
-- empty: write
-- description: Kernels shorter than 10 µs grouped by parent op and its exact inputs: count, time and % of the GPU span.
-- integer_columns: Short Kernel duration (µs) sum
-- when: (SELECT count(*) FROM ops) > 0
-- empty_text: CASE WHEN tracelens_compat() THEN (SELECT CASE WHEN count(*) = 0 THEN chr(10) ELSE 'Kernel duration (µs),Kernel duration (µs),Kernel duration (µs)' || chr(10) || 'sum,count,mean' || chr(10) END FROM kernels WHERE cat = 'kernel' AND dur < 10) END
--
-- TraceLens sheet `short_kernels_summary` (spec §8.8). Kernels without a parent
-- cpu_op, or whose op lacks recorded inputs, are left out, as in the reference.
-- Ties keep first appearance (smallest kernel uid).
--
-- An empty sheet is written with its header. With --tracelens-compat it is
-- written as TraceLens writes it (`empty_text`, DIFFERENCES.md "Empty
-- short_kernels_summary"): a blank line when the trace has no short kernel at
-- all, pandas' two-line header of an empty grouped frame when it has some but
-- none survives the grouping.
-- Columns:
--   "Parent cpu_op": the cpu_op above the launch
--   "Input dims": its input shapes, Python text
--   "Input strides": its input strides, Python text
--   "Concrete Inputs": its concrete inputs, Python text
--   "Kernel name": kernel name
--   "Short Kernel duration (µs) sum": summed duration of its kernels under 10 µs, µs
--   "Short Kernel count": those kernels
--   "Short Kernel duration (µs) mean": their mean duration, µs
--   "Short Kernel duration (µs) percent of total time": summed duration as % of the
--     GPU span of all GPU work, linked or not (kernel_share_base; the linked span
--     under --tracelens-compat)
WITH short AS (
  SELECT trace, uid, parent_name AS "Parent cpu_op",
         py_repr(input_dims_json) AS "Input dims",
         py_repr(input_strides_json) AS "Input strides",
         py_repr(concrete_inputs_json) AS "Concrete Inputs",
         name AS "Kernel name", dur
  FROM kernel_parents
  WHERE dur < 10 AND parent_name IS NOT NULL AND input_dims_json IS NOT NULL
    AND input_strides_json IS NOT NULL AND concrete_inputs_json IS NOT NULL
),
groups AS (
  SELECT trace, "Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
         "Kernel name",
         sum(dur) AS "Short Kernel duration (µs) sum",
         count(*) AS "Short Kernel count",
         avg(dur) AS "Short Kernel duration (µs) mean",
         min(uid) AS first_uid
  FROM short
  GROUP BY trace, "Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
           "Kernel name"
)
SELECT g."Parent cpu_op", g."Input dims", g."Input strides", g."Concrete Inputs",
       g."Kernel name", g."Short Kernel duration (µs) sum", g."Short Kernel count",
       g."Short Kernel duration (µs) mean",
       g."Short Kernel duration (µs) sum" / t.total_time * 100
         AS "Short Kernel duration (µs) percent of total time"
FROM groups g JOIN kernel_share_base t ON t.trace = g.trace
ORDER BY g."Short Kernel duration (µs) sum" DESC, g."Short Kernel count",
         g."Short Kernel duration (µs) mean", g.first_uid
