-- name: elementwise_ops
-- version: 1
-- kind: category
-- description: Launchers in op category elementwise: registry ops plus ops whose first kernel is an ATen elementwise kernel.
SELECT * FROM launchers WHERE op_category = 'elementwise'
