-- name: replay_list_dtype
-- version: 1
-- kind: view
-- description: Per trace, the floating dtype its ops' tensor inputs have most often: what a replay assumes for tensor lists (cat, stack, foreach), whose element dtype Kineto does not record.
--
-- Counted over every tensor input of every op (ops.input_types), among float,
-- double, c10::Half and c10::BFloat16; ties go to the name first in text order.
-- Columns:
--   trace: trace name
--   dtype: the dtype as the trace spells it (c10::BFloat16, float, ...)
--   inputs: how many op inputs have it
WITH inputs AS (
  SELECT trace, unnest(input_types) AS dtype FROM ops
),
counted AS (
  SELECT trace, dtype, count(*) AS inputs
  FROM inputs
  WHERE dtype IN ('float', 'double', 'c10::Half', 'c10::BFloat16')
  GROUP BY trace, dtype
)
SELECT trace,
       first_value(dtype ORDER BY inputs DESC, dtype) AS dtype,
       max(inputs) AS inputs
FROM counted
GROUP BY trace
