-- name: short_kernel_histogram
-- version: 2
-- kind: report
-- order: 21
-- empty: write
-- description: How many kernels shorter than 10 µs fall in each of 100 equal duration bins.
--
-- TraceLens sheet `short_kernel_histogram` (spec §8.8): numpy.histogram over the raw
-- durations of kernels (not memcpy/memset) with dur < 10 µs, linked or not.
-- Columns:
--   bin_start: bin start, µs
--   bin_end: bin end, µs
--   count: kernels in the bin
SELECT bin['bin_start'] AS bin_start, bin['bin_end'] AS bin_end, bin['count'] AS count
FROM (
  SELECT unnest(histogram(dur, 100)) AS bin
  FROM kernels
  WHERE cat = 'kernel' AND dur < 10
)
ORDER BY bin_start, bin_end
