-- name: memcpy_kernels
-- version: 1
-- kind: category
-- description: GPU memory copies (gpu_memcpy events and ROCm copy kernels).
SELECT * FROM classified_kernels WHERE class = 'memcpy'
