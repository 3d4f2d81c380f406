-- name: straggler_ranking
-- version: 1
-- kind: view
-- description: Which rank makes the others wait, and how much in total: per rank, the wait it imposed on the other ranks of the implicit-sync instances it arrived last at, ties shared.
--
-- TraceLens counts "arrived last" with ties going to the first column, so
-- instances where everyone arrives together name a straggler, and it compares
-- raw clocks (spec collectives B6, B12). Here, on the aligned clock (default
-- mode, rank_clock_offsets), an instance's imposed wait is Σ over the other
-- ranks of (last arrival − their arrival), credited to the rank(s) that arrived
-- last, split evenly when several did and to nobody when all arrived together.
-- Partial instances are left out. The first row is the straggler.
-- Columns:
--   rank: the rank
--   imposed_wait_us: wait it caused the others, µs
--   times_late: instances it arrived last at (shared ties count a fraction)
--   median_lateness_us: median of (its arrival − first arrival), µs
--   own_wait_us: Σ of its own wait for the others, µs
--   instances: implicit-sync instances it took part in
--   share_of_imposed_wait: imposed_wait_us / all imposed wait (0 to 1)
WITH kept AS (
  SELECT i.* FROM collective_instances i
  JOIN implicit_sync_instances s ON s.collective_id = i.collective_id
),
last_ranks AS (
  SELECT collective_id, count(*) AS n_last
  FROM kept WHERE wait_time = 0 AND skew_start > 0 GROUP BY collective_id
),
imposed AS (
  SELECT collective_id, sum(wait_time) AS total FROM kept GROUP BY collective_id
),
per_rank AS (
  SELECT k.rank,
    sum(CASE WHEN k.wait_time = 0 AND l.n_last IS NOT NULL THEN i.total / l.n_last ELSE 0 END)
      AS imposed_wait_us,
    sum(CASE WHEN k.wait_time = 0 AND l.n_last IS NOT NULL THEN 1.0 / l.n_last ELSE 0 END)
      AS times_late,
    median(k.lateness) AS median_lateness_us,
    sum(k.wait_time) AS own_wait_us,
    count(*) AS instances
  FROM kept k
  LEFT JOIN last_ranks l ON l.collective_id = k.collective_id
  JOIN imposed i ON i.collective_id = k.collective_id
  GROUP BY k.rank
)
SELECT rank, imposed_wait_us, times_late, median_lateness_us, own_wait_us, instances,
  CASE WHEN sum(imposed_wait_us) OVER () > 0
    THEN imposed_wait_us / sum(imposed_wait_us) OVER () ELSE 0.0 END AS share_of_imposed_wait
FROM per_rank
ORDER BY imposed_wait_us DESC, rank
