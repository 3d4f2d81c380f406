-- name: jax_attention_rows
-- version: 1
-- kind: view
-- description: JAX XPlane: every kernel of a Transformer Engine fused-attention custom call (TraceLens's jax_te_fused_attn / jax_te_fused_attn_bwd models) with the attention problem read from its HLO operands (packed QKV included) and backend config, and its SDPA FLOPs, bytes and rates.
--
-- The per-kernel rows behind the op_fa_fwd, op_fa_bwd, op_fa_v3 and op_te
-- sheets of the JAX perf report (spec formats.md §C.7 item 10; SDPA formulas
-- [PT §7.2], §7.6 / tracelens-reports.md §7). Rows: the jax_kernel_rows kernels
-- whose perf model is jax_te_fused_attn (forward) or jax_te_fused_attn_bwd
-- (backward: the model name ends in _bwd), whatever their op category.
--
-- TraceLens takes q, k, v = the first three parsed operand shapes (Input
-- Dims) and reads each as BSHD. Transformer Engine packs them: with
-- qkv_layout BS3HD the first operand is bf16[B,S,3,H,D] and k, v are bf16[0],
-- so its shape extraction raises IndexError and its whole report aborts (the
-- jax_te_fused_attn trace). Here the operands are read through the layout:
-- * the backend config's `qkv_layout` (Transformer Engine's NVTE_QKV_Layout,
--   `qkv_layout = 5 : i64` in the MLIR attribute text, or "qkv_layout": 5 as
--   JSON): format = layout / 5 (0 SBHD, 1 BSHD, 2 THD), group = layout % 5
--   (0 3HD, 1 H3D, 2 HD_2HD, 3 HD_H2D, 4 HD_HD_HD);
-- * without it (or past 14, the paged layouts) the group is inferred from the
--   shapes: operand 1 of rank 5 with a 3 at dim 3 → 3HD, at dim 4 → H3D; else
--   operand 2 of rank 5 with a 2 at dim 3 → HD_2HD, at dim 4 → HD_H2D; else
--   HD_HD_HD; the format is BSHD;
-- * q, k and v follow the operand order: 3HD/H3D take all three from operand
--   1 ([B,S,3,H,D] / [B,S,H,3,D]), HD_2HD/HD_H2D take q from operand 1 and k,
--   v from operand 2 ([B,S,2,H,D] / [B,S,H,2,D]), HD_HD_HD one operand each;
--   SBHD swaps B and S. JAX's THD layouts keep [B,S,…] arrays (sequences
--   packed along S, cut by segment ids), so THD is read as BSHD: one sequence
--   of S per batch row, an upper bound on the FLOPs.
-- Then B, N_Q = S of q, H_Q, N_KV = S of k, H_KV, d_h_qk = D of q, d_h_v = D
-- of v; a shape that does not fit the layout gives NULL params and FLOPs.
-- Params as TraceLens's model has them: bias = Concrete Inputs[0:1] (the
-- fourth parsed operand's shape, Python text), dtype_A_B = the torch names of
-- the first two operand dtypes (f32 float, f64 double, f16 c10::half, bf16
-- c10::bfloat16, f8 c10::float8_e4m3fnuz, fp8 fp8, else None), flash_impl
-- and fused True, bytes_per_element from the first dtype (f32 4, f16/bf16 2,
-- f8/fp8 1, else NULL: TraceLens would fail the instance).
-- causal: TraceLens always says False; under --tracelens-compat so do we.
-- By default it is the backend config's `mask_type` (NVTE_Mask_Type): 2
-- CAUSAL and 3 PADDING_CAUSAL (top-left) and 4/5 (bottom-right) are causal,
-- 0/1 and an absent mask are not. dropout (default mode only, NULL under
-- compat where TraceLens has no such param): the backend config's
-- `dropout_probability`; it does not enter the FLOPs.
-- FLOPs and bytes: sdpa_flops / sdpa_bytes (the PyTorch SDPA model's
-- formulas, udfs perf/sdpa.rs): forward flops = B·H_Q·2·N_Q·N_KV·(d_qk + d_v),
-- halved when causal; backward = the flash recompute of QKᵀ + dV + dP + dQ +
-- dK GEMMs (+ GQA reductions), 2.5× the forward, halved when causal; bytes =
-- (q + k + v + out)·bpe forward, (q + k + v + dO + dQ + dK + dV)·bpe
-- backward. Semantics 'tracelens' under compat, 'bugfixes' by default (causal
-- with N_Q ≠ N_KV scaled by the mask's share instead of failing).
-- Every kernel of one custom call gets that op's full FLOPs and bytes (as in
-- TraceLens, which models the custom call and repeats it on each of its
-- kernels: the rng-state and fill-buffer helpers too). Under
-- --tracelens-compat TFLOPS/s and TB/s divide by each kernel's own duration,
-- which puts a 2 µs helper kernel at tens of thousands of TFLOPS/s. By
-- default they divide by the call's kernel time: the summed duration of the
-- consecutive kernels of that custom-call execution (same GPU, stream, HLO
-- module, program and op, adjacent in UID order), so every kernel of the call
-- shows the call's achieved rate; Kernel Time stays per kernel.
-- Columns:
--   trace: trace name
--   uid_order: TraceLens's UID (jax_kernel_rows.uid_order)
--   name: kernel name
--   op_category: the kernel's op category (FA FWD, FA BWD, FA V3, TE, or another class)
--   perf_model: jax_te_fused_attn or jax_te_fused_attn_bwd
--   bwd: whether the backward formulas apply (the model name ends in _bwd)
--   dur: kernel duration, µs
--   call_dur: summed duration of the kernels of the custom-call execution this kernel belongs to, µs
--   call_kernels: number of kernels of that execution
--   thread_name: the stream line's name
--   "Input Dims": TraceLens's Input Dims (first three parsed operand shapes), Python text
--   "Input type": their dtypes, Python text
--   qkv_layout: the backend config's qkv_layout, NULL when absent
--   qkv_group: the packing read: 3HD, H3D, HD_2HD, HD_H2D or HD_HD_HD
--   qkv_format: SBHD or BSHD (THD read as BSHD)
--   mask_type: the backend config's mask_type, NULL when absent
--   p_b: B
--   p_n_q: N_Q (query sequence length)
--   p_h_q: H_Q (query heads)
--   p_n_kv: N_KV (key/value sequence length)
--   p_h_kv: H_KV (key/value heads)
--   p_d_qk: d_h_qk (q/k head dim)
--   p_d_v: d_h_v (v head dim)
--   p_bias: TraceLens's bias param: Concrete Inputs[0:1], Python text
--   p_dtype: dtype_A_B, Python tuple text
--   p_dropout: dropout probability (NULL under --tracelens-compat or without one)
--   p_causal: causal ('True'/'False')
--   p_bpe: bytes per element of the first operand's dtype
--   flops: the attention's FLOPs (fwd or bwd)
--   bytes: its bytes moved
--   gflops: flops / 1e9
--   mb: bytes / 1048576
--   flops_byte: FLOPs per byte (GFLOPS·1e9 / bytes, as TraceLens computes it)
--   tflops_s: TFLOPS/s (compat: over the kernel's duration; default: over call_dur)
--   tb_s: TB/s (same divisor)
WITH all_rows AS (
  SELECT trace, uid_order, pid, tid, hlo_module, program_id, hlo_op, dur,
         CASE WHEN (lag(hlo_op) OVER w IS NOT DISTINCT FROM hlo_op)
                   AND (lag(hlo_module) OVER w IS NOT DISTINCT FROM hlo_module)
                   AND (lag(program_id) OVER w IS NOT DISTINCT FROM program_id)
                   AND hlo_op IS NOT NULL
              THEN 0 ELSE 1 END AS starts_call
  FROM jax_kernel_rows
  WINDOW w AS (PARTITION BY trace, pid, tid ORDER BY uid_order)
),
calls AS (
  SELECT *, sum(starts_call) OVER (PARTITION BY trace, pid, tid ORDER BY uid_order
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS call_no
  FROM all_rows
),
call_time AS (
  SELECT trace, pid, tid, call_no, sum(dur) AS call_dur, count(*) AS call_kernels
  FROM calls GROUP BY trace, pid, tid, call_no
),
attn AS (
  SELECT r.trace, r.uid_order, r.name, r.op_category, r.perf_model,
         r.perf_model LIKE '%\_bwd' ESCAPE '\' AS bwd, r.dur, ct.call_dur, ct.call_kernels,
         r.thread_name, r."Input Dims", r."Input type", r."Concrete Inputs",
         CAST((regexp_match(r.backend_config, 'qkv_layout"?\s*[=:]\s*([0-9]+)'))[1] AS BIGINT) AS qkv_layout,
         CAST((regexp_match(r.backend_config, 'mask_type"?\s*[=:]\s*([0-9]+)'))[1] AS BIGINT) AS mask_type,
         CAST((regexp_match(r.backend_config, 'dropout_probability"?\s*[=:]\s*([-+0-9.eE]+)'))[1] AS DOUBLE) AS dropout,
         CAST(string_to_array(r.dims_list[1], ',') AS BIGINT[]) AS s1,
         CAST(string_to_array(r.dims_list[2], ',') AS BIGINT[]) AS s2,
         CAST(string_to_array(r.dims_list[3], ',') AS BIGINT[]) AS s3,
         r.types_list[1] AS t1, r.types_list[2] AS t2
  FROM jax_kernel_rows r
  JOIN calls c ON c.trace = r.trace AND c.uid_order = r.uid_order
  JOIN call_time ct ON ct.trace = c.trace AND ct.pid = c.pid AND ct.tid = c.tid AND ct.call_no = c.call_no
  WHERE r.perf_model IN ('jax_te_fused_attn', 'jax_te_fused_attn_bwd')
),
layout AS (
  SELECT *,
         CASE
           WHEN qkv_layout BETWEEN 0 AND 14 THEN
             CASE qkv_layout % 5 WHEN 0 THEN '3HD' WHEN 1 THEN 'H3D' WHEN 2 THEN 'HD_2HD'
                                 WHEN 3 THEN 'HD_H2D' ELSE 'HD_HD_HD' END
           WHEN cardinality(s1) = 5 AND s1[3] = 3 THEN '3HD'
           WHEN cardinality(s1) = 5 AND s1[4] = 3 THEN 'H3D'
           WHEN cardinality(s2) = 5 AND s2[3] = 2 THEN 'HD_2HD'
           WHEN cardinality(s2) = 5 AND s2[4] = 2 THEN 'HD_H2D'
           ELSE 'HD_HD_HD'
         END AS qkv_group,
         CASE WHEN qkv_layout BETWEEN 0 AND 4 THEN 'SBHD' ELSE 'BSHD' END AS qkv_format
  FROM attn
),
tensors AS (
  -- q, k, v as [B, S, H, D] in the operand's own axis order (SBHD swapped below)
  SELECT *,
         CASE qkv_group
           WHEN '3HD' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[4], s1[5]) END
           WHEN 'H3D' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[3], s1[5]) END
           ELSE CASE WHEN cardinality(s1) = 4 THEN s1 END
         END AS q4,
         CASE qkv_group
           WHEN '3HD' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[4], s1[5]) END
           WHEN 'H3D' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[3], s1[5]) END
           WHEN 'HD_2HD' THEN CASE WHEN cardinality(s2) = 5 THEN make_array(s2[1], s2[2], s2[4], s2[5]) END
           WHEN 'HD_H2D' THEN CASE WHEN cardinality(s2) = 5 THEN make_array(s2[1], s2[2], s2[3], s2[5]) END
           ELSE CASE WHEN cardinality(s2) = 4 THEN s2 END
         END AS k4,
         CASE qkv_group
           WHEN '3HD' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[4], s1[5]) END
           WHEN 'H3D' THEN CASE WHEN cardinality(s1) = 5 THEN make_array(s1[1], s1[2], s1[3], s1[5]) END
           WHEN 'HD_2HD' THEN CASE WHEN cardinality(s2) = 5 THEN make_array(s2[1], s2[2], s2[4], s2[5]) END
           WHEN 'HD_H2D' THEN CASE WHEN cardinality(s2) = 5 THEN make_array(s2[1], s2[2], s2[3], s2[5]) END
           ELSE CASE WHEN cardinality(s3) = 4 THEN s3 END
         END AS v4
  FROM layout
),
params AS (
  SELECT *,
         CASE WHEN qkv_format = 'SBHD' THEN q4[2] ELSE q4[1] END AS p_b,
         CASE WHEN qkv_format = 'SBHD' THEN q4[1] ELSE q4[2] END AS p_n_q,
         q4[3] AS p_h_q,
         CASE WHEN qkv_format = 'SBHD' THEN k4[1] ELSE k4[2] END AS p_n_kv,
         k4[3] AS p_h_kv,
         q4[4] AS p_d_qk,
         v4[4] AS p_d_v,
         -- TraceLens's checks (extract_sdpa_cfg): batches, K/V heads and lengths, q/k head dims agree
         (CASE WHEN qkv_format = 'SBHD' THEN k4[2] ELSE k4[1] END) = (CASE WHEN qkv_format = 'SBHD' THEN q4[2] ELSE q4[1] END)
           AND (CASE WHEN qkv_format = 'SBHD' THEN v4[2] ELSE v4[1] END) = (CASE WHEN qkv_format = 'SBHD' THEN q4[2] ELSE q4[1] END)
           AND k4[3] = v4[3] AND k4[4] = q4[4]
           AND (CASE WHEN qkv_format = 'SBHD' THEN k4[1] ELSE k4[2] END) = (CASE WHEN qkv_format = 'SBHD' THEN v4[1] ELSE v4[2] END)
           AS consistent,
         "Concrete Inputs" AS p_bias,
         '(' || CASE t1 WHEN 'f32' THEN '''float''' WHEN 'f64' THEN '''double''' WHEN 'f16' THEN '''c10::half'''
                        WHEN 'bf16' THEN '''c10::bfloat16''' WHEN 'f8' THEN '''c10::float8_e4m3fnuz'''
                        WHEN 'fp8' THEN '''fp8''' ELSE 'None' END
             || ', '
             || CASE t2 WHEN 'f32' THEN '''float''' WHEN 'f64' THEN '''double''' WHEN 'f16' THEN '''c10::half'''
                        WHEN 'bf16' THEN '''c10::bfloat16''' WHEN 'f8' THEN '''c10::float8_e4m3fnuz'''
                        WHEN 'fp8' THEN '''fp8''' ELSE 'None' END
             || ')' AS p_dtype,
         CASE WHEN tracelens_compat() THEN NULL ELSE dropout END AS p_dropout,
         CASE WHEN tracelens_compat() THEN false ELSE coalesce(mask_type IN (2, 3, 4, 5), false) END AS causal,
         coalesce(mask_type IN (4, 5), false) AS bottom_right,
         CASE lower(t1) WHEN 'f32' THEN 4 WHEN 'f16' THEN 2 WHEN 'bf16' THEN 2 WHEN 'f8' THEN 1 WHEN 'fp8' THEN 1 END AS p_bpe
  FROM tensors
),
metrics AS (
  SELECT *,
         CASE WHEN consistent THEN
           sdpa_flops(p_b, p_n_q, p_h_q, p_n_kv, p_h_kv, p_d_qk, p_d_v, causal, true,
                      CASE WHEN bwd THEN 'bwd' ELSE 'fwd' END,
                      CASE WHEN tracelens_compat() THEN 'tracelens' ELSE 'bugfixes' END, bottom_right)
         END AS flops,
         CASE WHEN consistent THEN
           sdpa_bytes(p_b, p_n_q, p_h_q, p_n_kv, p_h_kv, p_d_qk, p_d_v, p_bpe,
                      CASE WHEN bwd THEN 'bwd' ELSE 'fwd' END)
         END AS bytes,
         CASE WHEN tracelens_compat() THEN dur ELSE call_dur END AS rate_dur
  FROM params
)
SELECT trace, uid_order, name, op_category, perf_model, bwd, dur, call_dur, call_kernels, thread_name,
       "Input Dims", "Input type", qkv_layout, qkv_group, qkv_format, mask_type,
       p_b, p_n_q, p_h_q, p_n_kv, p_h_kv, p_d_qk, p_d_v, p_bias, p_dtype, p_dropout,
       CASE WHEN causal THEN 'True' ELSE 'False' END AS p_causal, p_bpe,
       flops, bytes,
       flops / 1e9 AS gflops,
       bytes / 1048576 AS mb,
       CASE WHEN bytes > 0 THEN (flops / 1e9 * 1e9) / bytes END AS flops_byte,
       CASE WHEN rate_dur > 0 THEN (flops / 1e9 / 1e3) / (rate_dur / 1e6) END AS tflops_s,
       CASE WHEN rate_dur > 0 THEN (bytes / 1e12) / (rate_dur / 1e6) END AS tb_s
FROM metrics
