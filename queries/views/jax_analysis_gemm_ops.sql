-- name: jax_analysis_gemm_ops
-- version: 1
-- kind: view
-- description: JAX XPlane: TraceLens's `process_gemm_ops` over the HLO dict of every module: one row per cuBLAS/hipBLASLt GEMM custom call with its Batch, M, N, K, Beta and Type, and whether its module is the one the analysis report reads (setting jax.analysis_module).
--
-- `JaxProfileProcessor.process_gemm_ops`, which TraceLens's JAX analysis
-- report runs on the module `jit_train_step` (spec formats.md §C.8 `_gemms`
-- and `_gemms_detailed`; the HLO dict §C.4). Per (module, program_id):
-- * the HLO dict: instructions that are not the root of their computation
--   and whose text holds a dtype hint (as view jax_kernel_rows); a GEMM is
--   one whose `custom_call_target="…"` capture holds matmul or cublas;
-- * operand list: the operands in the dict with a non-scalar shape (their
--   resolved shape text); an operand of index i >= 5 with i % 5 = 0 is
--   XLA's `/*index=i*/%name`, which is looked up by name and kept only when
--   its shape starts with bf16, f16, f32 or f8 and is not a scalar;
--   operands missing from the dict are skipped;
-- * output: for a tuple shape its first non-scalar bf16/f16/f32/f8/fp8
--   element, whose layout decides M and N;
-- * K = lhs[lhs_contracting_dimensions], removed (first equal value) from
--   both operand shapes; with a rank-3 output, Batch = output[0] is removed
--   too; then with `0,1` in the output layout N = rhs rest, M = lhs rest,
--   else N = lhs rest, M = rhs rest (1 when nothing is left);
-- * Beta from backend_config's `"beta":0|1,`; Type = fp8 when the target
--   capture holds f8, else the first operand's dtype among bf16, f16, f32,
--   f8, fp8.
-- * selected: the module TraceLens's `glob(module_name + "*hlo_proto.pb")`
--   finds for setting('jax.analysis_module', 'jit_train_step') (TraceLens's
--   hard-coded default): a module whose name starts with it; of several
--   (TraceLens warns and takes the file-system order's first), the smallest
--   (module, program_id).
-- Not reproduced: TraceLens raises (and aborts the whole report) on a
-- non-tuple output (it indexes the shape text's first character), more
-- than 4 or no shaped operands, 4 operands without a BIAS epilogue, a
-- contracting-dimension mismatch, a beta other than 0/1, mixed operand
-- dtypes, an operand missing from its dict or a rank above 3; here such a
-- GEMM gets whatever the formulas give (NULL where a part is missing).
-- Columns:
--   trace: trace name
--   module: the module name
--   program_id: the module's program id
--   selected: whether the analysis report reads this module
--   id: instruction id (HLO text order within a computation)
--   name: instruction name without %
--   "Batch": output dim 0 of a rank-3 output, else 1
--   "M": M
--   "N": N
--   "K": the contracted dimension
--   "Beta": backend_config's beta, 0 or 1
--   "Type": bf16, f16, f32, f8 or fp8
WITH dict AS (
  SELECT h.trace, h.module, h.program_id, h.id, h.name, h.shape, h.operands, h.operand_shapes,
         h.backend_config,
         CASE WHEN h.custom_call_target IS NOT NULL THEN
           'custom_call_target="'
             || (regexp_match(h.custom_call_target || '"', '^[a-zA-Z_="()/ @.$0-9-]*'))[1]
         END AS target_capture
  FROM hlo_instructions h
  WHERE h.trace IN (SELECT trace FROM trace_meta WHERE key = 'source_format' AND value = '"jax"')
    AND NOT coalesce(h.is_root, false)
    AND regexp_like(
          concat_ws(' ', h.name, h.shape, h.opcode, array_to_string(h.operands, ','),
                    h.custom_call_target, h.backend_config),
          'get-tuple-element|bf16|f8|f16|f32|f64|s32|s64|u32|u64|pred')
),
gemms AS (
  SELECT * FROM dict
  WHERE strpos(target_capture, 'matmul') > 0 OR strpos(target_capture, 'cublas') > 0
),
operand_items AS (
  SELECT trace, module, program_id, name, i, operands[i] AS op_name
  FROM (SELECT trace, module, program_id, name, operands,
               unnest(generate_series(1, CAST(cardinality(operands) AS BIGINT))) AS i
        FROM gemms
        WHERE cardinality(operands) > 0)
),
shaped_items AS (
  SELECT o.trace, o.module, o.program_id, o.name, o.i, r.shape AS op
  FROM operand_items o
  JOIN dict r ON r.trace = o.trace AND r.module = o.module
   AND (r.program_id IS NOT DISTINCT FROM o.program_id) AND r.name = o.op_name
  WHERE CASE
          WHEN o.i - 1 >= 5 AND (o.i - 1) % 5 = 0 THEN
            regexp_like(r.shape, '^(bf16|f16|f32|f8|fp8)') AND r.shape NOT LIKE '%[]'
          ELSE strpos(r.shape, '[') > 0 AND strpos(r.shape, ']') > 0
               AND split_part(r.shape, '[', 2) NOT LIKE ']%'
        END
),
shaped AS (
  SELECT trace, module, program_id, name, array_agg(op ORDER BY i) AS shaped_ops
  FROM shaped_items
  GROUP BY trace, module, program_id, name
),
first_operand AS (
  SELECT o.trace, o.module, o.program_id, o.name, r.shape AS op0_shape
  FROM operand_items o
  JOIN dict r ON r.trace = o.trace AND r.module = o.module
   AND (r.program_id IS NOT DISTINCT FROM o.program_id) AND r.name = o.op_name
  WHERE o.i = 1
),
gemm AS (
  SELECT g.trace, g.module, g.program_id, g.id, g.name,
         CASE WHEN g.shape LIKE '(%'
              THEN (regexp_match(g.shape, '(?:^|[(,])((?:bf16|f16|f32|f8|fp8)[a-z0-9]*\[[^\]]+\](?:\{[^}]*\})?)'))[1]
              ELSE g.shape END AS c_tok,
         s.shaped_ops,
         CAST((regexp_match(g.backend_config, '"beta":([01]),'))[1] AS BIGINT) AS beta,
         CAST((regexp_match(g.backend_config, '"lhs_contracting_dimensions":\["([012])'))[1] AS BIGINT) AS lhs_dim,
         CASE WHEN strpos(g.target_capture, 'f8') > 0 THEN 'fp8'
              WHEN f.op0_shape LIKE 'bf16%' THEN 'bf16' WHEN f.op0_shape LIKE 'f16%' THEN 'f16'
              WHEN f.op0_shape LIKE 'f32%' THEN 'f32' WHEN f.op0_shape LIKE 'f8%' THEN 'f8'
              WHEN f.op0_shape LIKE 'fp8%' THEN 'fp8' END AS type
  FROM gemms g
  LEFT JOIN shaped s ON s.trace = g.trace AND s.module = g.module
   AND (s.program_id IS NOT DISTINCT FROM g.program_id) AND s.name = g.name
  LEFT JOIN first_operand f ON f.trace = g.trace AND f.module = g.module
   AND (f.program_id IS NOT DISTINCT FROM g.program_id) AND f.name = g.name
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
chosen AS (
  SELECT trace, module, program_id
  FROM (SELECT trace, module, program_id,
               row_number() OVER (PARTITION BY trace ORDER BY module, program_id) AS pick
        FROM (SELECT DISTINCT trace, module, program_id FROM hlo_instructions
              WHERE starts_with(module, setting('jax.analysis_module', 'jit_train_step'))))
  WHERE pick = 1
)
SELECT r.trace, r.module, r.program_id,
       x.module IS NOT NULL AS selected,
       r.id, r.name,
       CAST(coalesce(r.batch, '1') AS BIGINT) AS "Batch",
       CAST(coalesce(CASE WHEN strpos(r.c_order, '0,1') > 0 THEN r.a2[1] ELSE r.b2[1] END, '1') AS BIGINT) AS "M",
       CAST(coalesce(CASE WHEN strpos(r.c_order, '0,1') > 0 THEN r.b2[1] ELSE r.a2[1] END, '1') AS BIGINT) AS "N",
       CAST(r.k AS BIGINT) AS "K",
       r.beta AS "Beta",
       r.type AS "Type"
FROM rest2 r
LEFT JOIN chosen x ON x.trace = r.trace AND x.module = r.module
 AND (x.program_id IS NOT DISTINCT FROM r.program_id)
