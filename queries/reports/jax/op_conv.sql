-- name: jax_op_conv
-- version: 1
-- kind: report
-- formats: jax
-- order: 50
-- sheet: op_conv
-- description: JAX XPlane: convolution kernels (cuDNN/MIOpen custom calls) with the convolution's FLOPs, bytes, TFLOPS/s and TB/s per kernel, grouped by kernel name and shapes.
--
-- TraceLens sheet `op_conv` of its JAX report (spec formats.md §C.7 item 10,
-- model jax_conv; [PT §7.2], [PT §7.5] formulas, [PT §8.5] summary): the
-- kernels of category Conv whose HLO custom call targets
-- cudnn$convForward / cudnn$convBiasActivationForward (model jax_conv) or
-- cudnn$convBackward (jax_conv_bwd: the backward formulas, as the model
-- name ends in _bwd), in UID order. input_shape = Input Dims[0], output_shape =
-- the first array shape of the instruction's output, bias = (3 parsed
-- operands), bytes_per_element from the first operand dtype (f32 4, f16/bf16
-- 2, f8/fp8 1), convNd from the input rank, transposed_conv False.
-- flops = 2·prod(w[1:])·prod(out) + (prod(out) if bias); bytes = (prod(x) +
-- prod(w) + (out[1] if bias) + prod(out))·bpe; per kernel GFLOPS = flops/1e9,
-- TFLOPS/s = (GFLOPS/1e3)/(dur/1e6), Data Moved (MB) = bytes/1048576,
-- FLOPS/Byte = GFLOPS·1e9/bytes, TB/s = (bytes/1e12)/(dur/1e6).
-- Quirks reproduced under --tracelens-compat:
-- * filter_shape is only the filter's spatial dims (operand 1 [2:], or the
--   output's [2:] for jax_conv_bwd), e.g. (1, 2, 2) for a 5120×16×1×2×2
--   filter, so flops use only (2, 2) and the weight bytes are wrong
--   (jax_conv_minimal_08: 2.288 GFLOPS instead of 36.6).
-- * Every kernel of the custom call (Im3d2Col and the Cijk GEMM) gets the
--   whole convolution's FLOPs and bytes, so each kernel's TFLOPS/s is
--   inflated; Kernel Time is per kernel.
-- * process_name_first / process_label_first are 'Unknown' (TraceLens looks
--   them up at tid 0).
-- Default mode fixes: filter_shape is the whole filter shape (operand 1), so
-- FLOPs and bytes count every output channel and input channel.
-- Groups: name + the param: cells, sorted by Kernel Time sum descending then
-- UID_first. std of the rates and times is the sample std; the kernel stats'
-- std is the population std (kernel_stats: numpy semantics, instances in
-- UID order). Shapes of up to 12 dimensions.
-- Columns:
--   name: kernel name
--   "param: convNd": conv1d, conv2d or conv3d (from the input rank)
--   "param: input_shape": input shape, Python tuple
--   "param: filter_shape": filter shape (compat: its spatial dims only), Python tuple
--   "param: output_shape": output shape, Python tuple
--   "param: bias": whether the custom call has 3 parsed operands
--   "param: bytes_per_element": bytes per element of the input dtype
--   "param: transposed_conv": always False
--   GFLOPS_first: the convolution's GFLOPs
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
WITH conv AS (
  SELECT trace, uid_order, name, dur, thread_name, "Input Dims", "Input type", types_list,
         perf_model = 'jax_conv_bwd' AS bwd,
         dims_list[1] AS x,
         CASE
           WHEN NOT tracelens_compat() THEN dims_list[2]
           WHEN perf_model = 'jax_conv_bwd'
             THEN array_to_string(array_slice(string_to_array((regexp_match(output, '([A-Za-z]+[0-9]+)\[([0-9,]+)\]\{([0-9,]+)\}'))[2], ','), 3, 100), ',')
           ELSE array_to_string(array_slice(string_to_array(dims_list[2], ','), 3, 100), ',')
         END AS w,
         (regexp_match(output, '([A-Za-z]+[0-9]+)\[([0-9,]+)\]\{([0-9,]+)\}'))[2] AS o,
         array_length(dims_list) = 3 AS bias,
         CASE lower(types_list[1]) WHEN 'f32' THEN 4 WHEN 'f16' THEN 2 WHEN 'bf16' THEN 2
                                   WHEN 'f8' THEN 1 WHEN 'fp8' THEN 1 END AS bpe
  FROM jax_kernel_rows
  WHERE op_category = 'Conv' AND perf_model IN ('jax_conv', 'jax_conv_bwd')
),
shaped AS (
  SELECT *,
         CAST(coalesce(CAST(NULLIF(split_part(x, ',', 1), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 2), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(x, ',', 12), '') AS BIGINT), 1) AS DOUBLE) AS px,
         CAST(coalesce(CAST(NULLIF(split_part(w, ',', 1), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 2), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 12), '') AS BIGINT), 1) AS DOUBLE) AS pw,
         CAST(coalesce(CAST(NULLIF(split_part(w, ',', 2), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 12), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(w, ',', 13), '') AS BIGINT), 1) AS DOUBLE) AS pw1,
         CAST(coalesce(CAST(NULLIF(split_part(o, ',', 1), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 2), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 12), '') AS BIGINT), 1) AS DOUBLE) AS po,
         CAST(coalesce(CAST(NULLIF(split_part(o, ',', 2), '') AS BIGINT), 0) AS DOUBLE) AS o1,
         CAST(coalesce(CAST(NULLIF(split_part(o, ',', 1), '') AS BIGINT), 1) AS DOUBLE) AS o0,
         CAST(coalesce(CAST(NULLIF(split_part(o, ',', 3), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 4), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 5), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 6), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 7), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 8), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 9), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 10), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 11), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 12), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 13), '') AS BIGINT), 1) * coalesce(CAST(NULLIF(split_part(o, ',', 14), '') AS BIGINT), 1) AS DOUBLE) AS po2,
         cardinality(string_to_array(x, ',')) AS x_rank
  FROM conv
),
metrics AS (
  SELECT *,
         CASE WHEN NOT bwd THEN 2 * pw1 * po + CASE WHEN bias THEN po ELSE 0 END
              -- [PT §7.5] backward: dX = conv(out, w, x, transposed), dW = conv(t(x), t(out), t(w))
              ELSE 2 * pw1 * po + 2 * (o0 * po2) * pw
                   + CASE WHEN bias THEN po ELSE 0 END
         END AS flops,
         CASE WHEN bpe IS NULL THEN NULL
              WHEN NOT bwd THEN (px + pw + CASE WHEN bias THEN o1 ELSE 0 END + po) * bpe
              ELSE (po + pw + px) * bpe + (po + px + pw) * bpe
                   + CASE WHEN bias THEN po + o1 ELSE 0 END
         END AS bytes
  FROM shaped
),
rows AS (
  SELECT *,
         flops / 1e9 AS gflops,
         CASE WHEN dur > 0 THEN (flops / 1e9 / 1e3) / (dur / 1e6) END AS tflops_s,
         bytes / 1048576 AS mb,
         CASE WHEN bytes > 0 THEN (flops / 1e9 * 1e9) / bytes END AS flops_byte,
         CASE WHEN dur > 0 THEN (bytes / 1e12) / (dur / 1e6) END AS tb_s,
         CASE x_rank WHEN 3 THEN 'conv1d' WHEN 4 THEN 'conv2d' WHEN 5 THEN 'conv3d' END AS conv_nd,
         py_repr('[' || x || ']') AS input_shape,
         py_repr('[' || w || ']') AS filter_shape,
         py_repr('[' || o || ']') AS output_shape
  FROM metrics
),
groups AS (
  SELECT trace, name, conv_nd, input_shape, filter_shape, output_shape, bias, bpe,
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
  WHERE conv_nd IS NOT NULL
  GROUP BY trace, name, conv_nd, input_shape, filter_shape, output_shape, bias, bpe
)
SELECT name, conv_nd AS "param: convNd", input_shape AS "param: input_shape",
       filter_shape AS "param: filter_shape", output_shape AS "param: output_shape",
       CASE WHEN bias THEN 'True' ELSE 'False' END AS "param: bias",
       CAST(bpe AS VARCHAR) AS "param: bytes_per_element", 'False' AS "param: transposed_conv",
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
