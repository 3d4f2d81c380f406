-- name: analyze_ops
-- version: 2
-- kind: view
-- description: Ops that own GPU time, grouped by (name, category, input shapes): instances, GPU time, shares of category and trace, rank, FLOPs/bytes/rates from the perf models, roofline bound and efficiency on the session platform.
--
-- The analyzer's op table (issue 7): the rules read it to find bottleneck ops,
-- efficiency tiers, tiny GEMMs and bandwidth baselines.
-- Who owns a kernel: every linked, non-collective GPU event belongs to the nearest
-- op above it that has a working perf model (perf_metrics fwd pass, e.g.
-- aten::convolution above aten::miopen_convolution), else to its launcher (the
-- `launchers` view's unit: the cpu_op that launched it, or the runtime call when no
-- cpu_op is above it). Every such kernel has exactly one owner, so the groups'
-- times add up to the launchers' time and per category to ops_summary_by_category
-- (up to kernels that overlap within one owner, counted once here).
-- An owner's time is the busy time (union of intervals) of the kernels it owns;
-- its efficiency is its model's roofline time over that time. Ops without FLOPs
-- but with bytes (copies) are memory-bound: roofline time = bytes / peak bandwidth.
-- Columns:
--   trace: the trace file the row comes from
--   name: op name (or runtime call name for launches outside any cpu_op)
--   category: op category: the launcher's (launchers.op_category), else the op name's
--     (op_registry / name patterns), else 'other'
--   shape: the input dims in Python notation ([[256, 1024], [1024]]), as the perf
--     sheets print them; NULL for runtime calls
--   instances: owners in the group
--   kernel_count: GPU events they own
--   compute_only: every one of those events is a compute kernel (no memcpy / memset):
--     the group's TB/s is a kernel's bandwidth
--   time_us: summed owner time (busy time of the kernels each owns), µs
--   category_time_us: summed time of the category, µs
--   category_share_pct: time_us / category_time_us · 100, %
--   total_time_us: the trace's GPU timeline span (gpu_time_totals.total_time), µs
--   share_pct: time_us / total_time_us · 100, %
--   op_rank: 1 = largest time_us in the trace (ties by name, shape)
--   gflops: GFLOPs per instance, mean over modelled instances; NULL unmodelled
--   data_mb: MiB moved per instance (the perf sheets' "Data Moved (MB)"), mean over
--     modelled instances
--   flops_per_byte: FLOPs per byte, mean over modelled instances
--   tflops_per_s: summed FLOPs over summed time of modelled instances, TFLOPS/s
--   tb_per_s: summed bytes over summed time of modelled instances, TB/s
--   bound: 'compute' | 'memory' on the session platform; NULL without platform, model
--     or peak, and for groups owning memcpy / memset work
--   efficiency_pct: summed roofline time / summed time · 100 over the instances that
--     have one, %
--   compute_spec: the model's compute spec of the first modelled instance (e.g.
--     matrix_bf16)
--   params: that instance's model params (LIST<STRUCT<key, value, py_str, kind>>;
--     perf_param(params, 'M') reads one); NULL unmodelled
--   model_shape: the shape as the perf model's parameters, for the models that have
--     named dimensions: GEMM 'B=.., M=.., N=.., K=.., dtype=..' (B only when not 1),
--     attention 'B=.., H=.., N_Q=.., N_KV=.., d=.., dtype=..' (H_KV, d_v, causal when
--     they differ or hold), convolution 'input=.., filter=.., stride=.., padding=..,
--     dtype=..' (groups when not 1); NULL for other models and unmodelled groups (the
--     report then shows `shape`)
--   uids: events.uid of the owners, ascending
WITH
-- The session platform and its bandwidth (NULL columns when none is set).
platform AS (
  SELECT s.platform, p.memory_tb_s
  FROM session_platform s
  LEFT JOIN platforms p ON p.name = s.platform
),
-- Ops with a working perf model (forward pass), the candidates for owning kernels.
modelled AS (
  SELECT trace, uid, "GFLOPS" AS gflops, "Data Moved (MB)" AS data_mb,
         "FLOPS/Byte" AS flops_per_byte, compute_spec, params
  FROM perf_metrics
  WHERE pass = 'fwd' AND model_error IS NULL
),
-- Every linked non-collective GPU event with its nearest modelled ancestor, if any.
nearest AS (
  SELECT a.trace, a.kernel_uid, a.ancestor_uid,
         row_number() OVER (PARTITION BY a.trace, a.kernel_uid ORDER BY a.depth) AS pick
  FROM kernel_ancestors a
  JOIN modelled m ON m.trace = a.trace AND m.uid = a.ancestor_uid
),
owned AS (
  SELECT k.trace, k.uid AS kernel_uid, k.ts, k.t_end, k.class,
         coalesce(n.ancestor_uid, k.scope_uid) AS owner_uid
  FROM linked_kernels k
  LEFT JOIN nearest n ON n.trace = k.trace AND n.kernel_uid = k.uid AND n.pick = 1
  WHERE k.class <> 'communication'
),
-- One row per owner: its time and kernels.
owners AS (
  SELECT trace, owner_uid,
         busy_time(ts, t_end) AS time_us,
         count(*) AS kernel_count,
         bool_and(class = 'compute') AS compute_only
  FROM owned
  GROUP BY trace, owner_uid
),
-- Owner identity, category and model numbers, per instance.
instances AS (
  SELECT o.trace, o.owner_uid AS uid, e.name,
         coalesce(la.op_category, c.category, 'other') AS category,
         py_json(op.input_dims_json) AS shape,
         o.time_us, o.kernel_count, o.compute_only,
         m.gflops, m.data_mb, m.flops_per_byte, m.compute_spec, m.params,
         m.gflops * 1e9 AS flops,
         m.data_mb * 1048576 AS bytes,
         CASE
           WHEN m.uid IS NULL OR pf.platform IS NULL OR NOT o.compute_only THEN NULL
           WHEN m.gflops > 0 THEN roofline_time_us(m.gflops * 1e9, m.data_mb * 1048576,
                                                   pf.platform, m.compute_spec)
           WHEN m.data_mb > 0 THEN m.data_mb * 1048576 / (pf.memory_tb_s * 1e12) * 1e6
         END AS roofline_us,
         CASE
           WHEN m.uid IS NULL OR pf.platform IS NULL OR NOT o.compute_only THEN NULL
           WHEN m.gflops > 0 THEN roofline_bound(m.gflops * 1e9, m.data_mb * 1048576,
                                                 pf.platform, m.compute_spec)
           WHEN m.data_mb > 0 THEN 'MEMORY_BOUND'
         END AS bound_raw
  FROM owners o
  CROSS JOIN platform pf
  JOIN events e ON e.trace = o.trace AND e.uid = o.owner_uid
  LEFT JOIN ops op ON op.trace = o.trace AND op.uid = o.owner_uid
  LEFT JOIN launchers la ON la.trace = o.trace AND la.uid = o.owner_uid
  LEFT JOIN op_category_by_name c ON c.name = e.name
  LEFT JOIN modelled m ON m.trace = o.trace AND m.uid = o.owner_uid
),
groups AS (
  SELECT trace, name, category, shape,
         count(*) AS instances,
         sum(kernel_count) AS kernel_count,
         bool_and(compute_only) AS compute_only,
         sum(time_us) AS time_us,
         avg(gflops) AS gflops,
         avg(data_mb) AS data_mb,
         avg(flops_per_byte) AS flops_per_byte,
         sum(flops) / nullif(sum(time_us) FILTER (WHERE flops IS NOT NULL), 0) / 1e6
           AS tflops_per_s,
         sum(bytes) / nullif(sum(time_us) FILTER (WHERE bytes IS NOT NULL), 0) / 1e6
           AS tb_per_s,
         -- The bound of the group's first instance that has one.
         first_value(bound_raw ORDER BY uid) FILTER (WHERE bound_raw IS NOT NULL) AS bound_raw,
         sum(roofline_us) / nullif(sum(time_us) FILTER (WHERE roofline_us IS NOT NULL), 0) * 100
           AS efficiency_pct,
         first_value(compute_spec ORDER BY uid) FILTER (WHERE compute_spec IS NOT NULL)
           AS compute_spec,
         first_value(params ORDER BY uid) FILTER (WHERE params IS NOT NULL) AS params,
         array_agg(uid ORDER BY uid) AS uids
  FROM instances
  GROUP BY trace, name, category, shape
),
ranked AS (
  SELECT g.*,
         sum(g.time_us) OVER (PARTITION BY g.trace, g.category) AS category_time_us,
         t.total_time AS total_time_us,
         row_number() OVER (PARTITION BY g.trace
                            ORDER BY g.time_us DESC, g.name, g.shape) AS op_rank
  FROM groups g
  LEFT JOIN gpu_time_totals t ON t.trace = g.trace
)
SELECT trace, name, category, shape, instances, kernel_count, compute_only, time_us,
       category_time_us,
       time_us / nullif(category_time_us, 0) * 100 AS category_share_pct,
       total_time_us,
       time_us / nullif(total_time_us, 0) * 100 AS share_pct,
       CAST(op_rank AS BIGINT) AS op_rank,
       gflops, data_mb, flops_per_byte, tflops_per_s, tb_per_s,
       CASE bound_raw WHEN 'COMPUTE_BOUND' THEN 'compute' WHEN 'MEMORY_BOUND' THEN 'memory' END
         AS bound,
       efficiency_pct, compute_spec, params,
       CASE WHEN dims <> '' THEN dims || coalesce(', dtype=' || dtype, '') END AS model_shape,
       uids
