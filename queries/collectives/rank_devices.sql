-- name: rank_devices
-- version: 1
-- kind: view
-- description: The rank each GPU of each trace is: the trace's rank, or, for a process driving several GPUs' collectives, one rank per device.
--
-- TraceLens treats a file as one rank, so a single process driving two GPUs
-- counts every collective twice and pools both GPUs into one timeline (spec
-- collectives §8.4). In default mode a trace whose collective kernels run on
-- several devices numbers them rank, rank+1, ... in device order; under
-- --tracelens-compat, and for a trace with one such device, every device of
-- the trace is the trace's rank (0 when unknown).
-- Columns:
--   trace: trace name
--   device: args.device of its kernels
--   rank: the rank of that device's work
WITH devices AS (
  SELECT DISTINCT trace, device FROM kernels WHERE device IS NOT NULL
),
comm_devices AS (
  SELECT trace, count(DISTINCT device) AS n FROM collectives WHERE source = 'kernel' GROUP BY trace
)
SELECT d.trace, d.device,
  CASE WHEN tracelens_compat() OR coalesce(c.n, 0) <= 1 THEN coalesce(r.rank, 0)
       ELSE coalesce(r.rank, 0) + dense_rank() OVER (PARTITION BY d.trace ORDER BY d.device) - 1
  END AS rank
FROM devices d
LEFT JOIN comm_devices c ON c.trace = d.trace
LEFT JOIN ranks r ON r.trace = d.trace
