-- name: comm_kernels
-- version: 1
-- kind: view
-- description: Every collective kernel of every rank with its collective's metadata, type and message sizes: the long table the multi-rank sheets and coll_analysis read.
--
-- A kernel counts when it is a `kernel` event (not a memset) named like a
-- collective (nccl, rccl, cross_device_reduce) and has a correlation or an
-- External id, as TraceLens selects them (spec collectives §2.1); it need not
-- be linked to its launch.
--
-- Beyond TraceLens (default mode): message sizes know every dtype (FP8
-- all-gathers get a size), a kernel without recorded metadata gets its type
-- from its name (ncclKernel_AllReduce_* is an allreduce), the timestamps of
-- ranks whose traces start from different baseTimeNanoseconds are put on one
-- clock, and a trace holding several GPUs' kernels (one process driving
-- several devices) gives each device a rank of its own. Under
-- --tracelens-compat: TraceLens's dtype table, no inference, raw ts, one rank
-- per trace.
-- Columns:
--   rank: the rank of the kernel's device (rank_devices: the trace's rank, 0
--     when unknown; in default mode a trace with collectives on several
--     devices numbers them rank, rank+1, ...)
--   trace: trace name
--   uid: event uid (file order)
--   kernel_name: the kernel's name
--   device: args.device
--   stream: args.stream
--   ts: start, µs (raw ts; in default mode shifted by the difference of the
--     trace's baseTimeNanoseconds to the smallest base of the session)
--   dur: duration, µs
--   integer_times: true when the trace writes its times as JSON integers
--   process_group_name: args['Process Group Name']
--   process_group_ranks: args['Process Group Ranks'] as written
--   collective_name: args['Collective name'] (allreduce for cross_device_reduce
--     kernels without it)
--   collective_type: from collective_types; in default mode, for kernels without
--     a name, from the kernel name
--   implicit_sync: collective_types.implicit_sync of that type
--   busbw_factor: collective_types.busbw_factor
--   full_size_from: collective_types.full_size_from
--   group_size: args['Group size']
--   dtype: args.dtype
--   in_msg_nelems: args['In msg nelems']
--   out_msg_nelems: args['Out msg nelems']
--   in_msg_mb: input size in MiB (2^20 bytes, TraceLens's "MB"); NULL when the
--     dtype has no known size
--   out_msg_mb: output size in MiB
--   in_split_size: args['In split size'] as written
--   out_split_size: args['Out split size'] as written
--   seq: the process group's sequence number of this collective (from its
--     record_param_comms), NULL in older traces
--   comms_id: the collective's Comms Id, NULL in older traces
--   peer_rank: record_param_comms' Rank: the peer of a send/recv
WITH bases AS (
  SELECT min(base_time_ns) AS smallest FROM ranks
),
integer_traces AS (
  SELECT trace, value = 'true' AS integer_times FROM trace_meta WHERE key = 'integer_times'
),
picked AS (
  SELECT c.*, k.name AS kernel_name
  FROM collectives c
  JOIN kernels k ON k.trace = c.trace AND k.uid = c.uid
  WHERE c.source = 'kernel' AND k.cat = 'kernel'
    AND (k.correlation IS NOT NULL OR k.external_id IS NOT NULL)
),
inferred AS (
  -- Kernels without recorded metadata (older PyTorch) get their type from the
  -- kernel name, in default mode.
  SELECT p.*, t.collective_type AS named_type, t.implicit_sync AS named_sync,
    t.busbw_factor AS named_factor, t.full_size_from AS named_size_from,
    CASE WHEN NOT tracelens_compat() AND p.collective_name IS NULL THEN
      CASE
        WHEN p.kernel_name ILIKE '%AllReduce%' THEN 'allreduce'
        WHEN p.kernel_name ILIKE '%ReduceScatter%' THEN 'reducescatter'
        WHEN p.kernel_name ILIKE '%AllGather%' THEN 'allgather'
        WHEN p.kernel_name ILIKE '%AllToAll%' THEN 'alltoall'
        WHEN p.kernel_name ILIKE '%Broadcast%' THEN 'broadcast'
        WHEN p.kernel_name ILIKE '%SendRecv%' OR p.kernel_name ILIKE '%\_Send%'
          OR p.kernel_name ILIKE '%\_Recv%' THEN 'sendrecv'
        WHEN p.kernel_name ILIKE '%\_Reduce%' THEN 'reduce'
      END END AS name_type
  FROM picked p
  LEFT JOIN collective_types t ON t.collective_name = p.collective_name
),
typed AS (
  SELECT i.*,
    coalesce(named_type, name_type) AS collective_type,
    coalesce(named_sync, name_type IN ('allreduce', 'reducescatter', 'allgather', 'alltoall'))
      AS implicit_sync,
    coalesce(named_factor, CASE name_type WHEN 'allreduce' THEN 'allreduce_ring'
      WHEN 'reducescatter' THEN 'ring' WHEN 'allgather' THEN 'ring' WHEN 'alltoall' THEN 'ring'
      WHEN 'broadcast' THEN 'one' WHEN 'reduce' THEN 'one' WHEN 'sendrecv' THEN 'one' END)
      AS busbw_factor,
    coalesce(named_size_from, CASE WHEN name_type = 'allgather' THEN 'out' ELSE 'in' END)
      AS full_size_from
  FROM inferred i
),
tracelens_bytes AS (
  SELECT * FROM (VALUES ('Float', 4.0), ('Int', 4.0), ('Long', 8.0), ('BFloat16', 2.0),
    ('Bool', 1.0), ('Byte', 1.0), ('Double', 8.0), ('Half', 2.0), ('Short', 2.0))
    AS b(dtype, bytes)
)
SELECT
  coalesce(rd.rank, r.rank, 0) AS rank,
  p.trace, p.uid, p.kernel_name, p.device, p.stream,
  CASE WHEN tracelens_compat() OR r.base_time_ns IS NULL OR bases.smallest IS NULL THEN p.ts
       ELSE p.ts + CAST(r.base_time_ns - bases.smallest AS DOUBLE) / 1000.0
  END AS ts,
  p.dur,
  coalesce(it.integer_times, false) AS integer_times,
  p.process_group_name, p.process_group_ranks, p.collective_name,
  p.collective_type,
  p.implicit_sync, p.busbw_factor, p.full_size_from,
  p.group_size, p.dtype, p.in_msg_nelems, p.out_msg_nelems,
  CASE WHEN tracelens_compat() THEN p.in_msg_nelems * tb.bytes / 1048576.0
       ELSE p.in_msg_bytes / 1048576.0 END AS in_msg_mb,
  CASE WHEN tracelens_compat() THEN
         CASE WHEN p.in_msg_nelems IS NOT NULL THEN p.out_msg_nelems * tb.bytes / 1048576.0 END
       ELSE p.out_msg_bytes / 1048576.0 END AS out_msg_mb,
  p.in_split_size, p.out_split_size,
  p.seq, p.comms_id, p.peer_rank
FROM typed p
CROSS JOIN bases
LEFT JOIN ranks r ON r.trace = p.trace
LEFT JOIN rank_devices rd ON rd.trace = p.trace AND rd.device = p.device
LEFT JOIN integer_traces it ON it.trace = p.trace
LEFT JOIN tracelens_bytes tb ON tb.dtype = p.dtype
