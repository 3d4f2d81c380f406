-- name: other_ops
-- version: 1
-- kind: category
-- description: Launchers no rule categorises.
SELECT * FROM launchers WHERE op_category = 'other'
