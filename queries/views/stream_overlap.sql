-- name: stream_overlap
-- version: 1
-- kind: view
-- description: Each pair of streams of one GPU: the time both were busy together, and its share of each stream's busy time.
--
-- together_time = busy(a) + busy(b) - busy(a ∪ b): inclusion-exclusion over
-- the two streams' interval unions, so kernels overlapping within one stream
-- are not counted twice. A communication stream whose together_time with the
-- compute stream is close to its own busy time is hidden behind compute.
-- Columns:
--   trace: trace name
--   rank: the trace's rank
--   device: the GPU
--   stream_a: the lower stream id
--   stream_b: the higher stream id
--   class_a: stream_a's main class (stream_busy.main_class)
--   class_b: stream_b's main class
--   busy_a: stream_a's busy time, µs
--   busy_b: stream_b's busy time, µs
--   together_time: time both were busy, µs
--   share_of_a_pct: together_time / busy_a, %
--   share_of_b_pct: together_time / busy_b, %
WITH pairs AS (
  SELECT a.trace, a.rank, a.device, a.stream AS stream_a, b.stream AS stream_b,
    a.main_class AS class_a, b.main_class AS class_b, a.busy_time AS busy_a, b.busy_time AS busy_b
  FROM stream_busy a
  JOIN stream_busy b ON b.trace = a.trace AND b.device = a.device AND b.stream > a.stream
),
members AS (
  SELECT p.trace, p.device, p.stream_a, p.stream_b, k.ts, k.t_end
  FROM pairs p JOIN linked_kernels k
    ON k.trace = p.trace AND k.device = p.device AND k.stream = p.stream_a
  UNION ALL
  SELECT p.trace, p.device, p.stream_a, p.stream_b, k.ts, k.t_end
  FROM pairs p JOIN linked_kernels k
    ON k.trace = p.trace AND k.device = p.device AND k.stream = p.stream_b
),
unions AS (
  SELECT trace, device, stream_a, stream_b, busy_time(ts, t_end) AS union_time
  FROM members GROUP BY trace, device, stream_a, stream_b
)
SELECT p.trace, p.rank, p.device, p.stream_a, p.stream_b, p.class_a, p.class_b,
  p.busy_a, p.busy_b,
  greatest(p.busy_a + p.busy_b - u.union_time, 0.0) AS together_time,
  CASE WHEN p.busy_a > 0 THEN greatest(p.busy_a + p.busy_b - u.union_time, 0.0) / p.busy_a * 100 END
    AS share_of_a_pct,
  CASE WHEN p.busy_b > 0 THEN greatest(p.busy_a + p.busy_b - u.union_time, 0.0) / p.busy_b * 100 END
    AS share_of_b_pct
FROM pairs p
JOIN unions u ON u.trace = p.trace AND u.device = p.device
  AND u.stream_a = p.stream_a AND u.stream_b = p.stream_b
