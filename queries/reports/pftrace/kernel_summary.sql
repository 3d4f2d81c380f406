-- name: pftrace_kernel_summary
-- version: 1
-- kind: report
-- formats: pftrace
-- order: 24
-- sheet: kernel_summary
-- empty: write
-- empty_text: CASE WHEN tracelens_compat() THEN chr(10) END
-- drop_columns_if: GridXYZ, BlockXYZ, VGPR, AccumVGPR, SGPR, LDS, Scratch, GridX, GridY, GridZ, BlockX, BlockY, BlockZ when SELECT setting('pftrace.kernel_summary_group', 'config') = 'name'
-- description: Perfetto-style JSON: non-communication kernels of all GPUs grouped by name and launch configuration, nsys-style, with time statistics and share of GPU time.
--
-- TraceLens's pftrace activity report, sheet `kernel_summary` in its default `config`
-- grouping (spec formats.md §B.5): the non-rccl events of view pftrace_activity_events that
-- last at least 5 µs, all GPUs pooled, grouped by (name, grid_size, workgroup_size,
-- VGPR_Count, Accum_VGPR_Count, SGPR_Count, LDS_Block_Size, Scratch_Size), a missing value
-- counting as 0. rocprofv3 writes none of the register or LDS keys (only group/private
-- segment sizes, which TraceLens does not read), so only grid and work-group separate
-- configurations. "Time %" is against the time of all kept events including rccl, so it
-- sums to less than 100 when there is communication. Sorted by total time (TraceLens leaves
-- ties unordered; here by name, then configuration).
-- TraceLens's options, as --set pftrace.NAME=VALUE:
--   kernel_summary_group=name: group by name alone (the configuration columns are left out);
--   kernel_summary_include_rccl=true: communication kernels are listed too;
--   kernel_summary_baseline=compute: "Time %" against compute time only (no rccl);
--   merge_kernels=true: names with their digits removed (fusion_7 and fusion_8 merge);
--   min_event_ns=N (default 5000), min_tid / max_tid (view pftrace_activity_events).
-- Pretty times: py_format(ns, 'human_ns'): ≥ 1e6 ns "%.3f ms", ≥ 1e3 ns "%.3f μs", else the
-- truncated integer "N ns".
-- Columns:
--   Time: "Time %" as "12.3%"
--   "Total Time": Total Time (ns) as a pretty time
--   Instances: dispatches
--   Avg: Avg (ns) as a pretty time
--   Med: Med (ns) as a pretty time
--   Min: Min (ns) as a pretty time
--   Max: Max (ns) as a pretty time
--   StdDev: StdDev (ns) as a pretty time
--   GridXYZ: "{GridX:>7d} {GridY:>4d} {GridZ:>4d}"
--   BlockXYZ: "{BlockX:>7d} {BlockY:>4d} {BlockZ:>4d}"
--   VGPR: args.VGPR_Count (0 when absent)
--   AccumVGPR: args.Accum_VGPR_Count (0 when absent)
--   SGPR: args.SGPR_Count (0 when absent)
--   LDS: args.LDS_Block_Size (0 when absent; not group_segment_size)
--   Scratch: args.Scratch_Size (0 when absent; not private_segment_size)
--   Name: kernel name
--   "Time %": total / (compute + rccl time of all GPUs) · 100
--   "Total Time (ns)": total duration, ns
--   "Avg (ns)": mean duration, ns
--   "Med (ns)": median duration, ns
--   "Min (ns)": shortest, ns
--   "Max (ns)": longest, ns
--   "StdDev (ns)": population standard deviation, ns
--   GridX: args.grid_size (work-items, the x·y·z product; 0 when absent)
--   GridY: 1
--   GridZ: 1
--   BlockX: args.workgroup_size (the x·y·z product; 0 when absent)
--   BlockY: 1
--   BlockZ: 1
WITH kept AS (
  SELECT * FROM pftrace_activity_events WHERE dur_ns >= CAST(setting('pftrace.min_event_ns', '5000') AS BIGINT)
),
baseline AS (
  SELECT trace, sum(dur_ns) AS ns FROM kept
  WHERE category <> 'rccl' OR setting('pftrace.kernel_summary_baseline', 'total') <> 'compute'
  GROUP BY trace
),
-- One row per kernel with its grouping key: the configuration is 0 in `name` grouping.
keyed AS (
  SELECT trace, dur_ns,
         CASE WHEN setting('pftrace.merge_kernels', 'false') = 'true'
              THEN regexp_replace(name, '[0-9]+', '', 'g') ELSE name END AS name,
         CASE WHEN setting('pftrace.kernel_summary_group', 'config') = 'name' THEN NULL
              ELSE struct(COALESCE(grid_size, 0) AS grid, COALESCE(workgroup_size, 0) AS block,
                          COALESCE(vgpr, 0) AS vgpr, COALESCE(accum_vgpr, 0) AS accum_vgpr,
                          COALESCE(sgpr, 0) AS sgpr, COALESCE(lds, 0) AS lds,
                          COALESCE(scratch, 0) AS scratch) END AS config
  FROM kept
  WHERE category <> 'rccl' OR setting('pftrace.kernel_summary_include_rccl', 'false') = 'true'
),
groups AS (
  SELECT trace, name,
         COALESCE(config['grid'], 0) AS grid, COALESCE(config['block'], 0) AS block,
         COALESCE(config['vgpr'], 0) AS vgpr, COALESCE(config['accum_vgpr'], 0) AS accum_vgpr,
         COALESCE(config['sgpr'], 0) AS sgpr, COALESCE(config['lds'], 0) AS lds,
         COALESCE(config['scratch'], 0) AS scratch,
         sum(dur_ns) AS total, count(*) AS n, avg(CAST(dur_ns AS DOUBLE)) AS mean,
         median(CAST(dur_ns AS DOUBLE)) AS med, min(dur_ns) AS lo, max(dur_ns) AS hi,
         stddev_pop(CAST(dur_ns AS DOUBLE)) AS std
  FROM keyed
  GROUP BY trace, name, config
),
shares AS (
  SELECT g.*, CASE WHEN b.ns > 0 THEN CAST(g.total AS DOUBLE) / b.ns ELSE 0.0 END * 100.0 AS pct
  FROM groups g JOIN baseline b ON b.trace = g.trace
)
SELECT py_format(pct, '.1f') || '%' AS "Time",
       py_format(total, 'human_ns') AS "Total Time",
       n AS "Instances",
       py_format(mean, 'human_ns') AS "Avg",
       py_format(med, 'human_ns') AS "Med",
       py_format(lo, 'human_ns') AS "Min",
       py_format(hi, 'human_ns') AS "Max",
       py_format(std, 'human_ns') AS "StdDev",
       py_format(grid, '>7d') || ' ' || py_format(1, '>4d') || ' ' || py_format(1, '>4d') AS "GridXYZ",
       py_format(block, '>7d') || ' ' || py_format(1, '>4d') || ' ' || py_format(1, '>4d') AS "BlockXYZ",
       vgpr AS "VGPR", accum_vgpr AS "AccumVGPR", sgpr AS "SGPR", lds AS "LDS", scratch AS "Scratch",
       name AS "Name", pct AS "Time %", total AS "Total Time (ns)", mean AS "Avg (ns)",
       med AS "Med (ns)", lo AS "Min (ns)", hi AS "Max (ns)", std AS "StdDev (ns)",
       grid AS "GridX", 1 AS "GridY", 1 AS "GridZ", block AS "BlockX", 1 AS "BlockY", 1 AS "BlockZ"
FROM shares
ORDER BY trace, total DESC, name, grid, block, vgpr, accum_vgpr, sgpr, lds, scratch
