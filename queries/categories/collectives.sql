-- name: collective_kernels
-- version: 1
-- kind: category
-- description: GPU kernels of collective communication (NCCL, RCCL, cross_device_reduce).
SELECT * FROM kernels WHERE class = 'communication'
