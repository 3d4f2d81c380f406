-- name: comm_compute_overlap
-- version: 1
-- kind: view
-- description: Per GPU: how much of its communication ran hidden under computation and how much was exposed, as HTA's comm/comp overlap figure.
--
-- HTA's get_comm_comp_overlap gives, per rank, the share of communication
-- time during which computation also ran. Same figure here per (trace,
-- device), from device_time_totals: hidden = total communication busy time −
-- communication not overlapped by computation. Communication is every
-- kernel_classes family of class communication (DeepEP, NVSHMEM, ... too).
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   device: the GPU
--   comm_time: busy time of communication, µs
--   hidden_comm_time: communication overlapped by computation, µs
--   exposed_comm_time: communication not overlapped by computation, µs
--   overlap_pct: hidden_comm_time / comm_time, % (HTA's comp_comm_overlap_pctg);
--     NULL without communication
--   exposed_share_pct: exposed_comm_time / the device's busy time, %
SELECT t.trace, r.rank, t.device, t.total_comm_time AS comm_time,
  t.total_comm_time - t.exposed_comm_time AS hidden_comm_time,
  t.exposed_comm_time,
  CASE WHEN t.total_comm_time > 0
    THEN (t.total_comm_time - t.exposed_comm_time) / t.total_comm_time * 100 END AS overlap_pct,
  CASE WHEN t.busy_time > 0 THEN t.exposed_comm_time / t.busy_time * 100 END AS exposed_share_pct
FROM device_time_totals t
LEFT JOIN ranks r ON r.trace = t.trace
