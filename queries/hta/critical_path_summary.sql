-- name: critical_path_summary
-- version: 1
-- kind: report
-- order: 909
-- runs: on request
-- description: HTA's critical path summary: per rank, the share of the critical path's duration each kind of bound takes, % (HTA's CPGraph.summary()).
--
-- The path is critical_path's (`--param hta.annotation=NAME --param
-- hta.instance=N` choose the instance). Each edge's duration is added to its
-- bound_by, '' holding the dependencies (0 µs; present when the path has
-- one, as in HTA), and the sums are divided by the path's total, not
-- rounded. A sub-µs kernel that HTA's rounding ends before it starts counts
-- here as 0 µs; `--param hta.compat=true` counts its -1 µs as HTA does, and
-- types communication kernels by HTA's name patterns alone (DIFFERENCES.md).
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   bound_by: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead or '' (dependencies)
--   duration: its share of the path's duration, %
WITH sums AS (
  SELECT trace, coalesce(rank, 0) AS rank, bound_by, sum(weight) AS weight
  FROM critical_path_steps
  GROUP BY trace, rank, bound_by
)
SELECT rank, bound_by, weight / sum(weight) OVER (PARTITION BY trace) * 100.0 AS duration
FROM sums
ORDER BY rank, trace, bound_by
