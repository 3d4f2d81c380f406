-- name: linked_kernels
-- version: 1
-- kind: view
-- description: TraceLens's notion of linked GPU work: only events an ac2g flow or a graph launch ties to their launch.
--
-- Used by the conformance harness to show that the only difference on traces with
-- flow-less launches is the GPU work TraceLens fails to link (DIFFERENCES.md).
SELECT * FROM kernels WHERE linked_by IN ('flow', 'graph')
