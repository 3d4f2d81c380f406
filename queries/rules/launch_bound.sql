-- name: launch_bound
-- version: 1
-- kind: rule
-- description: Launch-bound pattern: more than half the compute kernels run under 10 µs and the root CPU ops launch 3 or more kernels each on average: warning.
--
-- Counts linked compute kernels (class compute; memcpy, memset and communication
-- are left out). kernels_per_op is the mean number of GPU events below a root
-- cpu_op (ops.is_root, ops.subtree_kernel_count) over the root ops that have any.
-- With many short kernels per op, the time to launch them can exceed their run
-- time; the trace shows the pattern, not the launch cost itself.
-- Columns: metric short_kernel_pct, threshold 50; time_us NULL (no removable time
-- is known, so no impact is estimated; metrics has the short kernels' time).
-- Evidence: the root ops with the most kernels (at most 20).
WITH k AS (
  SELECT count(*) AS kernels,
         count(*) FILTER (WHERE dur < 10) AS short_kernels,
         coalesce(sum(dur) FILTER (WHERE dur < 10), 0.0) AS short_time
  FROM linked_kernels
  WHERE class = 'compute'
),
roots AS (
  SELECT count(*) AS root_ops, sum(subtree_kernel_count) AS root_kernels,
         array_agg(uid ORDER BY subtree_kernel_count DESC, uid) AS uids
  FROM ops
  WHERE is_root AND subtree_kernel_count > 0
),
s AS (
  SELECT k.kernels, k.short_kernels, k.short_time,
         CAST(k.short_kernels AS DOUBLE) / k.kernels * 100 AS short_pct,
         CAST(r.root_kernels AS DOUBLE) / r.root_ops AS kernels_per_op, r.root_ops, r.uids
  FROM k CROSS JOIN roots r
  WHERE k.kernels > 0 AND r.root_ops > 0
)
SELECT
  'warning' AS severity,
  'system' AS category,
  'short kernels' AS subject,
  'short_kernel_pct' AS metric,
  short_pct AS value,
  50.0 AS threshold,
  CAST(short_kernels AS VARCHAR) || ' of ' || CAST(kernels AS VARCHAR) || ' compute kernels ('
    || CAST(round(short_pct, 1) AS VARCHAR) || '%) run under 10 µs, and root CPU ops launch '
    || CAST(round(kernels_per_op, 1) AS VARCHAR) || ' kernels each on average.' AS message,
  'Fewer, larger kernels: CUDA graphs (torch.compile mode="reduce-overhead") remove per-launch cost; torch.compile fusion or larger batches give each kernel more work.'
    AS action_a,
  'None per kernel: the kernels are short; the cost is in launching many of them.'
    AS action_b,
  CAST(NULL AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('kernels', kernels, 'short_kernels', short_kernels,
              'short_time_us', short_time, 'root_ops', root_ops,
              'kernels_per_op', kernels_per_op) AS metrics,
  array_slice(uids, 1, 20) AS evidence_uids
FROM s
WHERE short_pct > 50 AND kernels_per_op >= 3