FROM (
  SELECT *,
         -- The named dimensions; concat_ws skips the keys the model does not have.
         concat_ws(', ',
           CASE WHEN perf_param(params, 'B') <> '1' OR perf_param(params, 'N_Q') IS NOT NULL
                THEN 'B=' || perf_param(params, 'B') END,
           'M=' || perf_param(params, 'M'),
           'N=' || perf_param(params, 'N'),
           'K=' || perf_param(params, 'K'),
           'H=' || perf_param(params, 'H_Q'),
           CASE WHEN perf_param(params, 'H_KV') <> perf_param(params, 'H_Q')
                THEN 'H_KV=' || perf_param(params, 'H_KV') END,
           'N_Q=' || perf_param(params, 'N_Q'),
           'N_KV=' || perf_param(params, 'N_KV'),
           'd=' || perf_param(params, 'd_h_qk'),
           CASE WHEN perf_param(params, 'd_h_v') <> perf_param(params, 'd_h_qk')
                THEN 'd_v=' || perf_param(params, 'd_h_v') END,
           CASE WHEN perf_param(params, 'causal') = 'True' THEN 'causal' END,
           'input=' || perf_param(params, 'input_shape'),
           'filter=' || perf_param(params, 'filter_shape'),
           'stride=' || perf_param(params, 'stride'),
           'padding=' || perf_param(params, 'padding'),
           CASE WHEN perf_param(params, 'groups') <> '1'
                THEN 'groups=' || perf_param(params, 'groups') END
         ) AS dims,
         -- ('c10::BFloat16', 'c10::BFloat16') -> BFloat16; two different -> float/BFloat16.
         CASE WHEN split_part(dtypes, ', ', 1) = split_part(dtypes, ', ', 2)
              THEN split_part(dtypes, ', ', 1)
              ELSE replace(dtypes, ', ', '/') END AS dtype
  FROM (
    SELECT *,
           replace(replace(btrim(coalesce(perf_param(params, 'dtype_A_B'),
                                          perf_param(params, 'dtype_input_weight')), '()'),
                           '''', ''), 'c10::', '') AS dtypes
    FROM ranked
  )
)
