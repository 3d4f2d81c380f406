-- name: jax_df_xla_perf
-- version: 1
-- kind: report
-- formats: jax
-- order: 46
-- sheet: df_xla_perf
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN 'total_input_bytes' || chr(10) END
-- description: JAX XPlane: the uncategorized XLA kernels (fusions, copies, ...) with their HLO operands and the bytes those operands hold.
--
-- TraceLens sheet `df_xla_perf` of its JAX report (spec formats.md §C.7
-- item 8): the kernel_launchers rows whose op category is 'Uncategorized
-- Events/XLA', plus total_input_bytes: for each operand string of the
-- kernel's details that starts with `(\w+)\[([0-9,]*)\]`, prod(shape) ·
-- bytes(dtype), with f32/s32/u32 4, bf16/f16/fp16 2, u64 8, pred 1,
-- f8e4m3fn/f8e4m3fnuz/f8e5m2/f8e5m2fnuz 1 and any other f8*/s8* dtype 1.
-- Quirks reproduced: other dtypes (u8, s64, f64, s16, ...) are skipped
-- (TraceLens warns), so are scalars (empty shape), tuple-shaped operands and
-- unresolved `%name` / `/*index=N*/%name` operands; a kernel without HLO
-- details ('NA') has 0 bytes. With no such kernel TraceLens writes a file
-- holding just `total_input_bytes` (and then crashes on xla_summary).
-- Columns:
--   name: kernel name
--   UID: position among the trace's GPU stream events (TraceLens's UID on the first GPU)
--   "op category": always Uncategorized Events/XLA
--   total_direct_kernel_time: the kernel's duration, µs
--   total_subtree_kernel_time: the same duration, µs
--   direct_kernel_count: 1
--   pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
--   tid: the stream line id
--   "Input Dims": the HLO instruction's operand shapes, Python text
--   "Input type": their dtypes, Python text
--   "Input Strides": always ()
--   "Concrete Inputs": always ()
--   kernel_details: [{name, dur, custom_call_target, operands, outputs, metadata}], Python text
--   GPU_kernel_launch_latency: kernel start - host launch event start, µs (empty without one)
--   total_input_bytes: bytes of the operands TraceLens can size
WITH xla AS (
  SELECT * FROM jax_kernel_rows WHERE op_category = 'Uncategorized Events/XLA'
),
ops AS (
  SELECT trace, uid, regexp_match(op, '^(\w+)\[([0-9,]*)\]') AS m
  FROM (SELECT trace, uid, unnest(operands) AS op FROM xla WHERE in_dict)
),
sized AS (
  SELECT trace, uid,
         CASE
           WHEN m[1] IN ('f32', 's32', 'u32') THEN 4
           WHEN m[1] IN ('bf16', 'f16', 'fp16') THEN 2
           WHEN m[1] = 'u64' THEN 8
           WHEN m[1] IN ('pred', 'f8e4m3fn', 'f8e4m3fnuz', 'f8e5m2', 'f8e5m2fnuz') THEN 1
           WHEN m[1] LIKE 'f8%' OR m[1] LIKE 's8%' THEN 1
         END AS nbytes,
         m[2] AS dims
  FROM ops
  WHERE m IS NOT NULL AND m[2] <> ''
),
bytes AS (
  -- prod(shape) · bytes, in integers (shapes of up to 12 dimensions)
  SELECT trace, uid,
         sum(CAST(nbytes AS BIGINT) * coalesce(CAST(NULLIF(split_part(dims, ',', 1), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 2), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(dims, ',', 12), '') AS BIGINT), 1)) AS total_input_bytes
  FROM sized
  WHERE nbytes IS NOT NULL
  GROUP BY trace, uid
)
SELECT x.name, x.uid_order AS "UID", x.op_category AS "op category",
       x.dur AS total_direct_kernel_time, x.dur AS total_subtree_kernel_time,
       CAST(1 AS BIGINT) AS direct_kernel_count, x.pid, x.tid,
       x."Input Dims", x."Input type", x."Input Strides", x."Concrete Inputs", x.kernel_details,
       x."GPU_kernel_launch_latency",
       coalesce(b.total_input_bytes, CAST(0 AS BIGINT)) AS total_input_bytes
FROM xla x
LEFT JOIN bytes b ON b.trace = x.trace AND b.uid = x.uid
ORDER BY x.trace, x.uid_order
