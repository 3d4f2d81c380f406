-- name: hta_origin
-- version: 1
-- kind: view
-- description: HTA's time zero: the earliest whole-µs start of all events its reader keeps, over every trace of the session (before it drops the last iteration); HTA's time series are relative to it.
--
-- HTA aligns its ranks by subtracting this from every start (hta_events
-- explains its whole-µs times); hta_queue_length and hta_memory_bw give
-- their times both ways.
-- Columns:
--   t0: the earliest whole-µs start, µs
SELECT min(ceil(ts)) AS t0
FROM events
WHERE dur IS NOT NULL AND cat IS NOT NULL AND cat <> 'Trace'
