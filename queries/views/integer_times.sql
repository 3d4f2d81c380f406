-- name: integer_times
-- version: 1
-- kind: view
-- description: Whether every loaded trace writes its ts and dur as JSON integers; then the reports print sums, minima and maxima of times as integers, as TraceLens does.
--
-- Older Kineto versions, and nanosecond traces converted to µs, write times as
-- integers. Python reads those as ints, so TraceLens's columns built from them
-- stay integers: its CSVs print `11055`, not `11055.0`, and kernel details
-- `np.int64(5)`. Reports name such columns in `-- integer_columns:` and pass
-- this flag to py_kernel_details. A trace mixing integer and fractional times
-- counts as fractional (trace_meta's `integer_times` is false).
-- One row.
-- Columns:
--   integer_times: true when every trace of the session has integer times
SELECT coalesce(bool_and(value = 'true'), false) AS integer_times
FROM trace_meta
WHERE key = 'integer_times'
