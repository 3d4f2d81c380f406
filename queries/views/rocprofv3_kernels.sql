-- name: rocprofv3_kernels
-- version: 1
-- kind: view
-- description: rocprofv3 JSON kernel dispatches as TraceLens's rocprof report sees them: integer ns durations and its kernel categories.
--
-- One row per dispatch of a trace read from rocprofv3 JSON (spec formats.md §A.2–A.4).
-- The category is TraceLens's rocprof table, first match of the lower-cased name:
-- gemm/matmul/cijk → GEMM, elementwise → Elementwise, reduce/sum → Reduction,
-- conv → Convolution, norm → Normalization, flash/attn/fmha → Attention,
-- copy/memcpy → Memory, rccl/nccl/cross_device_reduce → COMM, else Other.
-- Under --tracelens-compat the COMM test comes seventh, so NCCL kernels named
-- ...AllReduce_Sum... count as Reduction; by default it comes first.
-- Columns:
--   trace: the trace file the row comes from
--   uid: event uid (kernels.uid)
--   name: kernel name (the truncated name: template instantiations merge)
--   name_full: the demangled name with template arguments
--   begin_ns: start, ns
--   dur_ns: end - start, ns (negative when the trace says so; not filtered)
--   category: rocprof kernel category
--   stream_id: HIP stream handle
--   dispatch_id: rocprofv3 dispatch id
--   grid_x: grid size in work-items, x
--   grid_y: grid size in work-items, y
--   grid_z: grid size in work-items, z
--   block_x: work-group size, x
--   block_y: work-group size, y
--   block_z: work-group size, z
--   agent: the agent handle as written
--   thread_id: OS thread that enqueued it
SELECT
  d.trace, d.uid, d.name, d.name_full, d.begin_ns, d.end_ns - d.begin_ns AS dur_ns,
  CASE
    WHEN NOT tracelens_compat()
         AND regexp_like(d.name, 'rccl|nccl|cross_device_reduce', 'i') THEN 'COMM'
    WHEN lower(d.name) LIKE '%gemm%' OR lower(d.name) LIKE '%matmul%'
         OR lower(d.name) LIKE '%cijk%' THEN 'GEMM'
    WHEN lower(d.name) LIKE '%elementwise%' THEN 'Elementwise'
    WHEN lower(d.name) LIKE '%reduce%' OR lower(d.name) LIKE '%sum%' THEN 'Reduction'
    WHEN lower(d.name) LIKE '%conv%' THEN 'Convolution'
    WHEN lower(d.name) LIKE '%norm%' THEN 'Normalization'
    WHEN lower(d.name) LIKE '%flash%' OR lower(d.name) LIKE '%attn%'
         OR lower(d.name) LIKE '%fmha%' THEN 'Attention'
    WHEN lower(d.name) LIKE '%copy%' OR lower(d.name) LIKE '%memcpy%' THEN 'Memory'
    WHEN regexp_like(d.name, 'rccl|nccl|cross_device_reduce', 'i') THEN 'COMM'
    ELSE 'Other'
  END AS category,
  d.stream_id, d.dispatch_id, d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y, d.block_z,
  d.agent, d.thread_id
FROM kernel_dispatches d
JOIN trace_meta m ON m.trace = d.trace AND m.key = 'source_format' AND m.value = '"rocprofv3"'
