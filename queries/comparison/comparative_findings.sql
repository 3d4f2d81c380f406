-- name: comparative_findings
-- version: 1
-- kind: comparison
-- description: The recommendations of a comparative analysis: op shapes on which the target is slower than the two platforms' rooflines explain, ranked by the target time the hardware does not explain, each with Gap, Action and Impact.
--
-- What `analyze TARGET --reference REF` writes as comparison_findings.csv /
-- .json and lists under "Recommendations for the target".
-- Columns:
--   priority: rank, 1 first
--   name: op name
--   "op category": its category
--   "Input Dims": argument shapes
--   ref_us: the reference's kernel time, µs
--   target_us: the target's, µs
--   actual_ratio: target_us / ref_us
--   expected_ratio: what the platforms predict
--   target_bound: COMPUTE_BOUND or MEMORY_BOUND on the target (NULL without a perf model)
--   unexplained_us: target time the hardware does not explain, µs
--   priority_pct: unexplained_us as % of the target's op time
--   gap: the gap in words
--   action: what to look at on the target
--   impact: what fixing it could win
SELECT row_number() OVER (ORDER BY unexplained_us DESC, name, "Input Dims", "Input type", thread_role) AS priority,
       name, "op category", "Input Dims", ref_us, target_us, actual_ratio, expected_ratio,
       target_bound, unexplained_us, priority_pct,
       'Target is ' || CAST(round(abs(actual_ratio - 1.0) * 100.0, 1) AS VARCHAR) || '% '
         || CASE WHEN actual_ratio >= 1.0 THEN 'slower' ELSE 'faster' END
         || ' on ' || name || ' ' || coalesce("Input Dims", '')
         || ' (unexpected: the hardware predicts '
         || CAST(round(abs(expected_ratio - 1.0) * 100.0, 1) AS VARCHAR) || '% '
         || CASE WHEN expected_ratio >= 1.0 THEN 'slower' ELSE 'faster' END
         || ', by ' || expectation || ')' AS gap,
       CASE
         WHEN target_mean_us < 5.0 THEN 'Short kernels (under 5 µs each on the target): launch and latency, not bandwidth or compute, bound them; fuse them with their neighbours or batch them (CUDA/HIP graphs) rather than tune them'
         WHEN target_bound = 'COMPUTE_BOUND' THEN 'Compute-bound on the target: check the kernel chosen for this shape (library, tile configuration, dtype path) against the target''s peak'
         WHEN target_bound = 'MEMORY_BOUND' THEN 'Memory-bound on the target: look for fusion with neighbouring ops and for layout copies; the kernel moves its bytes slower than the bandwidth ratio predicts'
         ELSE 'No perf model for this op: profile its kernels on the target and compare them with the reference''s'
       END AS action,
       'Up to ' || CAST(round(unexplained_us, 1) AS VARCHAR) || ' µs per run ('
         || CAST(round(priority_pct, 1) AS VARCHAR) || '% of the target''s op time)' AS impact
FROM comparative_ops
WHERE expected = 'target_slower' AND unexplained_us > 0
ORDER BY priority
