-- name: tracediff_nodes
-- version: 1
-- kind: view
-- description: The call tree TraceLens's TraceDiff aligns: cpu_ops, runtime/driver calls and the GPU work they launched (no python frames).
--
-- `compare` reads this in each side's session to align the two trees (view
-- compare_lca; DIR/tracediff/ under --tracelens-compat, spec compare.md §3).
-- The cpu_ops' arguments are the separate view tracediff_args. Parents are host nesting and
-- launch edges only (tree_edges kinds host and launch); GPU work no launch
-- claims is left out, as TraceLens leaves unlinked kernels out of its tree.
-- One row per event, by uid.
-- Columns:
--   uid: the event
--   name: its name
--   cat: its category
--   ts: start, µs
--   dur: duration, µs
--   parent_uid: its host or launching parent (NULL for a top-level event)
--   is_cpu_root: a cpu_op with no cpu_op around it (TraceLens's cpu_root_nodes)
--   in_tree: false for a host event the bleed rule left out of the tree
SELECT e.uid, CAST(e.name AS VARCHAR) AS name, CAST(e.cat AS VARCHAR) AS cat, e.ts, e.dur,
       te.parent_uid,
       coalesce(o.is_root, false) AS is_cpu_root,
       coalesce(o.in_tree, true) AS in_tree
FROM events e
LEFT JOIN (SELECT child_uid, parent_uid FROM tree_edges WHERE kind IN ('host', 'launch')) te
  ON te.child_uid = e.uid
LEFT JOIN ops o ON o.uid = e.uid
WHERE e.ph = 'X'
  AND e.cat IN ('cpu_op', 'cuda_runtime', 'cuda_driver', 'kernel', 'gpu_memcpy', 'gpu_memset')
  AND (e.cat NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset') OR te.parent_uid IS NOT NULL)
ORDER BY e.uid
