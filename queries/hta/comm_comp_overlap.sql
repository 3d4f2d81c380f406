-- name: comm_comp_overlap
-- version: 1
-- kind: report
-- order: 904
-- runs: on request
-- description: HTA's communication-computation overlap: per rank, the share of communication time during which computation runs too, % (HTA's get_comm_comp_overlap).
--
-- Communication and computation work (hta_gpu_work: kernel classes from the
-- one kernel-class table, so DeepEP, NVSHMEM and custom all-reduce kernels
-- are communication) are each merged over all streams; the overlap is the
-- time both cover, over the time communication covers. A rank without
-- communication has no share (empty), as HTA gives NaN.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   comp_comm_overlap_pctg: overlap, % of communication time (2 decimals, as numpy rounds)
WITH times AS (
  SELECT trace, coalesce(rank, 0) AS rank,
         busy_time(ts, t_end) FILTER (WHERE kernel_type = 'COMMUNICATION') AS communication,
         busy_time(ts, t_end) FILTER (WHERE kernel_type = 'COMPUTATION') AS computation,
         busy_time(ts, t_end) FILTER (WHERE kernel_type IN ('COMMUNICATION', 'COMPUTATION')) AS either
  FROM hta_gpu_work
  GROUP BY trace, rank
)
SELECT rank,
       np_round(100.0 * (coalesce(communication, 0.0) + coalesce(computation, 0.0) - coalesce(either, 0.0))
                / nullif(communication, 0.0), 2) AS comp_comm_overlap_pctg
FROM times
ORDER BY rank, trace
