-- name: jax_kernel_rows
-- version: 1
-- kind: view
-- description: JAX XPlane: every GPU kernel as TraceLens's JAX report sees it (the kernel is its own launcher): op category, the HLO instruction's operands and custom-call target as TraceLens's HLO-text dict holds them, its perf model and argument columns, launch latency.
--
-- TraceLens's `get_df_kernel_launchers` of its JAX report (spec formats.md
-- §C.4, §C.6, §C.7 items 3-4). One row per GPU stream event that TraceLens
-- calls a kernel: the lower-cased name does not start with copy, memcpy or
-- memset (so ROCm's __amd_rocclr_copyBuffer / fillBuffer kernels are
-- kernels). What it reproduces:
-- * UID order: GPU pid, then stream, then ts, then longer first (xprof's
--   event order). `uid_order` counts the stream events of every class in
--   that order, which is TraceLens's UID on the first GPU only (later GPUs
--   also count xprof's derived "XLA Ops" lines, which are not emulated).
-- * op category: the first class (GEMM, FA BWD, FA FWD, FA V3, Conv, TE,
--   Communication rccl/nccl) whose substring the kernel name holds
--   (case-sensitive); unless that is an FA class, the first class matching
--   the hlo_op stat overrides it; no match: 'Uncategorized Events/XLA'.
-- * The HLO dict (§C.4): an instruction is in it unless it is the root of
--   its computation (TraceLens skips ROOT lines: 'Missing hlo_op') or its
--   text lacks every dtype hint (get-tuple-element, bf16, f8, f16, f32, f64,
--   s32, s64, u32, u64, pred: looked for in its name, shape, opcode, operand
--   names, custom-call target and backend config, not in its other
--   attributes). Modules are keyed by (hlo_module, program_id), not by the
--   prefix glob.
-- * operands: each operand's shape text when the operand instruction is in
--   the dict, else its bare `%name`; the operand of every index i >= 5 with
--   i % 5 = 0 is XLA's `/*index=i*/%name`, which never resolves; an
--   instruction with no operands has [''].
-- * custom_call_target keeps TraceLens's regex capture: `custom_call_target="…"`,
--   cut at the first character outside [a-zA-Z_="()/ @.$0-9-].
-- * perf model: needs operands and a custom-call target; matmul/cublas and
--   category GEMM → jax_gemm; te_fused_attn_forward_ffi → jax_te_fused_attn;
--   te_fused_attn_backward_ffi → jax_te_fused_attn_bwd; cudnn$convForward or
--   cudnn$convBiasActivationForward and Conv → jax_conv; cudnn$convBackward
--   and Conv → jax_conv_bwd; else rest.
-- * Input Dims / Input type: the first `([A-Za-z]+[0-9]+)\[([0-9,]+)\]\{([0-9,]+)\}`
--   match of each operand (so pred, f8e4m3fn, scalars and unresolved refs are
--   skipped); jax_te_fused_attn(_bwd) keeps the first three and puts the
--   fourth in Concrete Inputs. Input Strides is always ().
-- * kernel_details' dur prints as an int when whole ('dur': 16): xprof's
--   JSON writes such durations without a fraction, so Python reads an int.
-- * GPU_kernel_launch_latency = kernel ts - ts of the host event with its
--   correlation id (NULL, TraceLens's NaN, without one).
-- Columns:
--   trace: trace name
--   uid: kernel uid (kernels.uid)
--   uid_order: 0-based position among the trace's GPU stream events in xprof's order (TraceLens's UID on the first GPU)
--   name: kernel name
--   op_category: TraceLens's JAX kernel op category
--   ts: GPU start, µs
--   dur: GPU duration, µs (total_direct_kernel_time = total_subtree_kernel_time)
--   pid: the GPU's pid in xprof's trace viewer (GPU index + 1)
--   tid: the stream line id
--   thread_name: the stream line's name, e.g. Stream #16(Kernel)
--   hlo_module: the hlo_module stat
--   program_id: the program_id stat
--   hlo_op: the hlo_op stat
--   in_dict: whether TraceLens's HLO dict holds the kernel's hlo_op
--   custom_call_target: TraceLens's capture custom_call_target="…", NULL when absent
--   bare_target: the custom-call target itself
--   backend_config: the instruction's backend_config text
--   output: the instruction's shape text (TraceLens's `output`)
--   operands: TraceLens's resolved operand strings, NULL when the dict lacks the op
--   perf_model: jax_gemm, jax_te_fused_attn, jax_te_fused_attn_bwd, jax_conv, jax_conv_bwd or rest
--   dims_json: all parsed operand dims, a JSON list of lists
--   types_json: all parsed operand dtypes, a JSON list
--   dims_list: the same dims, one comma-separated text per parsed operand (NULL when none parsed)
--   types_list: the same dtypes, a list (NULL when none parsed)
--   "Input Dims": Python text of the Input Dims argument
--   "Input type": Python text of the Input type argument
--   "Input Strides": always ()
--   "Concrete Inputs": Python text of the Concrete Inputs argument
--   kernel_details: TraceLens's kernel_details cell, a Python list of one dict
--   details_template: that dict without its dur and its closing brace (the start of a kernel_details_summary entry)
--   GPU_kernel_launch_latency: kernel ts - its host launch event's ts, µs
WITH gpu_events AS (
  SELECT k.trace, k.uid, k.name, k.ts, k.dur, k.device + 1 AS pid, k.stream AS tid,
         k.launch_uid,
         row_number() OVER (PARTITION BY k.trace ORDER BY k.device, k.stream, k.ts, k.dur DESC, k.uid) - 1
           AS uid_order
  FROM kernels k
  WHERE k.trace IN (SELECT trace FROM trace_meta WHERE key = 'source_format' AND value = '"jax"')
),
kern AS (
  SELECT g.*, d.hlo_module, d.program_id, d.hlo_op,
         CASE
           WHEN g.name LIKE '%Cijk%' OR g.name LIKE '%gemm%' OR g.name LIKE '%nvjet%' OR g.name LIKE '%cublasLt%' THEN 'GEMM'
           WHEN g.name LIKE '%FmhaBwd%' OR g.name LIKE '%flash\_bprop%' ESCAPE '\'
                OR g.name LIKE '%ck\_fused\_attn::dk\_dv\_reduce\_thd%' ESCAPE '\'
                OR g.name LIKE '%fmha\_bwd%' ESCAPE '\' THEN 'FA BWD'
           WHEN g.name LIKE '%FmhaFwd%' OR g.name LIKE '%flash\_fprop%' ESCAPE '\'
                OR g.name LIKE '%fmha\_fwd%' ESCAPE '\' THEN 'FA FWD'
           WHEN g.name LIKE '%kernel\_func%' ESCAPE '\' THEN 'FA V3'
           WHEN g.name LIKE '%conv\_%' ESCAPE '\' OR g.name LIKE '%conv.%' OR g.name LIKE '%conv-%' THEN 'Conv'
           WHEN g.name LIKE '%transformer\_engine%' ESCAPE '\' OR g.name LIKE '%te\_fused\_attn%' ESCAPE '\' THEN 'TE'
           WHEN g.name LIKE '%rccl%' OR g.name LIKE '%nccl%' THEN 'Communication rccl/nccl'
         END AS name_category,
         CASE
           WHEN d.hlo_op LIKE '%Cijk%' OR d.hlo_op LIKE '%gemm%' OR d.hlo_op LIKE '%nvjet%' OR d.hlo_op LIKE '%cublasLt%' THEN 'GEMM'
           WHEN d.hlo_op LIKE '%FmhaBwd%' OR d.hlo_op LIKE '%flash\_bprop%' ESCAPE '\'
                OR d.hlo_op LIKE '%ck\_fused\_attn::dk\_dv\_reduce\_thd%' ESCAPE '\'
                OR d.hlo_op LIKE '%fmha\_bwd%' ESCAPE '\' THEN 'FA BWD'
           WHEN d.hlo_op LIKE '%FmhaFwd%' OR d.hlo_op LIKE '%flash\_fprop%' ESCAPE '\'
                OR d.hlo_op LIKE '%fmha\_fwd%' ESCAPE '\' THEN 'FA FWD'
           WHEN d.hlo_op LIKE '%kernel\_func%' ESCAPE '\' THEN 'FA V3'
           WHEN d.hlo_op LIKE '%conv\_%' ESCAPE '\' OR d.hlo_op LIKE '%conv.%' OR d.hlo_op LIKE '%conv-%' THEN 'Conv'
           WHEN d.hlo_op LIKE '%transformer\_engine%' ESCAPE '\' OR d.hlo_op LIKE '%te\_fused\_attn%' ESCAPE '\' THEN 'TE'
           WHEN d.hlo_op LIKE '%rccl%' OR d.hlo_op LIKE '%nccl%' THEN 'Communication rccl/nccl'
         END AS op_category_of_hlo
  FROM gpu_events g
  LEFT JOIN kernel_dispatches d ON d.trace = g.trace AND d.uid = g.uid
  WHERE NOT (lower(g.name) LIKE 'copy%' OR lower(g.name) LIKE 'memcpy%' OR lower(g.name) LIKE 'memset%')
),
dict AS (
  -- TraceLens's HLO dict: the instructions whose text line its parser keeps.
  SELECT h.trace, h.module, h.program_id, h.name, h.shape, h.operands, h.operand_shapes,
         h.custom_call_target, h.backend_config
  FROM hlo_instructions h
  WHERE NOT coalesce(h.is_root, false)
    AND regexp_like(
          concat_ws(' ', h.name, h.shape, h.opcode, array_to_string(h.operands, ','),
                    h.custom_call_target, h.backend_config),
          'get-tuple-element|bf16|f8|f16|f32|f64|s32|s64|u32|u64|pred')
),
used AS (
  SELECT DISTINCT x.trace, x.module, x.program_id, x.name, x.shape, x.operands, x.operand_shapes,
         x.custom_call_target, x.backend_config
  FROM dict x
  JOIN (SELECT DISTINCT trace, hlo_module, program_id, hlo_op FROM kern) k
    ON k.trace = x.trace AND k.hlo_module = x.module AND (k.program_id IS NOT DISTINCT FROM x.program_id)
   AND k.hlo_op = x.name
),
op_items AS (
  SELECT trace, module, program_id, name, i,
         operands[i] AS op_name, operand_shapes[i] AS op_shape
  FROM (SELECT trace, module, program_id, name, operands, operand_shapes,
               unnest(generate_series(1, CAST(array_length(operands) AS BIGINT))) AS i
        FROM used)
  WHERE array_length(operands) > 0
),
resolved_items AS (
  SELECT o.trace, o.module, o.program_id, o.name, o.i,
         CASE
           WHEN o.i - 1 >= 5 AND (o.i - 1) % 5 = 0 THEN '/*index=' || CAST(o.i - 1 AS VARCHAR) || '*/%' || o.op_name
           WHEN r.name IS NOT NULL THEN o.op_shape
           ELSE '%' || o.op_name
         END AS operand
  FROM op_items o
  LEFT JOIN dict r ON r.trace = o.trace AND r.module = o.module
   AND (r.program_id IS NOT DISTINCT FROM o.program_id) AND r.name = o.op_name
),
parsed_items AS (
  SELECT *, row_number() OVER (PARTITION BY trace, module, program_id, name ORDER BY i) AS p
  FROM (SELECT trace, module, program_id, name, i,
               regexp_match(operand, '([A-Za-z]+[0-9]+)\[([0-9,]+)\]\{([0-9,]+)\}') AS m
        FROM resolved_items)
  WHERE m IS NOT NULL
),
resolved AS (
  SELECT trace, module, program_id, name, array_agg(operand ORDER BY i) AS operands
  FROM resolved_items
  GROUP BY trace, module, program_id, name
),
parsed AS (
  SELECT trace, module, program_id, name,
         '[' || string_agg('[' || m[2] || ']', ',' ORDER BY p) || ']' AS dims_json,
         '[' || string_agg('"' || m[1] || '"', ',' ORDER BY p) || ']' AS types_json,
         '[' || coalesce(string_agg('[' || m[2] || ']', ',' ORDER BY p) FILTER (WHERE p <= 3), '') || ']' AS dims3_json,
         '[' || coalesce(string_agg('"' || m[1] || '"', ',' ORDER BY p) FILTER (WHERE p <= 3), '') || ']' AS types3_json,
         '[' || coalesce(string_agg('[' || m[2] || ']', ',' ORDER BY p) FILTER (WHERE p = 4), '') || ']' AS dims4_json,
         array_agg(m[2] ORDER BY p) AS dims_list,
         array_agg(m[1] ORDER BY p) AS types_list
  FROM parsed_items
  GROUP BY trace, module, program_id, name
),
hlo AS (
  SELECT u.trace, u.module, u.program_id, u.name, u.shape AS output, u.backend_config,
         u.custom_call_target AS bare_target,
         CASE WHEN u.custom_call_target IS NOT NULL THEN
           'custom_call_target="'
             || (regexp_match(u.custom_call_target || '"', '^[a-zA-Z_="()/ @.$0-9-]*'))[1]
         END AS custom_call_target,
         coalesce(r.operands, make_array('')) AS operands,
         coalesce(p.dims_json, '[]') AS dims_json, coalesce(p.types_json, '[]') AS types_json,
         coalesce(p.dims3_json, '[]') AS dims3_json, coalesce(p.types3_json, '[]') AS types3_json,
         coalesce(p.dims4_json, '[]') AS dims4_json, p.dims_list, p.types_list
  FROM used u
  LEFT JOIN resolved r ON r.trace = u.trace AND r.module = u.module
   AND (r.program_id IS NOT DISTINCT FROM u.program_id) AND r.name = u.name
  LEFT JOIN parsed p ON p.trace = u.trace AND p.module = u.module
   AND (p.program_id IS NOT DISTINCT FROM u.program_id) AND p.name = u.name
),
joined AS (
  SELECT k.*, h.name IS NOT NULL AS in_dict, h.custom_call_target, h.bare_target, h.backend_config,
         h.output, h.operands, h.dims_json, h.types_json, h.dims3_json, h.types3_json, h.dims4_json,
         h.dims_list, h.types_list,
         CASE
           WHEN k.name_category IN ('FA BWD', 'FA FWD', 'FA V3') THEN k.name_category
           ELSE coalesce(k.op_category_of_hlo, k.name_category, 'Uncategorized Events/XLA')
         END AS op_category
  FROM kern k
  LEFT JOIN hlo h ON h.trace = k.trace AND h.module = k.hlo_module
   AND (h.program_id IS NOT DISTINCT FROM k.program_id) AND h.name = k.hlo_op
),
modelled AS (
  SELECT j.*,
         CASE
           WHEN j.in_dict AND j.custom_call_target IS NOT NULL THEN
             CASE
               WHEN (strpos(j.custom_call_target, 'matmul') > 0 OR strpos(j.custom_call_target, 'cublas') > 0)
                    AND j.op_category = 'GEMM' THEN 'jax_gemm'
               WHEN strpos(j.custom_call_target, 'te_fused_attn_forward_ffi') > 0 THEN 'jax_te_fused_attn'
               WHEN strpos(j.custom_call_target, 'te_fused_attn_backward_ffi') > 0 THEN 'jax_te_fused_attn_bwd'
               WHEN (strpos(j.custom_call_target, 'cudnn$convForward') > 0
                     OR strpos(j.custom_call_target, 'cudnn$convBiasActivationForward') > 0)
                    AND j.op_category = 'Conv' THEN 'jax_conv'
               WHEN strpos(j.custom_call_target, 'cudnn$convBackward') > 0 AND j.op_category = 'Conv' THEN 'jax_conv_bwd'
               ELSE 'rest'
             END
           ELSE 'rest'
         END AS perf_model,
         substr(py_str_list(make_array(j.name)), 2, length(py_str_list(make_array(j.name))) - 2)
           AS name_repr,
         ', ''custom_call_target'': '
           || CASE WHEN j.custom_call_target IS NULL THEN '''NA'''
                   ELSE substr(py_str_list(make_array(j.custom_call_target)), 2,
                               length(py_str_list(make_array(j.custom_call_target))) - 2) END
           || ', ''operands'': ' || CASE WHEN j.in_dict THEN py_str_list(j.operands) ELSE '''NA''' END
           || ', ''outputs'': ''NA'', ''metadata'': ''NA''' AS kd_rest
  FROM joined j
)
SELECT m.trace, m.uid, m.uid_order, m.name, m.op_category, m.ts, m.dur, m.pid, m.tid,
       t.thread_name, m.hlo_module, m.program_id, m.hlo_op, m.in_dict,
       m.custom_call_target, m.bare_target, m.backend_config, m.output, m.operands, m.perf_model,
       m.dims_json, m.types_json, m.dims_list, m.types_list,
       CASE WHEN NOT m.in_dict THEN '()'
            WHEN m.perf_model LIKE 'jax_te_fused_attn%' THEN py_repr(m.dims3_json)
            ELSE py_repr(m.dims_json) END AS "Input Dims",
       CASE WHEN NOT m.in_dict THEN '()'
            WHEN m.perf_model LIKE 'jax_te_fused_attn%' THEN py_repr(m.types3_json)
            ELSE py_repr(m.types_json) END AS "Input type",
       '()' AS "Input Strides",
       CASE WHEN m.in_dict AND m.perf_model LIKE 'jax_te_fused_attn%' THEN py_repr(m.dims4_json)
            ELSE '()' END AS "Concrete Inputs",
       '[' || m.kd_head || ', ''dur'': '
         || CASE WHEN m.dur = trunc(m.dur) AND abs(m.dur) < 1e15 THEN CAST(CAST(m.dur AS BIGINT) AS VARCHAR)
                 ELSE py_repr(CAST(m.dur AS VARCHAR)) END
         || m.kd_rest || '}]'
         AS kernel_details,
       m.kd_head || m.kd_rest AS details_template,
       m.ts - l.ts AS "GPU_kernel_launch_latency"
FROM (SELECT *, '{''name'': ' || name_repr AS kd_head FROM modelled) m
LEFT JOIN threads t ON t.trace = m.trace AND t.pid = CAST(m.pid AS VARCHAR) AND t.tid = CAST(m.tid AS VARCHAR)
LEFT JOIN events l ON l.trace = m.trace AND l.uid = m.launch_uid
