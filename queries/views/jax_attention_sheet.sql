-- name: jax_attention_sheet
-- version: 1
-- kind: view
-- description: JAX XPlane: the rows of the attention perf sheets (op_fa_fwd, op_fa_bwd, op_fa_v3, op_te) for every op category at once, TraceLens's [PT §8.5] summary of view jax_attention_rows.
--
-- One row per (trace, op category, kernel name, attention params), summarised as
-- TraceLens summarises a perf sheet (spec tracelens-reports.md §8.5): the first
-- instance's FLOPs and bytes, rate statistics (sample std), the kernel_details
-- summary, kernel-time statistics, count and first UID. Each attention sheet is
-- this view filtered to its category.
-- Columns:
--   trace: trace name
--   op_category: the kernels' op category (FA FWD, FA BWD, FA V3, TE)
--   name: kernel name
--   "param: B": batch size
--   "param: N_Q": query sequence length
--   "param: H_Q": query heads
--   "param: N_KV": key/value sequence length
--   "param: H_KV": key/value heads
--   "param: d_h_qk": head dim of q and k
--   "param: d_h_v": head dim of v
--   "param: bias": TraceLens's bias param, Concrete Inputs[0:1] (the fourth operand's shape), Python text
--   "param: dtype_A_B": torch names of the first two operand dtypes, Python tuple
--   "param: dropout": dropout probability from the backend config (default mode only)
--   "param: causal": causal mask (always False under compat)
--   "param: flash_impl": always True
--   "param: fused": always True
--   "param: bytes_per_element": bytes per element of the first operand's dtype
--   GFLOPS_first: the attention's GFLOPs (fwd or bwd)
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
--   "Input Dims_first": TraceLens's Input Dims (the first three operand shapes), Python text
--   "Input type_first": their dtypes, Python text
--   "Kernel Time (µs)_mean": mean kernel duration, µs
--   "Kernel Time (µs)_median": median kernel duration, µs
--   "Kernel Time (µs)_std": sample std of the kernel durations, µs
--   "Kernel Time (µs)_min": shortest kernel, µs
--   "Kernel Time (µs)_max": longest kernel, µs
--   "Kernel Time (µs)_sum": summed kernel time, µs
--   name_count: kernels in the group
--   UID_first: UID of the group's first kernel
WITH groups AS (
  SELECT trace, op_category, name, p_b, p_n_q, p_h_q, p_n_kv, p_h_kv, p_d_qk, p_d_v, p_bias, p_dtype, p_dropout,
         p_causal, p_bpe,
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
  FROM jax_attention_rows
  GROUP BY trace, op_category, name, p_b, p_n_q, p_h_q, p_n_kv, p_h_kv, p_d_qk, p_d_v, p_bias, p_dtype, p_dropout,
           p_causal, p_bpe
)
SELECT trace, op_category, name, p_b AS "param: B", p_n_q AS "param: N_Q", p_h_q AS "param: H_Q",
       p_n_kv AS "param: N_KV", p_h_kv AS "param: H_KV", p_d_qk AS "param: d_h_qk",
       p_d_v AS "param: d_h_v", p_bias AS "param: bias", p_dtype AS "param: dtype_A_B",
       p_dropout AS "param: dropout", p_causal AS "param: causal",
       'True' AS "param: flash_impl", 'True' AS "param: fused", p_bpe AS "param: bytes_per_element",
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
ORDER BY trace, op_category, k_sum DESC, uid_first
