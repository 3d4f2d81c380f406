-- name: collective_kernels
-- version: 2
-- kind: category
-- description: GPU kernels of communication: NCCL, RCCL, DeepEP, NVSHMEM, custom all-reduce, ... (the kernel_classes rows of class communication; TraceLens's NCCL/RCCL names under --tracelens-compat).
SELECT * FROM classified_kernels WHERE class = 'communication'
