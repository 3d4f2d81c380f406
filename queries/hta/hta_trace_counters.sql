-- name: hta_trace_counters
-- version: 1
-- kind: view
-- description: The counter tracks `tracesql export T --counters OUT.json` adds to a trace, as HTA's generate_trace_with_counters writes them: the queue length of each stream and the bandwidth of each memory type, one row per sample.
--
-- Each row becomes a Chrome-trace counter event {"ph": "C", "name", "pid",
-- "ts", "id", "args": {arg: value}} on the GPU's process, at the whole-µs
-- times of hta_queue_length and hta_memory_bw: "Queue Length" per stream (id:
-- the stream) and one track per memory type ("Memcpy HtoD", ..., "Memset";
-- args key "Memcpy BW", GB/s). Perfetto UI and chrome://tracing draw them
-- beside the GPU's streams. Edit this view to add tracks of your own.
-- Columns:
--   trace: trace name
--   pid: the process the counter is drawn under (the GPU)
--   ts: time, µs
--   name: the track
--   id: the track's id within the process (the stream), NULL for none
--   arg: the value's key in args
--   value: the sample
--   seq: order of samples at the same time
SELECT trace, pid, ts, 'Queue Length' AS name, stream AS id, 'Queue Length' AS arg,
       CAST(queue_length AS DOUBLE) AS value,
       row_number() OVER (PARTITION BY trace ORDER BY stream, device, ts, is_start, uid, op_uid) AS seq
FROM hta_queue_length
UNION ALL
SELECT trace, pid, ts, memory_type AS name, CAST(NULL AS BIGINT) AS id, 'Memcpy BW' AS arg,
       memory_bw_gbps AS value,
       row_number() OVER (PARTITION BY trace ORDER BY memory_type, ts, tie_order, uid) AS seq
FROM hta_memory_bw
