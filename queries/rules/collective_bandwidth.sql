-- name: collective_bandwidth
-- version: 1
-- kind: rule
-- scope: run
-- description: Collectives of ≥ 1 MiB whose bus bandwidth stays below 30% of the link's peak (intra- or inter-node, from the platform): warning.
--
-- Bus bandwidth (nccl-tests' busbw, 10^9 B/s) of each implicit-sync instance
-- uses its pure communication time (comm_latency), so waiting for late ranks
-- does not count against the link. Grouped by call, dtype, size and process
-- group; the median instance is compared with the platform's
-- intra_node_gb_s or inter_node_gb_s by where the group's ranks sit
-- (pg_node_span, needs gpus per node). Small messages are latency-bound and
-- left out. No finding without a platform or its link figure.
-- Columns: metric busbw_efficiency_pct, threshold 30; time_us Σ comm_latency of the group.
WITH peak AS (
  SELECT p.intra_node_gb_s, p.inter_node_gb_s
  FROM platforms p JOIN session_platform s ON p.name = s.platform
),
groups AS (
  SELECT s.collective_name, s.dtype, s.full_msg_mb, s.process_group_ranks, n.node_span,
    count(*) AS instances, median(s.busbw_gb_s) AS busbw_gb_s, sum(s.comm_latency) AS comm_us
  FROM implicit_sync_instances s
  JOIN pg_node_span n ON n.process_group_ranks IS NOT DISTINCT FROM s.process_group_ranks
  WHERE s.full_msg_mb >= 1 AND s.busbw_gb_s IS NOT NULL AND s.participants >= 2
  GROUP BY s.collective_name, s.dtype, s.full_msg_mb, s.process_group_ranks, n.node_span
),
rated AS (
  SELECT g.*,
    CASE g.node_span WHEN 'intra_node' THEN p.intra_node_gb_s WHEN 'inter_node' THEN p.inter_node_gb_s END
      AS peak_gb_s
  FROM groups g CROSS JOIN peak p
),
evidence AS (
  SELECT i.collective_name, i.dtype, i.full_msg_mb, i.process_group_ranks,
    array_agg(i.uid ORDER BY i.position) AS uids
  FROM collective_instances i WHERE i.rank_position = 1
  GROUP BY i.collective_name, i.dtype, i.full_msg_mb, i.process_group_ranks
)
SELECT
  'warning' AS severity,
  'system' AS category,
  r.collective_name || ' ' || coalesce(r.dtype, '?') || ' '
    || CAST(round(r.full_msg_mb, 2) AS VARCHAR) || ' MiB on ' || coalesce(r.process_group_ranks, '?')
    AS subject,
  'busbw_efficiency_pct' AS metric,
  r.busbw_gb_s / r.peak_gb_s * 100 AS value,
  30.0 AS threshold,
  CAST(r.instances AS VARCHAR) || ' ' || r.collective_name || ' of '
    || CAST(round(r.full_msg_mb, 2) AS VARCHAR) || ' MiB reach a median bus bandwidth of '
    || CAST(round(r.busbw_gb_s, 1) AS VARCHAR) || ' GB/s, '
    || CAST(round(r.busbw_gb_s / r.peak_gb_s * 100, 1) AS VARCHAR) || '% of the '
    || replace(r.node_span, '_', '-') || ' link peak (' || CAST(r.peak_gb_s AS VARCHAR) || ' GB/s).'
    AS message,
  'Fewer, larger collectives (bucket or coalesce them), or a process group layout that keeps this traffic inside a node.'
    AS action_a,
  'Check the NCCL/RCCL configuration for this size (algorithm, protocol, channels, NCCL_DEBUG=INFO), and the topology (nvidia-smi topo -m / rocm-smi --showtopo) against a nccl-tests run.'
    AS action_b,
  r.comm_us AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  r.busbw_gb_s / r.peak_gb_s * 100 AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('busbw_gb_s', r.busbw_gb_s, 'peak_gb_s', r.peak_gb_s, 'instances', r.instances,
              'full_msg_mb', r.full_msg_mb, 'node_span', r.node_span) AS metrics,
  array_slice(e.uids, 1, 20) AS evidence_uids
FROM rated r
LEFT JOIN evidence e ON (e.collective_name IS NOT DISTINCT FROM r.collective_name)
  AND (e.dtype IS NOT DISTINCT FROM r.dtype) AND e.full_msg_mb = r.full_msg_mb
  AND (e.process_group_ranks IS NOT DISTINCT FROM r.process_group_ranks)
WHERE r.peak_gb_s IS NOT NULL AND r.busbw_gb_s / r.peak_gb_s < 0.3
