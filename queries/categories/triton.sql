-- name: triton_ops
-- version: 1
-- kind: category
-- description: Launchers whose name starts with triton (torch.compile / Triton kernels).
SELECT * FROM launchers WHERE op_category = 'triton'
