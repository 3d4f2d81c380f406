-- name: unary_elementwise_ops
-- version: 1
-- kind: category
-- description: Launchers whose op has the unary elementwise perf model (copy_, silu, rsqrt, ...).
SELECT l.* FROM launchers l JOIN op_registry r ON r.name = l.name WHERE r.family = 'UnaryElementwise'
