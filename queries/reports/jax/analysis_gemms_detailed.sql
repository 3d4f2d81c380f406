-- name: jax_analysis_gemms_detailed
-- version: 1
-- kind: report
-- formats: jax
-- order: 65
-- sheet: jax_analysis_gemms_detailed
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- drop_null_columns: param: transpose
-- integer_if: Kernel Time (µs) when SELECT tracelens_compat()
-- description: JAX XPlane (TraceLens's JAX analysis report): every GEMM kernel of GPU 0 that runs a GEMM of the analysed HLO module (jit_train_step unless --set jax.analysis_module=NAME), with FLOPs, bytes, TFLOPS/s and TB/s, rounded to 2 decimals.
--
-- TraceLens file `trace_analysis_results_gemms_detailed.csv` of
-- `generate_perf_report_jax_analysis` (spec formats.md §C.8,
-- `JaxAnalyses.gemm_performance_from_pb`): the stream kernels of GPU pid 1
-- whose hlo_op names a GEMM of view jax_analysis_gemm_ops' selected module
-- (setting jax.analysis_module, default jit_train_step), in stream then
-- time order, through `JaxAnalyses.JaxGemm`:
-- GFLOPS = Batch·(2·M·N·K + M·N·bias)/1e9 with bias = Beta ≠ 0; bytes =
-- Batch·(M·K + K·N + M·N + N·bias)·bpe with bpe f32 4, f16/bf16 2, f8/fp8 1;
-- TFLOPS/s = (GFLOPS/1e3)/(dur/1e6), Data Moved (MB) = bytes/1048576,
-- FLOPS/Byte = GFLOPS·1e9/bytes, TB/s = (bytes/1e12)/(dur/1e6) (NULL,
-- TraceLens's NaN, for a zero duration or zero bytes). Quirks reproduced:
-- * the kernel's own module is not checked: any GPU-0 kernel whose hlo_op
--   has the GEMM's name counts;
-- * param columns in TraceLens's order: M, N, K, bias, stride_A and
--   stride_B (always empty), dtype_A_B = (Type, Type), Op B = Batch,
--   simulation_dtype (f32→fp32, f16→fp16, bf16→bf16, f8/fp8→fp8), then the
--   perf model's own B (always 1) and transpose from the kernel name (left
--   out when no row has one);
-- * Kernel Time (µs) prints as integers when every duration is whole
--   (xprof's JSON writes whole durations as ints);
-- * with no such kernel (every test trace: no jit_train_step module) the
--   file is a lone newline under --tracelens-compat (pandas' empty frame),
--   else the header;
-- * every value goes through pandas round(2) (half-to-even on the binary
--   value: np_round).
-- Not reproduced: a matching kernel whose name holds no GEMM keyword (Cijk,
-- gemm, nvjet, cublasLt) has no perf model and crashes TraceLens; it is
-- left out here. No simulated (Origami) columns: they need a GEMM simulator.
-- One table for all the loaded traces: load one trace per report run.
-- Columns:
--   GFLOPS: the GEMM's GFLOPs (the whole op's, for every kernel of it)
--   "Kernel Time (µs)": the kernel's duration, µs
--   "TFLOPS/s": GFLOPS / 1e3 / (duration / 1e6)
--   "Data Moved (MB)": bytes / 1048576
--   "FLOPS/Byte": FLOPs per byte
--   "TB/s": bytes / 1e12 / (duration / 1e6)
--   "param: M": M
--   "param: N": N
--   "param: K": K
--   "param: bias": Beta ≠ 0 (True / False)
--   "param: stride_A": always empty (None)
--   "param: stride_B": always empty (None)
--   "param: dtype_A_B": (Type, Type), Python tuple
--   "param: Op B": Batch
--   "param: simulation_dtype": the GEMM simulator's dtype name
--   "param: B": always 1 (the GEMM base class's default)
--   "param: transpose": (transA, transB) from the kernel name, Python tuple
WITH ops AS (
  SELECT trace, name AS hlo_op, "Batch" AS p_b, "M" AS p_m, "N" AS p_n, "K" AS p_k,
         "Beta" AS beta, "Type" AS type,
         row_number() OVER (PARTITION BY trace, name ORDER BY id) AS dup
  FROM jax_analysis_gemm_ops
  WHERE selected
),
kern AS (
  SELECT k.trace, k.uid, k.name, k.stream, k.ts, k.dur, o.p_b, o.p_m, o.p_n, o.p_k, o.beta, o.type,
         coalesce(o.beta, 0) <> 0 AS p_bias,
         CASE o.type WHEN 'f32' THEN 4 WHEN 'f16' THEN 2 WHEN 'bf16' THEN 2 WHEN 'f8' THEN 1 WHEN 'fp8' THEN 1 END AS bpe
  FROM kernels k
  JOIN kernel_dispatches d ON d.trace = k.trace AND d.uid = k.uid
  JOIN ops o ON o.trace = k.trace AND o.hlo_op = d.hlo_op AND o.dup = 1
  WHERE k.device = 0
    AND (k.name LIKE '%Cijk%' OR k.name LIKE '%gemm%' OR k.name LIKE '%nvjet%' OR k.name LIKE '%cublasLt%')
),
metrics AS (
  SELECT *,
         CAST(p_b AS DOUBLE) * (2.0 * p_m * p_n * p_k + CASE WHEN p_bias THEN CAST(p_m AS DOUBLE) * p_n ELSE 0 END) AS flops,
         CAST(p_b AS DOUBLE) * ((CAST(p_m AS DOUBLE) * p_k + CAST(p_k AS DOUBLE) * p_n + CAST(p_m AS DOUBLE) * p_n
                                 + CASE WHEN p_bias THEN p_n ELSE 0 END) * bpe) AS bytes
  FROM kern
),
rates AS (
  SELECT *,
         flops / 1e9 AS gflops,
         CASE WHEN dur > 0 THEN (flops / 1e9 / 1e3) / (dur / 1e6) END AS tflops_s,
         bytes / 1048576 AS mb,
         CASE WHEN bytes > 0 THEN (flops / 1e9 * 1e9) / bytes END AS flops_byte,
         CASE WHEN dur > 0 THEN (bytes / 1e12) / (dur / 1e6) END AS tb_s,
         CASE
           WHEN regexp_like(name, 'C[a-z]{3}_A[a-z]{3}_B[a-z]{3}') THEN
             '(' || CASE WHEN strpos(name, '_Ailk_') > 0 THEN 'False' WHEN strpos(name, '_Alik_') > 0 THEN 'True' ELSE 'None' END
             || ', ' || CASE WHEN strpos(name, '_Bljk_') > 0 THEN 'False' WHEN strpos(name, '_Bjlk_') > 0 THEN 'True' ELSE 'None' END
             || ')'
           WHEN name LIKE 'nvjet%' THEN
             '(' || CASE WHEN substr(split_part(name, '_', -1), 1, 1) = 'T' THEN 'True' ELSE 'False' END
             || ', ' || CASE WHEN substr(split_part(name, '_', -1), 2, 1) = 'T' THEN 'True' ELSE 'False' END || ')'
         END AS transpose
  FROM metrics
)
SELECT np_round(gflops, 2) AS "GFLOPS", np_round(dur, 2) AS "Kernel Time (µs)",
       np_round(tflops_s, 2) AS "TFLOPS/s", np_round(mb, 2) AS "Data Moved (MB)",
       np_round(flops_byte, 2) AS "FLOPS/Byte", np_round(tb_s, 2) AS "TB/s",
       p_m AS "param: M", p_n AS "param: N", p_k AS "param: K",
       CASE WHEN p_bias THEN 'True' ELSE 'False' END AS "param: bias",
       CAST(NULL AS VARCHAR) AS "param: stride_A", CAST(NULL AS VARCHAR) AS "param: stride_B",
       '(' || substr(py_str_list(make_array(type)), 2, length(py_str_list(make_array(type))) - 2) || ', '
         || substr(py_str_list(make_array(type)), 2, length(py_str_list(make_array(type))) - 2) || ')'
         AS "param: dtype_A_B",
       p_b AS "param: Op B",
       CASE type WHEN 'f32' THEN 'fp32' WHEN 'f16' THEN 'fp16' WHEN 'bf16' THEN 'bf16'
                 WHEN 'f8' THEN 'fp8' WHEN 'fp8' THEN 'fp8' END AS "param: simulation_dtype",
       CAST(1 AS BIGINT) AS "param: B",
       transpose AS "param: transpose"
FROM rates
ORDER BY trace, stream, ts, uid
