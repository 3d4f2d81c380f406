-- name: kernel_share_base
-- version: 1
-- kind: view
-- description: What the kernel sheets' "percent of total time" is a share of: the GPU span of all GPU work, linked or not; TraceLens's linked span alone under --tracelens-compat.
--
-- kernel_summary and short_kernels_summary list every kernel, linked to a
-- launch or not, but TraceLens divides by the GPU timeline's span, which
-- counts linked work only: a trace whose work is mostly unlinked shows one
-- kernel at many times 100% (tests/conformance/DIFFERENCES.md). The span of
-- all GPU work holds every kernel, so a group on one stream stays at or
-- below 100%.
-- Columns:
--   trace: the trace file the row comes from
--   total_time: the span, µs
WITH every AS (
  SELECT trace, max(t_end) - min(ts) AS span FROM kernels GROUP BY trace
)
SELECT t.trace,
       CASE WHEN tracelens_compat() THEN t.total_time
            ELSE greatest(t.total_time, coalesce(e.span, 0)) END AS total_time
FROM gpu_time_totals t
LEFT JOIN every e ON e.trace = t.trace
