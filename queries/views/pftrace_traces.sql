-- name: pftrace_traces
-- version: 1
-- kind: view
-- description: The traces of the session read as Perfetto-style JSON: the pftrace sheets count only these, whatever else a session holds.
--
-- kernel_dispatches, api_calls and memory_copies hold rows of every non-Kineto format;
-- TraceLens's pftrace rules (first-seen agent order, its two time extractors) apply only
-- to Perfetto-style JSON, so every pftrace view and sheet reads its rows through this one.
-- Columns:
--   trace: a trace read as Perfetto-style JSON (trace_meta.source_format = "pftrace")
SELECT trace FROM trace_meta WHERE key = 'source_format' AND value = '"pftrace"'
ORDER BY trace
