-- name: rocprofv3_kernel_details
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 4
-- sheet: kernel_details
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- integer_columns: Kernel duration (µs)
-- description: rocprofv3 JSON: every kernel dispatch, longest first, with its stream, grid and block.
--
-- TraceLens sheet `kernel_details` (spec formats.md §A.3). Under --tracelens-compat the
-- "µs" duration holds ns, as TraceLens writes it. Ties are broken by dispatch id.
-- Columns:
--   name: kernel name
--   "Kernel duration (µs)": its duration
--   stream: HIP stream handle
--   dispatch_id: rocprofv3 dispatch id
--   grid_x: grid size in work-items, x
--   grid_y: grid size in work-items, y
--   grid_z: grid size in work-items, z
--   block_x: work-group size, x
--   block_y: work-group size, y
--   block_z: work-group size, z
--   agent_id: the agent handle as written
--   thread_id: OS thread that enqueued it
SELECT name,
       CASE WHEN tracelens_compat() THEN CAST(dur_ns AS DOUBLE) ELSE dur_ns / 1000.0 END
         AS "Kernel duration (µs)",
       stream_id AS stream, dispatch_id,
       coalesce(grid_x, 1) AS grid_x, coalesce(grid_y, 1) AS grid_y, coalesce(grid_z, 1) AS grid_z,
       coalesce(block_x, 1) AS block_x, coalesce(block_y, 1) AS block_y, coalesce(block_z, 1) AS block_z,
       CAST(agent AS BIGINT) AS agent_id, thread_id
FROM rocprofv3_kernels
ORDER BY dur_ns DESC, dispatch_id
