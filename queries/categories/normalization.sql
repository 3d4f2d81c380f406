-- name: normalization_ops
-- version: 1
-- kind: category
-- description: Launchers in op categories NORM_fwd and NORM_bwd (layer, batch, group, instance norm).
SELECT * FROM launchers WHERE op_category IN ('NORM_fwd', 'NORM_bwd')
