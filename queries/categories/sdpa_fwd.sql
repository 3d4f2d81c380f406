-- name: sdpa_fwd_ops
-- version: 1
-- kind: category
-- description: Launchers in op category SDPA_fwd (scaled dot-product / flash attention forward).
SELECT * FROM launchers WHERE op_category = 'SDPA_fwd'
