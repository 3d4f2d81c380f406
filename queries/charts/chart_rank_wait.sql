-- name: chart_rank_wait
-- version: 1
-- kind: view
-- description: The rank × collective heatmap of `collectives --html`: per rank, the time its collectives waited for the other ranks, summed per collective (type, message size, process group); the 40 collectives with the most wait, the rest together.
--
-- From view collective_instances (wait_time: last arrival − this rank's
-- arrival). A column is a collective as the program calls it over and over
-- (all_reduce of 64 MiB on one process group), not one instance, so the chart
-- reads the same for 10 or 10,000 steps. A dark row is a rank that waits (an
-- early rank: the others are late); a light row in a dark column is the
-- straggler everyone waits for.
-- Columns:
--   rank: the rank
--   collective: type, message size and process group (or 'other collectives')
--   column_order: 1 = the collective with the most wait over all ranks
--   wait_ms: the rank's summed wait, ms
--   instances: the rank's instances of it
WITH per AS (
  SELECT rank,
         concat_ws(' ', coalesce(collective_type, collective_name, 'collective'),
                   CASE WHEN full_msg_mb >= 1 THEN CAST(round(full_msg_mb, 1) AS VARCHAR) || ' MiB'
                        ELSE CAST(round(full_msg_mb * 1024, 1) AS VARCHAR) || ' KiB' END,
                   'pg ' || coalesce(process_group_name, CAST(pg_key AS VARCHAR))) AS collective,
         wait_time, comm_latency
  FROM collective_instances
),
columns AS (
  SELECT collective, row_number() OVER (ORDER BY sum(wait_time) DESC, collective) AS column_rank
  FROM per GROUP BY collective
)
SELECT p.rank,
       CASE WHEN c.column_rank <= 40 THEN p.collective ELSE 'other collectives' END AS collective,
       CAST(least(min(c.column_rank), 41) AS BIGINT) AS column_order,
       sum(p.wait_time) / 1e3 AS wait_ms,
       count(*) AS instances
FROM per p JOIN columns c ON c.collective = p.collective
GROUP BY 1, 2
ORDER BY column_order, rank
