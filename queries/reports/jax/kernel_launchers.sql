-- name: jax_kernel_launchers
-- version: 1
-- kind: report
-- formats: jax
-- order: 42
-- sheet: kernel_launchers
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- description: JAX XPlane: every GPU kernel (in JAX the kernel is its own launcher) with its op category, time, GPU and stream, the HLO instruction's operand shapes and dtypes, its kernel details and launch latency.
--
-- TraceLens sheet `kernel_launchers` of its JAX report (spec formats.md §C.7
-- item 3, §C.6, §C.4); the rows and their columns come from view
-- jax_kernel_rows, which lists the quirks reproduced: the kernel
-- categories (hlo_op overriding the name unless the name is flash
-- attention), the HLO dict that skips ROOT instructions ('NA' details, empty
-- arguments), operand references kept as `%name` / `/*index=N*/%name`,
-- `custom_call_target` keeping its key and quotes, `outputs` and `metadata`
-- always 'NA' (TraceLens reads a key its dict lacks; xprof 2.20.1 writes no
-- metadata), the te_fused_attn models' first-three-operand Input Dims and
-- bias in Concrete Inputs. Memcpy and memset stream events are not kernels.
-- UID is the position among the trace's GPU stream events in xprof's order;
-- it equals TraceLens's UID on the first GPU only (xprof's derived timeline
-- lines shift the later GPUs' UIDs). Rows in UID order. A trace without
-- kernels gives TraceLens's empty frame (a lone newline) under
-- --tracelens-compat.
-- Columns:
--   name: kernel name
--   UID: position among the trace's GPU stream events (TraceLens's UID on the first GPU)
--   "op category": TraceLens's JAX kernel category (GEMM, FA BWD, FA FWD, FA V3, Conv, TE, Communication rccl/nccl, Uncategorized Events/XLA)
--   total_direct_kernel_time: the kernel's duration, µs
--   total_subtree_kernel_time: the same duration, µs
--   direct_kernel_count: 1
--   pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
--   tid: the stream line id
--   "Input Dims": the HLO instruction's operand shapes, Python text
--   "Input type": their dtypes, Python text
--   "Input Strides": always ()
--   "Concrete Inputs": te_fused_attn's bias operand shape, else ()
--   kernel_details: [{name, dur, custom_call_target, operands, outputs, metadata}], Python text
--   GPU_kernel_launch_latency: kernel start - host launch event start, µs (empty without one)
SELECT name, uid_order AS "UID", op_category AS "op category",
       dur AS total_direct_kernel_time, dur AS total_subtree_kernel_time,
       CAST(1 AS BIGINT) AS direct_kernel_count, pid, tid,
       "Input Dims", "Input type", "Input Strides", "Concrete Inputs", kernel_details,
       "GPU_kernel_launch_latency"
FROM jax_kernel_rows
ORDER BY trace, uid_order
