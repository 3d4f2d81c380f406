-- name: sdpa_bwd_ops
-- version: 1
-- kind: category
-- description: Launchers in op category SDPA_bwd (attention backward).
SELECT * FROM launchers WHERE op_category = 'SDPA_bwd'
