-- name: unfused_attention
-- version: 1
-- kind: rule
-- description: Unfused attention: nn.Module frames whose GPU work runs attention as separate ops (softmax, at least two matmuls and a scale) with no flash / fused attention kernel, grouped by module class.
--
-- Reads events (nn.Module python frames), kernel_ancestors and linked_kernels. A
-- module qualifies when the kernels below it were launched by at least one softmax
-- op, two batched matmul ops (bmm, baddbmm) and one scale op (mul, div), and
-- none of them has flash / fmha / attention-fused in its name. Only the innermost
-- qualifying modules count (an enclosing block does not repeat its attention).
-- Copies (copy_, clone, contiguous) are counted for the message, not required.
-- Severity 'warning'.
-- Columns: the analyzer contract's 15; subject 'nn.Module: <class>'; metric
-- 'time_us': GPU busy time of the softmax / matmul / scale / copy kernels under
-- the modules (what a fused attention replaces), summed over instances;
-- metrics {instances, matmul_ops, softmax_ops, scale_ops, copy_ops, time_us,
-- module_us (all GPU time under the modules), share_pct}; evidence_uids the
-- module frames' uids.
WITH
-- Thresholds: copy this file into a --queries DIR and edit to tune.
limits AS (
  SELECT 1 AS min_softmax_ops, -- softmax ops per module instance
         2 AS min_matmul_ops,  -- matmul ops per module instance
         1 AS min_scale_ops    -- scale (mul / div) ops per module instance
),
modules AS (
  SELECT trace, uid, regexp_replace(substr(name, 12), '_[0-9]+$', '') AS module
  FROM events
  WHERE cat = 'python_function' AND starts_with(name, 'nn.Module: ')
),
-- Every kernel below each module frame, with the op it is attributed to.
under AS (
  SELECT m.trace, m.uid AS module_uid, m.module, a.depth, k.uid AS kernel_uid,
         k.name AS kernel_name, k.ts, k.t_end, k.op_uid, k.op_name
  FROM modules m
  JOIN kernel_ancestors a ON a.trace = m.trace AND a.ancestor_uid = m.uid
  JOIN linked_kernels k ON k.trace = a.trace AND k.uid = a.kernel_uid
  WHERE k.class <> 'communication'
),
features AS (
  SELECT trace, module_uid, module,
         count(DISTINCT op_uid) FILTER (WHERE op_name IN ('aten::_softmax', 'aten::softmax',
                                                          'aten::_safe_softmax')) AS softmax_ops,
         count(DISTINCT op_uid) FILTER (WHERE op_name IN ('aten::bmm', 'aten::baddbmm'))
           AS matmul_ops,
         count(DISTINCT op_uid) FILTER (WHERE op_name IN ('aten::mul', 'aten::mul_', 'aten::div',
                                                          'aten::div_')) AS scale_ops,
         count(DISTINCT op_uid) FILTER (WHERE op_name IN ('aten::copy_', 'aten::clone',
                                                          'aten::contiguous')) AS copy_ops,
         count(*) FILTER (WHERE lower(kernel_name) LIKE '%flash%' OR lower(kernel_name) LIKE '%fmha%'
                                OR lower(kernel_name) LIKE '%attn_fwd%'
                                OR lower(kernel_name) LIKE '%attention%') AS fused_kernels,
         busy_time(ts, t_end) AS module_us,
         -- Time of the kernels a fused attention replaces.
         coalesce(busy_time(ts, t_end) FILTER (WHERE op_name IN (
           'aten::_softmax', 'aten::softmax', 'aten::_safe_softmax', 'aten::bmm', 'aten::baddbmm',
           'aten::mul', 'aten::mul_', 'aten::div', 'aten::div_', 'aten::copy_', 'aten::clone',
           'aten::contiguous')), 0.0) AS time_us
  FROM under
  GROUP BY trace, module_uid, module
),
qualifying AS (
  SELECT f.* FROM features f CROSS JOIN limits l
  WHERE f.softmax_ops >= l.min_softmax_ops AND f.matmul_ops >= l.min_matmul_ops
    AND f.scale_ops >= l.min_scale_ops AND f.fused_kernels = 0
),
-- Qualifying modules that enclose another qualifying module.
enclosing AS (
  SELECT DISTINCT outer_.trace, outer_.module_uid
  FROM under outer_
  JOIN under inner_ ON inner_.trace = outer_.trace AND inner_.kernel_uid = outer_.kernel_uid
                   AND inner_.depth < outer_.depth
  JOIN qualifying q ON q.trace = inner_.trace AND q.module_uid = inner_.module_uid
),
innermost AS (
  SELECT q.* FROM qualifying q
  LEFT JOIN enclosing e ON e.trace = q.trace AND e.module_uid = q.module_uid
  WHERE e.module_uid IS NULL
),
by_class AS (
  SELECT trace, module,
         count(*) AS instances,
         sum(time_us) AS time_us,
         sum(module_us) AS module_us,
         max(matmul_ops) AS matmul_ops, max(softmax_ops) AS softmax_ops,
         max(scale_ops) AS scale_ops, max(copy_ops) AS copy_ops,
         array_agg(module_uid ORDER BY module_uid) AS uids
  FROM innermost
  GROUP BY trace, module
),
-- One row per finding.
findings AS (
SELECT
  'warning' AS severity,
  'SDPA_fwd' AS category,
  'nn.Module: ' || c.module AS subject,
  'time_us' AS metric,
  CAST(c.time_us AS DOUBLE) AS value,
  CAST(NULL AS DOUBLE) AS threshold,
  'nn.Module ' || c.module || ' runs attention as separate ops, no fused attention kernel: '
    || CAST(c.matmul_ops AS VARCHAR) || ' matmul, ' || CAST(c.softmax_ops AS VARCHAR) || ' softmax, '
    || CAST(c.scale_ops AS VARCHAR) || ' scale, ' || CAST(c.copy_ops AS VARCHAR) || ' copy ops per call ('
    || CAST(c.instances AS VARCHAR) || ' calls; these ops take ' || CAST(round(c.time_us / 1000, 3) AS VARCHAR)
    || ' ms, ' || CAST(round(c.time_us / t.total_time * 100, 1) AS VARCHAR) || '% of the trace)'
    AS message,
  'Use fused attention: torch.nn.functional.scaled_dot_product_attention or a flash-attention '
    || 'kernel in place of the softmax / matmul sequence.' AS action_a,
  'Replay artifacts of the softmax and batched GEMM shapes of this module for the kernel team.'
    AS action_b,
  CAST(c.time_us AS DOUBLE) AS time_us,
  CAST(NULL AS DOUBLE) AS category_share_pct,
  CAST(NULL AS DOUBLE) AS efficiency_pct,
  CAST(NULL AS BIGINT) AS op_rank,
  json_object('instances', c.instances, 'matmul_ops', c.matmul_ops,
              'softmax_ops', c.softmax_ops, 'scale_ops', c.scale_ops,
              'copy_ops', c.copy_ops, 'time_us', c.time_us, 'module_us', c.module_us,
              'share_pct', c.time_us / t.total_time * 100) AS metrics,
  c.uids AS evidence_uids
FROM by_class c
LEFT JOIN gpu_time_totals t ON t.trace = c.trace
)
SELECT * FROM findings
ORDER BY value DESC, subject
