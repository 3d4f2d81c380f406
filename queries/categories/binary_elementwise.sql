-- name: binary_elementwise_ops
-- version: 1
-- kind: category
-- description: Launchers whose op has the binary elementwise perf model (add, mul, div, ...).
SELECT l.* FROM launchers l JOIN op_registry r ON r.name = l.name WHERE r.family = 'BinaryElementwise'
