-- name: cuda_kernel_launch_outliers
-- version: 1
-- kind: report
-- order: 914
-- runs: on request
-- description: The launches HTA's kernel launch statistics plot as problems: kernels that run shorter than their launch call, launch calls longer than runtime_cutoff and launch delays longer than launch_delay_cutoff, worst first, with the kernel and the call named.
--
-- HTA's get_cuda_kernel_launch_stats draws three plots from its pairs
-- (hta_kernel_launches here); this lists their points, one row per launch
-- and kind:
--   short_kernel: cpu_duration <= runtime_cutoff and gpu_duration <
--     cpu_duration (the GPU finishes before the CPU could launch the next:
--     fuse them, or capture a CUDA graph), by how much the call outlasts the
--     work;
--   runtime_outlier: cpu_duration > runtime_cutoff (a launch call that
--     blocks: a synchronising copy, a lock, a cold driver), by the call;
--   launch_delay_outlier: launch_delay > launch_delay_cutoff (work that
--     waited in the stream's queue), by the delay.
-- The cut-offs are HTA's defaults, µs: `--param hta.runtime_cutoff=50`,
-- `--param hta.launch_delay_cutoff=100`. A launch can be of two kinds.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   kind: short_kernel, runtime_outlier or launch_delay_outlier
--   correlation: the launch's correlation id
--   launch: the launch call's name
--   kernel: the GPU work's name
--   cpu_duration: the launch call's duration, µs
--   gpu_duration: the GPU work's duration, µs
--   launch_delay: from the call's end to the work's start, µs
WITH cutoffs AS (
  SELECT CAST(setting('hta.runtime_cutoff', '50') AS DOUBLE) AS runtime_cutoff,
         CAST(setting('hta.launch_delay_cutoff', '100') AS DOUBLE) AS delay_cutoff
),
kinds AS (
  -- One pass over the pairs and the three kinds (a UNION ALL of three
  -- filters, sorted after the joins below, failed DataFusion 55's plan check).
  SELECT l.*, k.kind, k.kind_order,
         CASE k.kind_order
           WHEN 1 THEN l.cpu_duration - l.gpu_duration
           WHEN 2 THEN l.cpu_duration
           ELSE l.launch_delay
         END AS badness
  FROM hta_kernel_launches l
  CROSS JOIN cutoffs c
  CROSS JOIN (VALUES ('short_kernel', 1), ('runtime_outlier', 2), ('launch_delay_outlier', 3))
    AS k(kind, kind_order)
  WHERE CASE k.kind_order
          WHEN 1 THEN l.cpu_duration <= c.runtime_cutoff AND l.gpu_duration < l.cpu_duration
          WHEN 2 THEN l.cpu_duration > c.runtime_cutoff
          ELSE l.launch_delay > c.delay_cutoff
        END
)
SELECT k.rank, k.kind, k.correlation, c.name AS launch, g.name AS kernel,
       k.cpu_duration, k.gpu_duration, k.launch_delay
FROM kinds k
JOIN events c ON c.trace = k.trace AND c.uid = k.launch_uid
JOIN events g ON g.trace = k.trace AND g.uid = k.work_uid
ORDER BY k.rank, k.trace, k.kind_order, k.badness DESC, k.launch_uid, k.work_uid
