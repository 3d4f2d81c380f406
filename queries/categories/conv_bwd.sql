-- name: conv_bwd_ops
-- version: 1
-- kind: category
-- description: Launchers in op category CONV_bwd (aten::convolution_backward, ...).
SELECT * FROM launchers WHERE op_category = 'CONV_bwd'
