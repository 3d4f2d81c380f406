-- name: comm_int_fields
-- version: 1
-- kind: view
-- description: Which fields of the collective long table are all JSON integers over every rank, so that the multi-rank sheets print them as integers (`4`), not floats (`4.0`), as TraceLens's pandas frames do.
--
-- pandas keeps a column of JSON integers as int64 only when no row misses the
-- value; one metadata-less kernel anywhere makes `Group size` print `4.0` on
-- every sheet. The sheets name these flags in `-- integer_if:`.
-- One row.
-- Columns:
--   times: every ts and dur is a JSON integer (integer_times on every rank)
--   group_size: no kernel lacks Group size
--   in_nelems: no kernel lacks In msg nelems
--   out_nelems: no kernel lacks Out msg nelems
SELECT
  coalesce(bool_and(integer_times), false) AS times,
  count(*) = count(group_size) AS group_size,
  count(*) = count(in_msg_nelems) AS in_nelems,
  count(*) = count(out_msg_nelems) AS out_nelems
FROM comm_kernels
