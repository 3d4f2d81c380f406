-- name: pftrace_memory_copy_by_copy_bytes
-- version: 1
-- kind: report
-- formats: pftrace
-- order: 26
-- sheet: memory_copy_by_copy_bytes
-- empty: write
-- description: Perfetto-style JSON: memory copies counted by size and direction (h2d/d2h/d2d with the GPU numbers).
--
-- TraceLens's pftrace memory-copy report, sheet `memory_copy_by_copy_bytes` (spec formats.md
-- §B.6): every event whose category is memory_copy (trimmed, lower-cased) with an
-- int-parsable args.copy_bytes, grouped by (copy_bytes, direction) and sorted by both.
-- The direction comes from the upper-cased name: MEMORY_COPY_HOST_TO_DEVICE → "h2d (GPU dst)",
-- MEMORY_COPY_DEVICE_TO_HOST → "d2h (GPU src)", MEMORY_COPY_DEVICE_TO_DEVICE →
-- "d2d (GPU src -> GPU dst)", anything else → "other". The GPU numbers are the raw
-- args.src_agent / args.dst_agent (agent numbers, not GPU ordinals: CPUs usually hold 0 and 1).
-- Default mode differs from TraceLens in one place:
--   * agent strings as rocprofv3 writes them ("Agent-2", "GPU-0") give their number; under
--     --tracelens-compat only int-parsable agents do and the rest print "?" (so real
--     rocprofv3 traces read "h2d (GPU ?)").
-- Durations and bandwidth are not part of this sheet.
-- Columns:
--   copy_bytes: bytes per copy (args.copy_bytes)
--   direction: h2d (GPU n) / d2h (GPU n) / d2d (GPU n -> GPU m) / other; "?" for an unknown agent
--   count: copies of that size and direction
WITH copies AS (
  SELECT c.bytes,
         upper(trim(CAST(c.name AS VARCHAR))) AS kind,
         trim(CAST(c.src_agent AS VARCHAR)) AS src_text,
         trim(CAST(c.dst_agent AS VARCHAR)) AS dst_text
  FROM memory_copies c
  WHERE c.bytes IS NOT NULL AND c.trace IN (SELECT trace FROM pftrace_traces)
),
parsed AS (
  SELECT bytes, kind,
         CASE
           WHEN regexp_like(src_text, '^[+-]?[0-9]+$')
             THEN CAST(CAST(regexp_replace(src_text, '^\+', '') AS BIGINT) AS VARCHAR)
           WHEN NOT tracelens_compat() AND regexp_like(src_text, '^[A-Za-z][A-Za-z_ ]*-[0-9]+$')
             THEN CAST(CAST(regexp_replace(src_text, '^.*-', '') AS BIGINT) AS VARCHAR)
           ELSE '?'
         END AS src,
         CASE
           WHEN regexp_like(dst_text, '^[+-]?[0-9]+$')
             THEN CAST(CAST(regexp_replace(dst_text, '^\+', '') AS BIGINT) AS VARCHAR)
           WHEN NOT tracelens_compat() AND regexp_like(dst_text, '^[A-Za-z][A-Za-z_ ]*-[0-9]+$')
             THEN CAST(CAST(regexp_replace(dst_text, '^.*-', '') AS BIGINT) AS VARCHAR)
           ELSE '?'
         END AS dst
  FROM copies
),
directed AS (
  SELECT bytes,
         CASE
           WHEN strpos(kind, 'MEMORY_COPY_HOST_TO_DEVICE') > 0 THEN 'h2d (GPU ' || dst || ')'
           WHEN strpos(kind, 'MEMORY_COPY_DEVICE_TO_HOST') > 0 THEN 'd2h (GPU ' || src || ')'
           WHEN strpos(kind, 'MEMORY_COPY_DEVICE_TO_DEVICE') > 0
             THEN 'd2d (GPU ' || src || ' -> GPU ' || dst || ')'
           ELSE 'other'
         END AS direction
  FROM parsed
)
SELECT bytes AS copy_bytes, direction, count(*) AS count
FROM directed
GROUP BY bytes, direction
ORDER BY copy_bytes, direction
