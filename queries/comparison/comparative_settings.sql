-- name: comparative_settings
-- version: 1
-- kind: comparison
-- description: The knobs of the comparative analysis (`analyze TARGET --reference REF`): how far an op's time ratio may stray from the hardware's before it is called unexpected.
--
-- Override with a file of this name under `--queries DIR`.
-- One row.
-- Columns:
--   tolerance_pct: an op is unexpected when its actual/expected time ratio is beyond 1 + tolerance_pct/100 (or below its inverse)
SELECT 25.0 AS tolerance_pct
