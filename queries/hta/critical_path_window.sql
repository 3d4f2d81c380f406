-- name: critical_path_window
-- version: 1
-- kind: view
-- cluster: in process
-- description: The span HTA's critical path analysis covers, per trace: one instance of an annotation (`--param hta.annotation=NAME`, `--param hta.instance=N`).
--
-- The instance is the `hta.instance`-th event (default 0, counted in trace
-- order from 0; `A:B` for a range, both included) of critical_path_frame
-- whose name contains `hta.annotation` (default ProfilerStep), as HTA
-- counts its annotation instances; an empty annotation is the whole trace.
-- A trace without such an event has no row (HTA returns nothing; past the
-- last instance, HTA raises).
-- Columns:
--   trace: trace name
--   start_ts: the instance's start (the first one's, for a range), µs
--   end_ts: its end (the latest, for a range), µs
WITH instances AS (
  SELECT trace, ts, t_end,
         CAST(row_number() OVER (PARTITION BY trace ORDER BY uid) AS BIGINT) - 1 AS instance
  FROM critical_path_frame
  WHERE strpos(name, setting('hta.annotation', 'ProfilerStep')) > 0
),
chosen AS (
  SELECT CAST(split_part(setting('hta.instance', '0'), ':', 1) AS BIGINT) AS first_instance,
         CAST(coalesce(nullif(split_part(setting('hta.instance', '0'), ':', 2), ''),
                       split_part(setting('hta.instance', '0'), ':', 1)) AS BIGINT) AS last_instance
)
SELECT i.trace, min(i.ts) AS start_ts, max(i.t_end) AS end_ts
FROM instances i CROSS JOIN chosen c
WHERE setting('hta.annotation', 'ProfilerStep') <> ''
  AND i.instance BETWEEN c.first_instance AND c.last_instance
GROUP BY i.trace
UNION ALL
SELECT trace, min(ts) AS start_ts, max(t_end) AS end_ts FROM critical_path_frame
WHERE setting('hta.annotation', 'ProfilerStep') = ''
GROUP BY trace
