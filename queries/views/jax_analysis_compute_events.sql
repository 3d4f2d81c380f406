-- name: jax_analysis_compute_events
-- version: 1
-- kind: view
-- description: JAX XPlane: the GPU computation events TraceLens's JAX analysis report pools (every stream event that is neither memcpy nor communication), with the analysis report's category (kernel name first, hlo_op as fallback) and the trace's GPU count and average computation time.
--
-- `JaxAnalyses.create_gpu_summary` / `breakdown_compute_events` of TraceLens's
-- JAX analysis report (spec formats.md §C.8, categories §C.6). One row per
-- GPU stream event of a JAX trace that JaxGPUEventAnalyser files under
-- `computation`: its lower-cased name does not start with copy, memcpy or
-- memset (so ROCm's __amd_rocclr_copyBuffer kernels count as computation),
-- and it matches none of nccl, rccl, cross_device_reduce (case-insensitive).
-- The events of every GPU are pooled (a GPU pid above 100 too, as
-- `get_just_gpu_events` keeps it), but only GPU pids <= 100 count in
-- num_gpus and in the averaged metrics (`is_gpu_stream_pid`).
-- * category: the first §C.6 class (GEMM, FA BWD, FA FWD, FA V3, Conv, TE,
--   Communication rccl/nccl) whose substring the kernel NAME holds
--   (case-sensitive); only when none does, the first class the hlo_op stat
--   holds; neither: 'Uncategorized Events'. This is the opposite precedence
--   of the perf report's jax_kernel_rows (hlo_op overrides there), and the
--   no-match bucket has no '/XLA'.
-- * num_gpus: GPU pids <= 100 with stream events of any class (a GPU with
--   only memcpys counts); avg_computation_time: view jax_gpu_metrics'
--   computation_time averaged over them.
-- Columns:
--   trace: trace name
--   uid: kernel uid (kernels.uid)
--   pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
--   tid: the stream line id
--   name: kernel name
--   ts: GPU start, µs
--   dur: GPU duration, µs
--   hlo_op: the hlo_op stat
--   category: the analysis report's category (name first, hlo_op fallback, else Uncategorized Events)
--   num_gpus: GPU pids <= 100 with stream events in the trace
--   avg_computation_time: computation_time (µs) averaged over those GPUs
WITH gpus AS (
  SELECT trace, count(*) AS num_gpus, avg(computation_time) AS avg_computation_time
  FROM jax_gpu_metrics
  WHERE gpu_pid <= 100
  GROUP BY trace
),
compute AS (
  SELECT k.trace, k.uid, k.device + 1 AS pid, k.stream AS tid, k.name, k.ts, k.dur, d.hlo_op
  FROM kernels k
  LEFT JOIN kernel_dispatches d ON d.trace = k.trace AND d.uid = k.uid
  WHERE k.trace IN (SELECT trace FROM trace_meta WHERE key = 'source_format' AND value = '"jax"')
    AND NOT (lower(k.name) LIKE 'copy%' OR lower(k.name) LIKE 'memcpy%' OR lower(k.name) LIKE 'memset%')
    AND NOT regexp_like(k.name, 'nccl|rccl|cross_device_reduce', 'i')
),
classed AS (
  SELECT c.*,
         CASE
           WHEN name LIKE '%Cijk%' OR name LIKE '%gemm%' OR name LIKE '%nvjet%' OR name LIKE '%cublasLt%' THEN 'GEMM'
           WHEN name LIKE '%FmhaBwd%' OR name LIKE '%flash\_bprop%' ESCAPE '\'
                OR name LIKE '%ck\_fused\_attn::dk\_dv\_reduce\_thd%' ESCAPE '\'
                OR name LIKE '%fmha\_bwd%' ESCAPE '\' THEN 'FA BWD'
           WHEN name LIKE '%FmhaFwd%' OR name LIKE '%flash\_fprop%' ESCAPE '\'
                OR name LIKE '%fmha\_fwd%' ESCAPE '\' THEN 'FA FWD'
           WHEN name LIKE '%kernel\_func%' ESCAPE '\' THEN 'FA V3'
           WHEN name LIKE '%conv\_%' ESCAPE '\' OR name LIKE '%conv.%' OR name LIKE '%conv-%' THEN 'Conv'
           WHEN name LIKE '%transformer\_engine%' ESCAPE '\' OR name LIKE '%te\_fused\_attn%' ESCAPE '\' THEN 'TE'
           WHEN name LIKE '%rccl%' OR name LIKE '%nccl%' THEN 'Communication rccl/nccl'
         END AS name_category,
         CASE
           WHEN hlo_op LIKE '%Cijk%' OR hlo_op LIKE '%gemm%' OR hlo_op LIKE '%nvjet%' OR hlo_op LIKE '%cublasLt%' THEN 'GEMM'
           WHEN hlo_op LIKE '%FmhaBwd%' OR hlo_op LIKE '%flash\_bprop%' ESCAPE '\'
                OR hlo_op LIKE '%ck\_fused\_attn::dk\_dv\_reduce\_thd%' ESCAPE '\'
                OR hlo_op LIKE '%fmha\_bwd%' ESCAPE '\' THEN 'FA BWD'
           WHEN hlo_op LIKE '%FmhaFwd%' OR hlo_op LIKE '%flash\_fprop%' ESCAPE '\'
                OR hlo_op LIKE '%fmha\_fwd%' ESCAPE '\' THEN 'FA FWD'
           WHEN hlo_op LIKE '%kernel\_func%' ESCAPE '\' THEN 'FA V3'
           WHEN hlo_op LIKE '%conv\_%' ESCAPE '\' OR hlo_op LIKE '%conv.%' OR hlo_op LIKE '%conv-%' THEN 'Conv'
           WHEN hlo_op LIKE '%transformer\_engine%' ESCAPE '\' OR hlo_op LIKE '%te\_fused\_attn%' ESCAPE '\' THEN 'TE'
           WHEN hlo_op LIKE '%rccl%' OR hlo_op LIKE '%nccl%' THEN 'Communication rccl/nccl'
         END AS hlo_category
  FROM compute c
)
SELECT c.trace, c.uid, c.pid, c.tid, c.name, c.ts, c.dur, c.hlo_op,
       coalesce(c.name_category, c.hlo_category, 'Uncategorized Events') AS category,
       g.num_gpus, g.avg_computation_time
FROM classed c
LEFT JOIN gpus g ON g.trace = c.trace
