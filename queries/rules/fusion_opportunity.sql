-- name: fusion_opportunity
-- version: 1
-- kind: rule
-- description: Fusion opportunities: nn.Module subtrees whose GPU work is only many small elementwise / reduce kernels (at least 4 per call, each under 50 us), grouped by module class with their summed time.
--
-- Reads events (nn.Module python frames), kernel_ancestors, linked_kernels and view
-- launchers (the op category of each kernel's launcher). A module instance
-- qualifies when all its kernels come from elementwise or reduce ops, there are at
-- least min_kernels of them and none runs longer than max_kernel_us. Only the
-- outermost qualifying modules count (the largest region that could fuse).
-- Module classes below min_trace_share_pct of the trace are left out.
-- Severity 'warning' from 5% of the trace, else 'info'.
-- Columns: the analyzer contract's 15; subject 'nn.Module: <class>'; metric
-- 'kernels_per_call', threshold min_kernels; time_us the summed GPU busy time of
-- the instances; metrics {instances, kernels, kernels_per_call, max_kernel_us,
-- time_us, share_pct, ops}; evidence_uids the module frames' uids.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 4 AS min_kernels,            -- kernels per module call
         50.0 AS max_kernel_us,       -- every kernel shorter than this
         0.5 AS min_trace_share_pct,  -- ignore module classes below this share of the trace
         5.0 AS warning_share_pct     -- 'warning' from this share of the trace
),
modules AS (
  SELECT trace, uid, regexp_replace(substr(name, 12), '_[0-9]+$', '') AS module
  FROM events
  WHERE cat = 'python_function' AND starts_with(name, 'nn.Module: ')
),
under AS (
  SELECT m.trace, m.uid AS module_uid, m.module, a.depth, k.uid AS kernel_uid, k.ts, k.t_end,
         k.dur, k.op_name, la.op_category
  FROM modules m
  JOIN kernel_ancestors a ON a.trace = m.trace AND a.ancestor_uid = m.uid
  JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
  LEFT JOIN launchers la ON la.trace = k.trace AND la.uid = k.scope_uid
),
features AS (
  SELECT trace, module_uid, module,
         count(*) AS kernels,
         count(*) FILTER (WHERE op_category IN ('elementwise', 'reduce')) AS fusible,
         max(dur) AS max_kernel_us,
         busy_time(ts, t_end) AS time_us,
         array_to_string(array_sort(array_agg(DISTINCT op_name)), ', ') AS ops
  FROM under
  GROUP BY trace, module_uid, module
),
qualifying AS (
  SELECT f.* FROM features f CROSS JOIN limits l
  WHERE f.kernels >= l.min_kernels AND f.fusible = f.kernels AND f.max_kernel_us < l.max_kernel_us
),
-- Qualifying modules inside another qualifying module.
enclosed AS (
  SELECT DISTINCT inner_.trace, inner_.module_uid
  FROM under inner_
  JOIN under outer_ ON outer_.trace = inner_.trace AND outer_.kernel_uid = inner_.kernel_uid
                   AND outer_.depth > inner_.depth
  JOIN qualifying q ON q.trace = outer_.trace AND q.module_uid = outer_.module_uid
),
outermost AS (
  SELECT q.* FROM qualifying q
  LEFT JOIN enclosed e ON e.trace = q.trace AND e.module_uid = q.module_uid
  WHERE e.module_uid IS NULL
),
by_class AS (
  SELECT o.trace, o.module,
         count(*) AS instances,
         sum(o.kernels) AS kernels,
         max(o.max_kernel_us) AS max_kernel_us,
         sum(o.time_us) AS time_us,
         first_value(o.ops ORDER BY o.module_uid) AS ops,
         array_agg(o.module_uid ORDER BY o.module_uid) AS uids
  FROM outermost o
  GROUP BY o.trace, o.module
),
-- One row per finding.
findings AS (
SELECT
  CASE WHEN c.time_us / t.total_time * 100 >= l.warning_share_pct THEN 'warning' ELSE 'info' END
    AS severity,
  'elementwise' AS category,
  'nn.Module: ' || c.module AS subject,
  'kernels_per_call' AS metric,
  CAST(c.kernels AS DOUBLE) / c.instances AS value,
  CAST(l.min_kernels AS DOUBLE) AS threshold,
  'nn.Module ' || c.module || ' runs ' || CAST(round(CAST(c.kernels AS DOUBLE) / c.instances, 1) AS VARCHAR)
    || ' separate elementwise / reduce kernels per call, all under '
    || CAST(l.max_kernel_us AS VARCHAR) || ' us (' || CAST(c.instances AS VARCHAR) || ' calls, '
    || CAST(round(c.time_us / 1000, 3) AS VARCHAR) || ' ms, '
    || CAST(round(c.time_us / t.total_time * 100, 1) AS VARCHAR) || '% of the trace; ops: '
    || c.ops || ')' AS message,
  'Fuse the module into one kernel: torch.compile, or a fused implementation of this module.'
    AS action_a,
  'A fused kernel for this op sequence (' || c.ops || ') for the kernel team.' AS action_b,
  CAST(c.time_us AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('instances', c.instances, 'kernels', c.kernels,
              'kernels_per_call', CAST(c.kernels AS DOUBLE) / c.instances,
              'max_kernel_us', c.max_kernel_us, 'time_us', c.time_us,
              'share_pct', c.time_us / t.total_time * 100, 'ops', c.ops) AS metrics,
  c.uids AS evidence_uids
FROM by_class c
CROSS JOIN limits l
LEFT JOIN gpu_time_totals t ON t.trace = c.trace
WHERE c.time_us / t.total_time * 100 >= l.min_trace_share_pct
)
SELECT * FROM findings
ORDER BY time_us DESC, subject
