-- name: pftrace_activity_events
-- version: 1
-- kind: view
-- description: Perfetto-style JSON: the GPU events TraceLens's activity report counts (truthy args.agent), with its times, GPU index and kernel category.
--
-- TraceLens's `build_event_lists` (spec formats.md §B.5): every event with a truthy
-- args.agent, in file order; GPU = the agent's first-seen index (view pftrace_agents).
-- Times come from its `extract_time_ns` (§B.3): args.begin_ns and args.delta_ns when both
-- are written; otherwise int(ts) and int(dur) (truncated), times 1000 when ts < 1e10 (µs),
-- as they are when not (already ns). Events with dur_ns <= 0 and events whose JSON tid is
-- outside [--set pftrace.min_tid, pftrace.max_tid] (default ±1e9) are dropped. The category is TraceLens's `classify`, first match of a
-- case-insensitive search: rccl|nccl|cross_device_reduce → rccl, cublasLt|Cijk|gemm|nvjet →
-- gemm, FmhaBwd|kernel_func|flash_bprop → ckbwd, FmhaFwd|flash_fprop → ckfwd,
-- copy|memcpy|memset → memcpy, transformer_engine → te, aiter::fmha_fwd → aiterfwd,
-- aiter::fmha_bwd → aiterbwd, fillbuffer → fillBuffer, else xla.
-- Known gap: a begin/end ('b') slice written without dur and without begin_ns+delta_ns has
-- its events.dur filled from the annotations, where TraceLens reads dur as 0 and drops it.
-- Columns:
--   trace: the trace file the row comes from
--   uid: event uid (file order)
--   gpu: GPU index (pftrace_agents.gpu)
--   agent: args.agent as written
--   name: event name
--   category: TraceLens activity category (xla, gemm, ckbwd, ckfwd, memcpy, te, aiterfwd, aiterbwd, fillBuffer, rccl)
--   ts_ns: start, ns
--   dur_ns: duration, ns (> 0)
--   grid_size: args.grid_size as written (work-items, the x·y·z product); NULL when absent
--   workgroup_size: args.workgroup_size (the x·y·z product); NULL when absent
--   vgpr: args.VGPR_Count
--   accum_vgpr: args.Accum_VGPR_Count
--   sgpr: args.SGPR_Count
--   lds: args.LDS_Block_Size only (not group_segment_size)
--   scratch: args.Scratch_Size only (not private_segment_size)
WITH raw AS (
  SELECT d.trace, d.uid, CAST(d.agent AS VARCHAR) AS agent, d.begin_ns, d.delta_ns,
         d.grid_size, d.workgroup_size, d.vgpr, d.accum_vgpr, d.sgpr,
         d.lds, d.scratch
  FROM kernel_dispatches d WHERE d.agent IS NOT NULL AND d.trace IN (SELECT trace FROM pftrace_traces)
  UNION ALL
  SELECT a.trace, a.uid, CAST(a.agent AS VARCHAR), a.begin_ns, a.delta_ns,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM api_calls a WHERE a.agent IS NOT NULL AND a.trace IN (SELECT trace FROM pftrace_traces)
),
timed AS (
  SELECT r.*, CAST(e.name AS VARCHAR) AS name, e.args,
         COALESCE(TRY_CAST(CAST(e.tid AS VARCHAR) AS BIGINT), -1) AS json_tid,
         CAST(trunc(COALESCE(e.ts, 0)) AS BIGINT) AS ts_int,
         CAST(trunc(COALESCE(e.dur, 0)) AS BIGINT) AS dur_int
  FROM raw r JOIN events e ON e.trace = r.trace AND e.uid = r.uid
),
ns AS (
  SELECT t.*,
         CASE WHEN begin_ns IS NOT NULL AND delta_ns IS NOT NULL THEN begin_ns
              WHEN ts_int < 10000000000 THEN ts_int * 1000 ELSE ts_int END AS ts_ns,
         CASE WHEN begin_ns IS NOT NULL AND delta_ns IS NOT NULL THEN delta_ns
              WHEN ts_int < 10000000000 THEN dur_int * 1000 ELSE dur_int END AS dur_ns
  FROM timed t
)
SELECT n.trace, n.uid, g.gpu, n.agent, COALESCE(n.name, '') AS name,
       CASE
         WHEN regexp_like(COALESCE(n.name, ''), 'rccl|nccl|cross_device_reduce', 'i') THEN 'rccl'
         WHEN regexp_like(COALESCE(n.name, ''), 'cublasLt|Cijk|gemm|nvjet', 'i') THEN 'gemm'
         WHEN regexp_like(COALESCE(n.name, ''), 'FmhaBwd|kernel_func|flash_bprop', 'i') THEN 'ckbwd'
         WHEN regexp_like(COALESCE(n.name, ''), 'FmhaFwd|flash_fprop', 'i') THEN 'ckfwd'
         WHEN regexp_like(COALESCE(n.name, ''), 'copy|memcpy|memset', 'i') THEN 'memcpy'
         WHEN regexp_like(COALESCE(n.name, ''), 'transformer_engine', 'i') THEN 'te'
         WHEN regexp_like(COALESCE(n.name, ''), 'aiter::fmha_fwd', 'i') THEN 'aiterfwd'
         WHEN regexp_like(COALESCE(n.name, ''), 'aiter::fmha_bwd', 'i') THEN 'aiterbwd'
         WHEN regexp_like(COALESCE(n.name, ''), 'fillbuffer', 'i') THEN 'fillBuffer'
         ELSE 'xla'
       END AS category,
       n.ts_ns, n.dur_ns,
       n.grid_size, n.workgroup_size, n.vgpr, n.accum_vgpr, n.sgpr,
       CASE WHEN strpos(n.args, '"LDS_Block_Size"') > 0 THEN n.lds END AS lds,
       CASE WHEN strpos(n.args, '"Scratch_Size"') > 0 THEN n.scratch END AS scratch
FROM ns n
JOIN pftrace_agents g ON g.trace = n.trace AND g.agent = n.agent
WHERE n.dur_ns > 0
  AND n.json_tid BETWEEN CAST(setting('pftrace.min_tid', '-1000000000') AS BIGINT)
                     AND CAST(setting('pftrace.max_tid', '1000000000') AS BIGINT)
