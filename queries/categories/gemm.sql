-- name: gemm_ops
-- version: 1
-- kind: category
-- description: Launchers in op category GEMM (mm, addmm, bmm, baddbmm, _scaled_mm, ...).
SELECT * FROM launchers WHERE op_category = 'GEMM'
