-- name: op_category_by_name
-- version: 1
-- kind: view
-- description: Op category decided by an op's name alone: the registry, then the name patterns (triton*, record_param_comms*). NULL when neither applies.
--
-- The kernel-name fallback needs the op's first kernel, so it is applied where
-- that is known (see `launchers`).
-- Columns:
--   name: op or runtime-call name
--   category: its category from the registry or a name pattern (triton*,
--     record_param_comms*); NULL when neither applies
WITH names AS (
  -- Every name that can launch GPU work or head a kernel's call stack.
  SELECT DISTINCT name FROM ops
  UNION
  SELECT DISTINCT launch_name FROM kernels WHERE launch_name IS NOT NULL
)
SELECT n.name,
       coalesce(
         r.category,
         CASE
           WHEN starts_with(n.name, 'triton') THEN 'triton'
           WHEN starts_with(n.name, 'record_param_comms') THEN 'record_param_comms'
         END
       ) AS category
FROM names n
LEFT JOIN op_registry r ON r.name = n.name
