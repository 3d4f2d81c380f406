-- name: jax_op_gemm
-- version: 1
-- kind: report
-- formats: jax
-- order: 49
-- sheet: op_gemm
-- drop_null_columns: param: transpose
-- description: JAX XPlane: GEMM kernels of cuBLAS/hipBLASLt custom calls with the GEMM's B, M, N, K, FLOPs, bytes, TFLOPS/s and TB/s per kernel, grouped by kernel name and shape.
--
-- TraceLens sheet `op_gemm` of its JAX report (spec formats.md §C.7 item 10,
-- model jax_gemm; [PT §7.2], [PT §7.4] formulas, [PT §8.5] summary): the
-- kernels of category GEMM whose HLO custom-call target holds matmul or
-- cublas (Triton gemm_fusion_dot kernels have no custom call, so no row), in
-- UID order. `process_gemm_ops` on the instruction:
-- * the output is the instruction's shape, or for a tuple its first
--   non-scalar bf16/f16/f32/f8/fp8 element; its layout decides M and N;
-- * K = lhs[lhs_contracting_dimensions], removed (first equal value) from
--   both operand shapes; with a rank-3 output, batch = output[0] is removed
--   too; then with a `0,1` in the output layout N = rhs rest, M = lhs rest,
--   else N = lhs rest, M = rhs rest (1 when nothing is left);
-- * Beta from backend_config's `"beta":0|1,`; bias = Beta ≠ 0;
-- * Type = the first operand's dtype among bf16, f16, f32, f8, fp8 (fp8 when
--   the target holds f8); bpe f32 4, f16/bf16 2, f8/fp8 1; simulation_dtype
--   f32→fp32, f16→fp16, bf16→bf16, f8/fp8→fp8;
-- * transpose from the kernel name: ROCm `C???_A???_B???` names give
--   (_Alik_, _Bjlk_) flags (None when neither form), nvjet names their last
--   `_` token's T/N letters; other names have no transpose (column left out
--   when no row has one).
-- flops = B·(2·M·N·K + M·N·bias); bytes = B·(M·K + K·N + M·N + N·bias)·bpe;
-- per kernel GFLOPS = flops/1e9, TFLOPS/s = (GFLOPS/1e3)/(dur/1e6), Data
-- Moved (MB) = bytes/1048576, FLOPS/Byte = GFLOPS·1e9/bytes, TB/s =
-- (bytes/1e12)/(dur/1e6). Every kernel of the custom call gets the whole
-- GEMM's FLOPs. Not reproduced: TraceLens raises (and aborts its report) on
-- a GEMM with more than 4 or no shaped operands, a contracting-dimension
-- mismatch, a beta other than 0/1, mixed operand dtypes or a rank > 3;
-- here such a kernel gets whatever the formulas give. Operands that are
-- unresolved `%name` references are not looked up. Groups: name + the
-- param: cells, sorted by Kernel Time sum descending then UID_first; std of
-- the rates and times is the sample std, the kernel stats' std the
-- population std (kernel_stats: numpy semantics, instances in UID order).
-- Columns:
--   name: kernel name
--   "param: B": batch (output dim 0 of a rank-3 output, else 1)
--   "param: M": M
--   "param: N": N
--   "param: K": K (the contracted dimension)
--   "param: bias": Beta ≠ 0
--   "param: dtype_A_B": (Type, Type), Python tuple
--   "param: simulation_dtype": the GEMM simulator's dtype name
--   "param: transpose": (transA, transB) from the kernel name, Python tuple
--   GFLOPS_first: the GEMM's GFLOPs
--   "Data Moved (MB)_first": its bytes, MiB
--   "FLOPS/Byte_first": FLOPs per byte
--   "TB/s_mean": mean per-kernel TB/s
--   "TB/s_median": median per-kernel TB/s
--   "TB/s_std": sample std of per-kernel TB/s
--   "TB/s_min": minimum per-kernel TB/s
--   "TB/s_max": maximum per-kernel TB/s
--   "TFLOPS/s_mean": mean per-kernel TFLOPS/s
--   "TFLOPS/s_median": median per-kernel TFLOPS/s
--   "TFLOPS/s_std": sample std of per-kernel TFLOPS/s
--   "TFLOPS/s_min": minimum per-kernel TFLOPS/s
--   "TFLOPS/s_max": maximum per-kernel TFLOPS/s
--   process_name_first: always Unknown
--   process_label_first: always Unknown
--   thread_name_first: the first kernel's stream line name
--   kernel_details__summarize_kernel_stats: the kernel with count and duration statistics, Python text
--   "Input Dims_first": the operand shapes, Python text
--   "Input type_first": their dtypes, Python text
--   "Kernel Time (µs)_mean": mean kernel duration, µs
--   "Kernel Time (µs)_median": median kernel duration, µs
--   "Kernel Time (µs)_std": sample std of the kernel durations, µs
--   "Kernel Time (µs)_min": shortest kernel, µs
--   "Kernel Time (µs)_max": longest kernel, µs
--   "Kernel Time (µs)_sum": summed kernel time, µs
--   name_count: kernels in the group
--   UID_first: UID of the group's first kernel
WITH candidates AS (
  SELECT * FROM jax_kernel_rows WHERE op_category = 'GEMM' AND perf_model = 'jax_gemm'
),
shaped_items AS (
  -- TraceLens's operand_list: the operands that carry a non-scalar shape
  SELECT trace, uid, i, operands[i] AS op
  FROM (SELECT trace, uid, operands,
               unnest(generate_series(1, CAST(cardinality(operands) AS BIGINT))) AS i
        FROM candidates)
  WHERE strpos(operands[i], '[') > 0 AND strpos(operands[i], ']') > 0
    AND split_part(operands[i], '[', 2) NOT LIKE ']%'
),
shaped AS (
  SELECT trace, uid, array_agg(op ORDER BY i) AS shaped_ops FROM shaped_items GROUP BY trace, uid
),
gemm AS (
  SELECT c.trace, c.uid_order, c.name, c.dur, c.thread_name, c."Input Dims", c."Input type",
         CASE WHEN c.output LIKE '(%'
              THEN (regexp_match(c.output, '(?:^|[(,])((?:bf16|f16|f32|f8|fp8)[a-z0-9]*\[[^\]]+\](?:\{[^}]*\})?)'))[1]
              ELSE c.output END AS c_tok,
         s.shaped_ops,
         CAST((regexp_match(c.backend_config, '"beta":([01]),'))[1] AS BIGINT) AS beta,
         CAST((regexp_match(c.backend_config, '"lhs_contracting_dimensions":\["([012])'))[1] AS BIGINT) AS lhs_dim,
         CASE WHEN strpos(c.custom_call_target, 'f8') > 0 THEN 'fp8'
              WHEN c.operands[1] LIKE 'bf16%' THEN 'bf16' WHEN c.operands[1] LIKE 'f16%' THEN 'f16'
              WHEN c.operands[1] LIKE 'f32%' THEN 'f32' WHEN c.operands[1] LIKE 'f8%' THEN 'f8'
              WHEN c.operands[1] LIKE 'fp8%' THEN 'fp8' END AS type
  FROM candidates c
  LEFT JOIN shaped s ON s.trace = c.trace AND s.uid = c.uid
),
sized AS (
  SELECT *,
         string_to_array((regexp_match(c_tok, '.*\[(.*)\]'))[1], ',') AS c,
         coalesce((regexp_match(c_tok, '\{([012,]*)'))[1], '') AS c_order,
         string_to_array((regexp_match(shaped_ops[1], '.*\[(.*)\]'))[1], ',') AS a0,
         string_to_array((regexp_match(shaped_ops[2], '.*\[(.*)\]'))[1], ',') AS b0
  FROM gemm
),
contracted AS (
  SELECT *, a0[lhs_dim + 1] AS k FROM sized
),
rest1 AS (
  SELECT *, array_remove(a0, k) AS a1, array_remove(b0, k) AS b1,
         CASE WHEN cardinality(c) > 2 THEN c[1] END AS batch
  FROM contracted
),
rest2 AS (
  SELECT *,
         CASE WHEN batch IS NOT NULL THEN array_remove(a1, batch) ELSE a1 END AS a2,
         CASE WHEN batch IS NOT NULL THEN array_remove(b1, batch) ELSE b1 END AS b2
  FROM rest1
),
params AS (
  SELECT *,
         CAST(coalesce(batch, '1') AS BIGINT) AS p_b,
         CAST(coalesce(CASE WHEN strpos(c_order, '0,1') > 0 THEN a2[1] ELSE b2[1] END, '1') AS BIGINT) AS p_m,
         CAST(coalesce(CASE WHEN strpos(c_order, '0,1') > 0 THEN b2[1] ELSE a2[1] END, '1') AS BIGINT) AS p_n,
         CAST(k AS BIGINT) AS p_k,
         coalesce(beta, 0) <> 0 AS p_bias,
         CASE type WHEN 'f32' THEN 4 WHEN 'f16' THEN 2 WHEN 'bf16' THEN 2 WHEN 'f8' THEN 1 WHEN 'fp8' THEN 1 END AS bpe,
         CASE type WHEN 'f32' THEN 'fp32' WHEN 'f16' THEN 'fp16' WHEN 'bf16' THEN 'bf16'
                   WHEN 'f8' THEN 'fp8' WHEN 'fp8' THEN 'fp8' END AS sim_dtype,
         CASE
           WHEN regexp_like(name, 'C[a-z]{3}_A[a-z]{3}_B[a-z]{3}') THEN
             '(' || CASE WHEN strpos(name, '_Ailk_') > 0 THEN 'False' WHEN strpos(name, '_Alik_') > 0 THEN 'True' ELSE 'None' END
             || ', ' || CASE WHEN strpos(name, '_Bljk_') > 0 THEN 'False' WHEN strpos(name, '_Bjlk_') > 0 THEN 'True' ELSE 'None' END
             || ')'
           WHEN name LIKE 'nvjet%' THEN
             '(' || CASE WHEN substr(split_part(name, '_', -1), 1, 1) = 'T' THEN 'True' ELSE 'False' END
             || ', ' || CASE WHEN substr(split_part(name, '_', -1), 2, 1) = 'T' THEN 'True' ELSE 'False' END || ')'
         END AS transpose
  FROM rest2
),
metrics AS (
  SELECT *,
         CAST(p_b AS DOUBLE) * (2.0 * p_m * p_n * p_k + CASE WHEN p_bias THEN CAST(p_m AS DOUBLE) * p_n ELSE 0 END) AS flops,
         CAST(p_b AS DOUBLE) * ((CAST(p_m AS DOUBLE) * p_k + CAST(p_k AS DOUBLE) * p_n + CAST(p_m AS DOUBLE) * p_n
                                 + CASE WHEN p_bias THEN p_n ELSE 0 END) * bpe) AS bytes
  FROM params
),
rows AS (
  SELECT *,
         flops / 1e9 AS gflops,
         CASE WHEN dur > 0 THEN (flops / 1e9 / 1e3) / (dur / 1e6) END AS tflops_s,
         bytes / 1048576 AS mb,
         CASE WHEN bytes > 0 THEN (flops / 1e9 * 1e9) / bytes END AS flops_byte,
         CASE WHEN dur > 0 THEN (bytes / 1e12) / (dur / 1e6) END AS tb_s
  FROM metrics
),
groups AS (
  SELECT trace, name, p_b, p_m, p_n, p_k, p_bias, type, sim_dtype, transpose,
         first_value(gflops ORDER BY uid_order) AS gflops,
         first_value(mb ORDER BY uid_order) AS mb,
         first_value(flops_byte ORDER BY uid_order) AS flops_byte,
         avg(tb_s) AS tb_mean, median(tb_s) AS tb_median, stddev(tb_s) AS tb_std,
         min(tb_s) AS tb_min, max(tb_s) AS tb_max,
         avg(tflops_s) AS tf_mean, median(tflops_s) AS tf_median, stddev(tflops_s) AS tf_std,
         min(tflops_s) AS tf_min, max(tflops_s) AS tf_max,
         first_value(thread_name ORDER BY uid_order) AS thread_name,
         first_value("Input Dims" ORDER BY uid_order) AS input_dims,
         first_value("Input type" ORDER BY uid_order) AS input_type,
         avg(dur) AS k_mean, median(dur) AS k_median, stddev(dur) AS k_std,
         min(dur) AS k_min, max(dur) AS k_max, sum(dur) AS k_sum, count(*) AS n,
         min(uid_order) AS uid_first,
         kernel_stats(CAST(uid_order AS DOUBLE), make_array(named_struct('name', name, 'dur', dur)))[1] AS ks
  FROM rows
  GROUP BY trace, name, p_b, p_m, p_n, p_k, p_bias, type, sim_dtype, transpose
)
SELECT name, p_b AS "param: B", p_m AS "param: M", p_n AS "param: N", p_k AS "param: K",
       CASE WHEN p_bias THEN 'True' ELSE 'False' END AS "param: bias",
       '(' || substr(py_str_list(make_array(type)), 2, length(py_str_list(make_array(type))) - 2) || ', '
         || substr(py_str_list(make_array(type)), 2, length(py_str_list(make_array(type))) - 2) || ')' AS "param: dtype_A_B",
       sim_dtype AS "param: simulation_dtype", transpose AS "param: transpose",
       gflops AS "GFLOPS_first", mb AS "Data Moved (MB)_first", flops_byte AS "FLOPS/Byte_first",
       tb_mean AS "TB/s_mean", tb_median AS "TB/s_median", tb_std AS "TB/s_std",
       tb_min AS "TB/s_min", tb_max AS "TB/s_max",
       tf_mean AS "TFLOPS/s_mean", tf_median AS "TFLOPS/s_median", tf_std AS "TFLOPS/s_std",
       tf_min AS "TFLOPS/s_min", tf_max AS "TFLOPS/s_max",
       'Unknown' AS process_name_first, 'Unknown' AS process_label_first,
       thread_name AS thread_name_first,
       '[{''name'': ' || substr(py_str_list(make_array(name)), 2, length(py_str_list(make_array(name))) - 2)
         || ', ''count'': ' || CAST(n AS VARCHAR)
         || ', ''total_duration_us'': np.float64(' || py_repr(CAST(ks['total_duration_us'] AS VARCHAR)) || ')'
         || ', ''mean_duration_us'': np.float64(' || py_repr(CAST(ks['mean_duration_us'] AS VARCHAR)) || ')'
         || ', ''median_duration_us'': np.float64(' || py_repr(CAST(ks['median_duration_us'] AS VARCHAR)) || ')'
         || ', ''std_dev_duration_us'': np.float64(' || py_repr(CAST(ks['std_dev_duration_us'] AS VARCHAR)) || ')'
         || ', ''min_duration_us'': np.float64(' || py_repr(CAST(ks['min_duration_us'] AS VARCHAR)) || ')'
         || ', ''max_duration_us'': np.float64(' || py_repr(CAST(ks['max_duration_us'] AS VARCHAR)) || ')}]'
         AS kernel_details__summarize_kernel_stats,
       input_dims AS "Input Dims_first", input_type AS "Input type_first",
       k_mean AS "Kernel Time (µs)_mean", k_median AS "Kernel Time (µs)_median",
       k_std AS "Kernel Time (µs)_std", k_min AS "Kernel Time (µs)_min",
       k_max AS "Kernel Time (µs)_max", k_sum AS "Kernel Time (µs)_sum",
       n AS name_count, uid_first AS "UID_first"
FROM groups
ORDER BY trace, k_sum DESC, uid_first
