-- name: collective_types
-- version: 1
-- kind: view
-- description: What each recorded collective name is (allreduce, allgather, ...), whether its ranks finish together, and its bus-bandwidth factor: extend it to teach tracesql a new collective.
--
-- `Collective name` on a kernel is the c10d call PyTorch recorded; several names
-- are one operation (`_allgather_base`, `all_gather_into_tensor_coalesced`).
-- TraceLens maps only the names with `tracelens = true` and treats the rest as
-- untyped (no bandwidth, no skew): the list-API `reduce_scatter`, broadcast,
-- reduce, gather, scatter, send and recv (spec collectives §4.1, bug B7).
-- Under --tracelens-compat only those rows count.
--
-- Bus bandwidth = algorithm bandwidth × the factor for a group of n ranks, as
-- nccl-tests defines it: allreduce 2(n−1)/n; reduce-scatter, all-gather,
-- all-to-all, gather and scatter (n−1)/n; broadcast, reduce and send/recv 1.
-- Columns:
--   collective_name: the name PyTorch records (args['Collective name'])
--   collective_type: allreduce, reducescatter, allgather, alltoall, alltoallv,
--     broadcast, reduce, gather, scatter, sendrecv or barrier
--   implicit_sync: true when no rank can finish before every rank has arrived,
--     so the wait of each rank is skew, not transfer
--   busbw_factor: allreduce_ring (2(n−1)/n), ring ((n−1)/n), one (1) or NULL
--     (no bandwidth model)
--   full_size_from: in or out: which message size is the whole buffer the
--     bandwidth counts (the gathered output for all-gathers)
--   tracelens: whether TraceLens maps this name
SELECT * FROM (VALUES
  ('allreduce',                         'allreduce',     true,  'allreduce_ring', 'in',  true),
  ('allreduce_coalesced',               'allreduce',     true,  'allreduce_ring', 'in',  true),
  ('reducescatter',                     'reducescatter', true,  'ring',           'in',  true),
  ('_reduce_scatter_base',              'reducescatter', true,  'ring',           'in',  true),
  ('reduce_scatter_tensor_coalesced',   'reducescatter', true,  'ring',           'in',  true),
  ('reduce_scatter',                    'reducescatter', true,  'ring',           'in',  false),
  ('allgather',                         'allgather',     true,  'ring',           'out', true),
  ('all_gather',                        'allgather',     true,  'ring',           'out', true),
  ('_allgather_base',                   'allgather',     true,  'ring',           'out', true),
  ('all_gather_into_tensor_coalesced',  'allgather',     true,  'ring',           'out', true),
  ('allgather_into_tensor_coalesced',   'allgather',     true,  'ring',           'out', true),
  ('allgather_coalesced',               'allgather',     true,  'ring',           'out', false),
  ('all_to_all',                        'alltoall',      true,  'ring',           'in',  true),
  ('all_to_allv',                       'alltoallv',     false, NULL,             'in',  true),
  ('broadcast',                         'broadcast',     false, 'one',            'in',  false),
  ('_broadcast_oop',                    'broadcast',     false, 'one',            'in',  false),
  ('reduce',                            'reduce',        false, 'one',            'in',  false),
  ('_reduce_oop',                       'reduce',        false, 'one',            'in',  false),
  ('gather',                            'gather',        false, 'ring',           'out', false),
  ('scatter',                           'scatter',       false, 'ring',           'in',  false),
  ('send',                              'sendrecv',      false, 'one',            'in',  false),
  ('recv',                              'sendrecv',      false, 'one',            'out', false),
  ('barrier',                           'barrier',       true,  NULL,             'in',  false)
) AS t(collective_name, collective_type, implicit_sync, busbw_factor, full_size_from, tracelens)
WHERE tracelens OR NOT tracelens_compat()
