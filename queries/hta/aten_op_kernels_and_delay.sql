-- name: aten_op_kernels_and_delay
-- version: 1
-- kind: report
-- order: 906
-- runs: on request
-- description: HTA's ATen op kernel sequences: per rank, each aten:: op with the sequence of kernels it launches, how often that occurs, and the mean delays from the op's start to its first launch and from that launch to its kernel, µs (HTA's get_aten_op_kernels_and_delay, each rank alone).
--
-- Each kernel launch (kernels.launch_uid: cudaLaunchKernel and its variants,
-- cuLaunchKernel as Triton launches, hip* launches, graph launches) belongs
-- to the innermost aten:: op above its launch call on the launching thread
-- (kernel_ancestors). An op instance's kernel sequence is its kernels in
-- launch order, joined by " -> "; instances with the same op name and
-- sequence make one row. Only an instance's first launch feeds the delays,
-- as HTA does: the op launch delay is that launch's start minus the op's
-- start, the runtime delay its kernel's start minus the launch's start (the
-- first kernel of a graph). Times are whole µs of the profiled iterations,
-- as HTA reads them (hta_events). Copies and sets are not kernels here.
-- HTA instead takes, per launch named like cudaLaunchKernel, cuLaunchKernel
-- or runFunction (no hip* launch, no graph launch), the aten:: op on any
-- thread whose whole-µs span holds the launch's and starts last, ties to the
-- first in file order (usually the OUTER op, when an op and the op it calls
-- start in the same µs), and its op instances are (thread, name, whole-µs
-- start). `--param hta.compat=true` reproduces that from the launch's
-- aten:: ancestors (no reference trace has an enclosing aten:: op that is not
-- an ancestor, on the same thread or another), with the kernel found by
-- correlation id (DIFFERENCES.md). HTA raises (KeyError 'thread_id') where no
-- launch lies inside an aten:: op, as in every ROCm trace; this answers there.
-- HTA's row order among equal counts is not stable; here it is by name.
-- Columns:
--   aten_op_name: the aten:: op
--   kernel_sequence: the kernels its instances launch, in launch order, joined by " -> "
--   occurrence_count: instances of the op with that sequence
--   avg_aten_op_launch_delay: mean of op start to first launch start, µs (3 decimals, as numpy rounds)
--   avg_runtime_delay: mean of first launch start to its kernel's start, µs (3 decimals, as numpy rounds)
--   rank: the trace's rank (0 when the trace gives none)
WITH launched AS (
  -- Each kernel with the call that launched it, both in HTA's event set.
  SELECT k.trace, coalesce(k.rank, 0) AS rank, k.uid AS kernel_uid, k.name AS kernel_name,
         g.ts AS kernel_ts, c.uid AS launch_uid, c.ts AS launch_ts, e.ts AS launch_raw_ts
  FROM kernels k
  JOIN hta_events g ON g.trace = k.trace AND g.uid = k.uid
  JOIN hta_events c ON c.trace = k.trace AND c.uid = k.launch_uid
  JOIN events e ON e.trace = k.trace AND e.uid = k.launch_uid
  WHERE k.cat = 'kernel' AND setting('hta.compat', 'false') <> 'true'
),
aten_ancestors AS (
  -- The aten:: ops above each kernel's launch call, with their whole-µs start.
  SELECT a.trace, a.kernel_uid, a.ancestor_uid AS op_uid, a.depth, o.name AS op_name, o.ts AS op_ts
  FROM kernel_ancestors a
  JOIN hta_events o ON o.trace = a.trace AND o.uid = a.ancestor_uid
  WHERE a.depth >= 2 AND starts_with(o.name, 'aten::')
),
innermost AS (
  SELECT trace, kernel_uid, op_uid, op_name, op_ts,
         row_number() OVER (PARTITION BY trace, kernel_uid ORDER BY depth) AS pick
  FROM aten_ancestors
),
ours AS (
  -- An op instance is the op event itself; launches in time order.
  SELECT l.trace, l.rank, CAST(NULL AS VARCHAR) AS thread_id, i.op_uid, i.op_name AS aten_op_name,
         i.op_ts AS aten_op_start, l.launch_ts - i.op_ts AS aten_op_delay,
         l.kernel_ts - l.launch_ts AS runtime_delay, l.kernel_name,
         row_number() OVER (PARTITION BY l.trace, i.op_uid
                            ORDER BY l.launch_raw_ts, l.launch_uid, l.kernel_ts, l.kernel_uid) AS launch_no
  FROM launched l
  JOIN innermost i ON i.trace = l.trace AND i.kernel_uid = l.kernel_uid AND i.pick = 1
),
hta_launches AS (
  -- HTA's launches: by name (re.match, so anchored at the start).
  SELECT trace, coalesce(rank, 0) AS rank, uid, correlation, ts
  FROM hta_events
  WHERE setting('hta.compat', 'false') = 'true'
    AND regexp_like(name, '^(cuda.*LaunchKernel|cuLaunchKernel|runFunction)')
),
hta_kernels AS (
  -- The launch's GPU work by correlation id (HTA's index_correlation).
  SELECT l.trace, l.uid AS launch_uid, g.uid AS kernel_uid, g.name AS kernel_name, g.ts AS kernel_ts
  FROM hta_launches l
  JOIN hta_events g ON g.trace = l.trace AND g.correlation = l.correlation
  WHERE g.on_gpu AND g.correlation >= 0
),
hta_candidates AS (
  -- The aten:: ops enclosing the launch: its ancestors (through any kernel
  -- it launched).
  SELECT DISTINCT k.trace, k.launch_uid, a.op_uid, a.op_name, a.op_ts
  FROM kernels k
  JOIN hta_launches l ON l.trace = k.trace AND l.uid = k.launch_uid
  JOIN aten_ancestors a ON a.trace = k.trace AND a.kernel_uid = k.uid
),
hta_pick AS (
  -- HTA's "deepest" op: the latest whole-µs start, ties to file order.
  SELECT *, row_number() OVER (PARTITION BY trace, launch_uid ORDER BY op_ts DESC, op_uid) AS pick
  FROM hta_candidates
),
theirs AS (
  -- An op instance is (thread, name, whole-µs start); launches in file order.
  SELECT l.trace, l.rank, e.tid AS thread_id, CAST(NULL AS BIGINT) AS op_uid, p.op_name AS aten_op_name,
         p.op_ts AS aten_op_start, l.ts - p.op_ts AS aten_op_delay,
         k.kernel_ts - l.ts AS runtime_delay, k.kernel_name,
         row_number() OVER (PARTITION BY l.trace, e.tid, p.op_name, p.op_ts
                            ORDER BY l.uid, k.kernel_uid) AS launch_no
  FROM hta_launches l
  JOIN hta_pick p ON p.trace = l.trace AND p.launch_uid = l.uid AND p.pick = 1
  JOIN hta_kernels k ON k.trace = l.trace AND k.launch_uid = l.uid
  JOIN events e ON e.trace = l.trace AND e.uid = p.op_uid
),
launches AS (SELECT * FROM ours UNION ALL SELECT * FROM theirs),
instances AS (
  SELECT trace, rank, aten_op_name,
         string_agg(kernel_name, ' -> ' ORDER BY launch_no) AS kernel_sequence,
         max(CASE WHEN launch_no = 1 THEN aten_op_delay END) AS first_launch_delay,
         max(CASE WHEN launch_no = 1 THEN runtime_delay END) AS first_runtime_delay
  FROM launches
  GROUP BY trace, rank, thread_id, op_uid, aten_op_name, aten_op_start
),
summary AS (
  SELECT trace, rank, aten_op_name, kernel_sequence, count(*) AS occurrence_count,
         avg(first_launch_delay) AS avg_aten_op_launch_delay, avg(first_runtime_delay) AS avg_runtime_delay
  FROM instances
  GROUP BY trace, rank, aten_op_name, kernel_sequence
)
SELECT aten_op_name, kernel_sequence, occurrence_count,
       np_round(avg_aten_op_launch_delay, 3) AS avg_aten_op_launch_delay,
       np_round(avg_runtime_delay, 3) AS avg_runtime_delay,
       rank
FROM summary
ORDER BY rank, trace, occurrence_count DESC, aten_op_name, kernel_sequence
