-- name: collective_windows
-- version: 1
-- kind: view
-- description: Where the ranks' profiling windows do not line up: the collective instances some rank of the process group has no kernel for.
--
-- Profilers start per process, so one rank may capture a collective the others
-- missed. TraceLens then mis-pairs every later instance or aborts (spec
-- collectives B2, B3); matched by sequence number, the extra kernel is an
-- instance of its own with fewer ranks. These instances are left out of the
-- skew and straggler figures in default mode.
-- Columns:
--   collective_id: the instance
--   process_group: the process group (pg_key)
--   collective_name: the call
--   participants: ranks that have it
--   expected: ranks that ran any collective of the process group
--   ranks_present: the ranks that have it, comma-separated
SELECT collective_id, min(pg_key) AS process_group, min(collective_name) AS collective_name,
  min(participants) AS participants, min(expected) AS expected,
  array_to_string(array_agg(rank ORDER BY rank), ',') AS ranks_present
FROM collective_instances
WHERE partial
GROUP BY collective_id
ORDER BY min(position)
