-- name: rocprofv3_short_kernel_histogram
-- version: 1
-- kind: report
-- formats: rocprofv3
-- order: 6
-- sheet: short_kernel_histogram
-- empty: write
-- description: rocprofv3 JSON: how many kernels under 10 µs fall in each of 100 equal duration bins.
--
-- TraceLens sheet `short_kernel_histogram` of its rocprof report: numpy.histogram with 100
-- bins. Under --tracelens-compat the threshold and the bins are in ns (kernels under
-- 10 ns); by default in µs.
-- Columns:
--   bin_start: bin start
--   bin_end: bin end
--   count: kernels in the bin
SELECT bin['bin_start'] AS bin_start, bin['bin_end'] AS bin_end, bin['count'] AS count
FROM (
  SELECT unnest(histogram(dur, 100)) AS bin
  FROM (
    SELECT CASE WHEN tracelens_compat() THEN CAST(dur_ns AS DOUBLE) ELSE dur_ns / 1000.0 END AS dur
    FROM rocprofv3_kernels
  )
  WHERE dur < 10
)
ORDER BY bin_start, bin_end
