-- name: unified_collected_work
-- version: 3
-- kind: view
-- description: The linked GPU events unified_perf_events collects into an op, each with that op: the outcome of its walk down the call tree.
--
-- A step of unified_perf_events (see there for the walk); a view of its own so that
-- it is computed once: the final table reads it twice.
-- Each GPU event is decided by the path above it: the first op on that path (from
-- the root) where the walk stops, done with joins over unified_op_chain instead of
-- a recursive walk.
-- Columns:
--   trace: the trace file the row comes from
--   uid: the collected op (a cpu_op)
--   has_model: the collected op has a perf model
--   kernel_uid: a GPU event under it (collectives included)
--   name: the GPU event's name
--   ts: its GPU start, µs
--   t_end: its GPU end, µs
--   dur: its duration, µs
--   stream: its stream
--   launch_uid: the runtime call that launched it
WITH
-- Per GPU event: depth of the lowest op with a model above it.
lowest_model AS (
  SELECT trace, kernel_uid, min(depth) AS model_depth
  FROM unified_op_chain
  WHERE has_model
  GROUP BY trace, kernel_uid
),
-- Per op with GPU work: the walk's tests.
op_tests AS (
  SELECT c.trace, c.uid,
         bool_or(c.has_model) AS has_model,
         -- an op with a model and GPU work lies strictly below
         bool_or(coalesce(m.model_depth < c.depth, false)) AS model_below,
         -- a cuda_runtime call directly under the op launched GPU work
         bool_or(l.cat = 'cuda_runtime' AND l.parent_uid = c.uid) AS launched,
         bool_or(k.class = 'communication') AS has_collective
  FROM unified_op_chain c
  JOIN linked_kernels k ON k.trace = c.trace AND k.uid = c.kernel_uid
  JOIN events l ON l.trace = k.trace AND l.uid = k.launch_uid
  LEFT JOIN lowest_model m ON m.trace = c.trace AND m.kernel_uid = c.kernel_uid
  GROUP BY c.trace, c.uid
),
-- Ops where the walk stops (collecting the op or skipping it).
stops AS (
  SELECT trace, uid, has_model,
         has_model OR (NOT model_below AND launched AND NOT has_collective) AS collect
  FROM op_tests
  WHERE has_model OR (NOT model_below AND launched)
),
-- Per GPU event: the first stop on its path from the root, if the walk reaches
-- it, with that stop's tests (carried here so that `stops` is computed once).
-- Booleans are taken as integers: DataFusion groups first_value only over
-- plain types, and over a boolean it kept one accumulator per kernel.
first_stop AS (
  SELECT c.trace, c.kernel_uid,
         first_value(c.uid ORDER BY c.depth DESC) FILTER (WHERE s.uid IS NOT NULL) AS stop_uid,
         first_value(CAST(s.has_model AS INT) ORDER BY c.depth DESC)
           FILTER (WHERE s.uid IS NOT NULL) = 1 AS stop_has_model,
         first_value(CAST(s.collect AS INT) ORDER BY c.depth DESC)
           FILTER (WHERE s.uid IS NOT NULL) = 1 AS stop_collects,
         first_value(CAST(c.walk_root AS INT) ORDER BY c.depth DESC) = 1 AS from_root
  FROM unified_op_chain c
  LEFT JOIN stops s ON s.trace = c.trace AND s.uid = c.uid
  GROUP BY c.trace, c.kernel_uid
),
collected AS (
  SELECT DISTINCT trace, stop_uid AS uid, stop_has_model AS has_model
  FROM first_stop
  WHERE from_root AND stop_collects
)
-- A collected op's GPU work: its pairs in unified_op_chain (kernel_ancestors
-- restricted to ops, computed once).
SELECT c.trace, c.uid, c.has_model, k.uid AS kernel_uid, k.name, k.ts, k.t_end, k.dur,
       k.stream, k.launch_uid
FROM collected c
JOIN unified_op_chain a ON a.trace = c.trace AND a.uid = c.uid
JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
