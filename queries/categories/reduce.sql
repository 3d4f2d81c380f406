-- name: reduce_ops
-- version: 1
-- kind: category
-- description: Launchers in op category reduce (sum, mean, max, norm, ...; or an ATen reduce kernel).
SELECT * FROM launchers WHERE op_category = 'reduce'
