-- name: conv_fwd_ops
-- version: 1
-- kind: category
-- description: Launchers in op category CONV_fwd (aten::convolution, cudnn/miopen convolution).
SELECT * FROM launchers WHERE op_category = 'CONV_fwd'
