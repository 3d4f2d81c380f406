-- name: jax_analysis_gemms
-- version: 1
-- kind: report
-- formats: jax
-- order: 64
-- sheet: jax_analysis_gemms
-- empty: write
-- description: JAX XPlane (TraceLens's JAX analysis report): the GEMM custom calls of one HLO module (jit_train_step unless --set jax.analysis_module=NAME) with Batch, M, N, K, Beta and Type.
--
-- TraceLens file `trace_analysis_results_gemms.csv` of
-- `generate_perf_report_jax_analysis` (spec formats.md §C.8):
-- `process_gemm_ops` over the HLO dict of module `jit_train_step`, the name
-- TraceLens hard-codes; `--set jax.analysis_module=NAME` reads another (a
-- module whose name starts with NAME, as TraceLens's prefix glob; see view
-- jax_analysis_gemm_ops for the formulas and the module choice among
-- several). Quirks reproduced:
-- * the module name is a prefix (jit_loss matches jit_loss_fn); with no
--   such module the sheet is header-only, as on every test trace;
-- * the name keeps HLO text's `%` (`%custom-call.1`);
-- * every GEMM of the module is listed, whether or not a kernel ran it.
-- Values are integers, so pandas round(2) changes nothing. Rows in
-- instruction id order (TraceLens: HLO text order). One table for all the
-- loaded traces: load one trace per report run.
-- Columns:
--   name: the instruction name with HLO text's %
--   "Batch": output dim 0 of a rank-3 output, else 1
--   "M": M
--   "N": N
--   "K": the contracted dimension
--   "Beta": backend_config's beta, 0 or 1
--   "Type": bf16, f16, f32, f8 or fp8 (fp8 when the custom-call target holds f8)
SELECT '%' || name AS name, "Batch", "M", "N", "K", "Beta", "Type"
FROM jax_analysis_gemm_ops
WHERE selected
ORDER BY trace, id, name
