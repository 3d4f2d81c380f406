-- name: critical_path
-- version: 1
-- kind: report
-- order: 908
-- runs: on request
-- description: HTA's critical path analysis: per rank, the longest chain of dependent CPU operators, runtime calls, kernel launches and GPU kernels in one instance of an annotation (default the first ProfilerStep), edge by edge in path order, with what each edge's time is bound by (HTA's critical_path_analysis and its breakdown).
--
-- The graph is critical_path_graph (how it is built), the path
-- critical_path_steps. Choose the instance with `--param
-- hta.annotation=NAME` (an event whose name contains NAME; '' for the whole
-- trace) and `--param hta.instance=N` (the N-th such event in trace order,
-- from 0; `A:B` for a range); e.g. `tracesql report T --only critical_path
-- --param hta.annotation=ProfilerStep --param hta.instance=1`.
-- CUDA event waits (Event Sync, Stream Wait Event) are edges with `--param
-- hta.cuda_event_waits=true` or `hta.compat=true` (critical_path_waits).
-- critical_path_summary adds the durations up per bound_by (HTA's summary).
-- `tracesql export T --critical-path OUT.json` writes the trace with the
-- path marked, as HTA's overlay does.
-- Columns:
--   rank: the trace's rank (0 when the trace gives none)
--   step: the edge's position on the path (1, 2, ...)
--   type: operator (an event's own time), dependency, kernel_launch_delay, kernel_kernel_delay or sync_dependency
--   duration: the edge's time, µs (HTA's duration)
--   bound_by: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead or '' (dependencies)
--   uid: the event the edge's time is attributed to (empty: none)
--   name: that event's name
--   cat: that event's category
--   stream: that event's stream (-1: off the GPU)
--   src_uid: the event whose start or end the edge leaves
--   src: start or end
--   src_ts: the time it leaves, µs
--   dst_uid: the event whose start or end the edge reaches
--   dst: start or end
--   dst_ts: the time it reaches, µs
SELECT coalesce(p.rank, 0) AS rank, p.step, p.type, p.weight AS duration, p.bound_by,
       p.event_uid AS uid, e.name, e.cat, CASE WHEN p.event_uid IS NOT NULL THEN coalesce(e.stream, -1) END AS stream,
       p.src_uid, CASE WHEN p.src_start THEN 'start' ELSE 'end' END AS src, p.src_ts,
       p.dst_uid, CASE WHEN p.dst_start THEN 'start' ELSE 'end' END AS dst, p.dst_ts
FROM critical_path_steps p
LEFT JOIN events e ON e.trace = p.trace AND e.uid = p.event_uid
ORDER BY rank, p.trace, p.step
