-- name: frequent_cuda_kernel_sequences
-- version: 1
-- kind: report
-- order: 907
-- runs: on request
-- description: HTA's frequent CUDA kernel sequences: per rank, the sequences of GPU kernels that calls of an operator launch, most frequent first, with their GPU and CPU time (HTA's get_frequent_cuda_kernel_sequences).
--
-- An operator call whose name contains `hta.operator_name` (default `aten::`:
-- every top-level ATen op) and that no other such call encloses is an
-- instance. Its pattern is its name followed by every GPU kernel, copy and
-- set launched beneath it (kernel_ancestors), in GPU start order, joined
-- with `|`. Instances with at least `hta.min_pattern_len` kernels (default
-- 3, HTA's) are counted per pattern. Times are HTA's whole µs (hta_events).
-- HTA instead analyses only the matches at the shallowest call-stack depth
-- (python frames counted), e.g. one of BERT's 26 aten::linear calls, and
-- raises ("Unexpected case") on traces where its rounding gives a python
-- frame a negative length: most real traces (DIFFERENCES.md).
-- Run: `tracesql report T --only frequent_cuda_kernel_sequences --param
-- hta.operator_name=aten::linear --param hta.min_pattern_len=1`.
-- Columns:
--   pattern: the operator's name and its kernels' names, joined with |
--   count: instances with that pattern
--   "GPU kernel duration (us)": their kernels' durations summed, µs
--   "CPU op duration (us)": the instances' own durations summed, µs
--   rank: the trace's rank (0 when the trace gives none)
WITH matched AS (
  -- Every (kernel, call above it) where the call's name matches.
  SELECT a.trace, a.kernel_uid, a.ancestor_uid, a.depth
  FROM kernel_ancestors a
  JOIN events e ON e.trace = a.trace AND e.uid = a.ancestor_uid
  WHERE strpos(e.name, setting('hta.operator_name', 'aten::')) > 0
),
outermost AS (
  -- A kernel belongs to the outermost matching call above it.
  SELECT trace, kernel_uid, ancestor_uid AS instance_uid
  FROM (SELECT *, row_number() OVER (PARTITION BY trace, kernel_uid ORDER BY depth DESC) AS nth FROM matched)
  WHERE nth = 1
),
instances AS (
  SELECT o.trace, coalesce(op.rank, 0) AS rank, o.instance_uid,
         concat(op.name, '|', string_agg(k.name, '|' ORDER BY k.ts, k.uid)) AS pattern,
         count(*) AS kernels,
         sum(k.t_end - k.ts) AS gpu_time,
         max(op.t_end - op.ts) AS cpu_time
  FROM outermost o
  JOIN hta_events k ON k.trace = o.trace AND k.uid = o.kernel_uid
  JOIN hta_events op ON op.trace = o.trace AND op.uid = o.instance_uid
  GROUP BY o.trace, op.rank, o.instance_uid, op.name
)
SELECT pattern, count(*) AS count, sum(gpu_time) AS "GPU kernel duration (us)",
       sum(cpu_time) AS "CPU op duration (us)", rank
FROM instances
WHERE kernels >= CAST(setting('hta.min_pattern_len', '3') AS BIGINT)
GROUP BY trace, rank, pattern
ORDER BY rank, trace, count DESC, pattern
