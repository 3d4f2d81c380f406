-- name: moe_ops
-- version: 1
-- kind: category
-- description: Launchers in the mixture-of-experts categories (MoE_fused, MoE_unfused, MoE_aux, MoE_comm_*).
SELECT * FROM launchers WHERE starts_with(op_category, 'MoE')
