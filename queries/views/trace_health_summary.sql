-- name: trace_health_summary
-- version: 4
-- kind: view
-- description: One line per trace on whether the reports can be trusted: the share of GPU time they cover and how many trace_health warnings there are; report and analyze print it.
--
-- Coverage is the busy time of the GPU work the reports count (view
-- linked_kernels) as % of the busy time of all GPU events: the unlinked GPU work
-- of trace_health is what is missing. Only the warning checks count, so this
-- reads trace_health_warning_checks, not the whole of trace_health. A trace read
-- from another format (rocprofv3, Perfetto JSON, JAX XPlane) has no PyTorch call
-- tree for coverage to be about: its reports count every kernel, and the line
-- says which format it was read as instead.
-- Columns:
--   trace: the trace file the row comes from
--   gpu_coverage_pct: % of the trace's GPU time the reports count; NULL without
--     GPU work
--   warnings: trace_health checks of severity warning that found something
--   line: e.g. 'reports cover 98.7% of GPU time; 2 warnings: see trace_health'
WITH per_trace AS (
  SELECT trace,
         max(CASE WHEN check = 'unlinked_gpu_work' THEN gpu_time_pct END) AS unlinked_pct,
         sum(CASE WHEN severity = 'warning' AND count > 0 THEN 1 ELSE 0 END) AS warnings,
         max(CASE WHEN check = 'shapes_not_recorded' THEN count END) AS shapeless_ops
  FROM trace_health_warning_checks
  GROUP BY trace
),
gpu AS (
  SELECT trace, count(*) AS n FROM kernels GROUP BY trace
),
formats AS (
  SELECT trace, trim(value, '"') AS format FROM trace_meta WHERE key = 'source_format'
)
SELECT p.trace,
       CASE WHEN g.n > 0 AND f.format IS NOT NULL AND f.format <> 'kineto' THEN 100.0
            WHEN g.n > 0 THEN 100 - coalesce(p.unlinked_pct, 0.0) END AS gpu_coverage_pct,
       p.warnings,
       CASE WHEN f.format IS NOT NULL AND f.format <> 'kineto'
            THEN 'read as ' || f.format || ': ' || CAST(coalesce(g.n, 0) AS VARCHAR)
                 || ' GPU events, all counted'
            WHEN g.n > 0
            THEN 'reports cover '
                 || CAST(round(100 - coalesce(p.unlinked_pct, 0.0), 1) AS VARCHAR)
                 || '% of GPU time'
            ELSE 'no GPU work in the trace' END
         || CASE p.warnings
              WHEN 0 THEN '; no warnings'
              WHEN 1 THEN '; 1 warning: see trace_health'
              ELSE '; ' || CAST(p.warnings AS VARCHAR) || ' warnings: see trace_health' END
         || CASE WHEN p.shapeless_ops > 0
              THEN '; shapes not recorded (record_shapes off) for '
                   || CAST(p.shapeless_ops AS VARCHAR)
                   || CASE WHEN p.shapeless_ops = 1 THEN ' op' ELSE ' ops' END
                   || ': their FLOPs, bytes and efficiency are unknown'
              ELSE '' END
         AS line
FROM per_trace p
LEFT JOIN gpu g ON g.trace = p.trace
LEFT JOIN formats f ON f.trace = p.trace
ORDER BY p.trace
