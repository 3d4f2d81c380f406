-- name: linked_kernels
-- version: 1
-- kind: view
-- description: GPU work tied to the runtime call that launched it: what the timeline and the launcher tables count.
--
-- Unlinked GPU events (no launch call in the trace carries their correlation id)
-- are left out, as in the reference (spec §4.3). Override this view to change
-- which links count everywhere at once.
SELECT * FROM kernels WHERE launch_uid IS NOT NULL
