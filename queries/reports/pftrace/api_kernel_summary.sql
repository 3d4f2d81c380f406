-- name: pftrace_api_kernel_summary
-- version: 2
-- kind: report
-- formats: pftrace
-- order: 20
-- sheet: api_kernel_summary
-- empty: write
-- description: Perfetto-style JSON: HIP launch calls and the kernel each launched, T = API + queue + kernel time per (PID, TID, device, API, kernel).
--
-- TraceLens's pftrace HIP API report, sheet `api_kernel_summary` (spec formats.md §B.4).
-- Events are paired by correlation id (first int-parsable of corr_id, correlation_id,
-- correlationId, CorrId):
--   * kernel-like: a name ending in ".kd" or containing ".kd ", or a kernel_dispatch /
--     gpu_activity / kernel / memory_copy category with a duration > 0 and no "register" in
--     the name. So memory copies count as kernels. Kernels whose name (args.kernel_name,
--     KernelName, symbol, symbol_name or funcName, else the event name) matches
--     `(?:^|\W)redzone_checker_kernel(?:\W|$)` are dropped;
--   * API-like: category exactly hip_api with args.corr_id, or cuda_api / cupti; the last one
--     in file order wins a correlation id.
-- Only launches count: hip_api calls named hipModuleLaunchKernel, hipLaunchKernelGGL,
-- hipLaunchKernel, hipExtLaunchKernelGGL, hipModuleLaunchCooperativeKernel,
-- hipExtModuleLaunchKernel, hipMemset, hipMemcpyHtoDAsync, hipMemcpyDtoHAsync,
-- hipMemsetD32Async, or matching (?i)Launch.*Kernel. A launch without a kernel gives no row;
-- with several kernels only the earliest (then first in the file) is kept.
-- Times (ns) use the API report's extractor (§B.3): args.begin_ns and args.end_ns (delta =
-- end - begin when delta_ns is absent), else int(ts)·1000 and int(dur)·1000.
-- A = the API's duration, Q = max(0, kernel begin - API end), K = the kernel's duration,
-- T = A + Q + K. DevId: an explicit device id in the kernel's args, else its agent's
-- first-seen index (view pftrace_agents), else 0. PID and TID are the JSON pid and tid (for
-- async-exported slices the TID is the pid). Rows are sorted by (PID, TID, DevId, API, kernel).
-- TraceLens's options, as --set pftrace.NAME=VALUE:
--   include_nonlaunch_apis=true: every API-like call counts, not only launches; a call
--     without a kernel gives a row with an empty Kernel Name, DevId 0, QCount 0, T
--     statistics 0, A its duration, Q and K 0;
--   allow_multi_kernel_per_api=true: one row per kernel of a call (graph launches), each
--     with the call's full A;
--   exclude_kernel_regex=RE: kernels dropped by name (default
--     (?:^|\W)redzone_checker_kernel(?:\W|$); empty: none).
-- Statistics: Avg = mean, Med = median, Min/Max, StdDev = population standard deviation.
-- Columns:
--   PID: the API event's JSON pid
--   TID: the API event's JSON tid (the pid for async-exported slices)
--   DevId: the kernel's device (see above)
--   Count: launches in the group
--   QCount: launches with a kernel (= Count but under include_nonlaunch_apis)
--   TAvg_ns: T = A + Q + K: mean, ns
--   TMed_ns: T = A + Q + K: median, ns
--   TMin_ns: T = A + Q + K: minimum, ns
--   TMax_ns: T = A + Q + K: maximum, ns
--   TStdDev_ns: T = A + Q + K: population standard deviation, ns
--   AAvg_ns: A, the API call duration: mean, ns
--   AMed_ns: A, the API call duration: median, ns
--   AMin_ns: A, the API call duration: minimum, ns
--   AMax_ns: A, the API call duration: maximum, ns
--   AStdDev_ns: A, the API call duration: population standard deviation, ns
--   QAvg_ns: Q, the queue delay: mean, ns
--   QMed_ns: Q, the queue delay: median, ns
--   QMin_ns: Q, the queue delay: minimum, ns
--   QMax_ns: Q, the queue delay: maximum, ns
--   QStdDev_ns: Q, the queue delay: population standard deviation, ns
--   KAvg_ns: K, the kernel duration: mean, ns
--   KMed_ns: K, the kernel duration: median, ns
--   KMin_ns: K, the kernel duration: minimum, ns
--   KMax_ns: K, the kernel duration: maximum, ns
--   KStdDev_ns: K, the kernel duration: population standard deviation, ns
--   "API Name": the launch call
--   "Kernel Name": the kernel (args.kernel_name, KernelName, symbol, symbol_name or funcName, else the event name)
WITH work AS (
  SELECT trace, uid, corr_id, device_id, CAST(agent AS VARCHAR) AS agent,
         begin_ns, end_ns, delta_ns
  FROM kernel_dispatches WHERE corr_id IS NOT NULL AND trace IN (SELECT trace FROM pftrace_traces)
  UNION ALL
  SELECT trace, uid, corr_id, NULL, NULL, begin_ns, end_ns, delta_ns
  FROM memory_copies WHERE corr_id IS NOT NULL AND trace IN (SELECT trace FROM pftrace_traces)
),
work_timed AS (
  SELECT w.*, CAST(e.name AS VARCHAR) AS ev_name,
         CASE WHEN w.begin_ns IS NOT NULL AND w.end_ns IS NOT NULL THEN w.begin_ns
              WHEN e.ts IS NOT NULL AND e.dur IS NOT NULL THEN CAST(trunc(e.ts) AS BIGINT) * 1000
         END AS b,
         CASE WHEN w.begin_ns IS NOT NULL AND w.end_ns IS NOT NULL THEN COALESCE(w.delta_ns, w.end_ns - w.begin_ns)
              WHEN e.ts IS NOT NULL AND e.dur IS NOT NULL THEN CAST(trunc(e.dur) AS BIGINT) * 1000
         END AS d,
         -- Each key's regex runs only on args that hold the key as written (its
         -- regex needs it so): most args hold none of them.
         COALESCE(
           CASE WHEN strpos(e.args, '"kernel_name"') > 0 THEN NULLIF(regexp_match(e.args, '"kernel_name"\s*:\s*"((?:[^"\\]|\\.)*)"')[1], '') END,
           CASE WHEN strpos(e.args, '"KernelName"') > 0 THEN NULLIF(regexp_match(e.args, '"KernelName"\s*:\s*"((?:[^"\\]|\\.)*)"')[1], '') END,
           CASE WHEN strpos(e.args, '"symbol"') > 0 THEN NULLIF(regexp_match(e.args, '"symbol"\s*:\s*"((?:[^"\\]|\\.)*)"')[1], '') END,
           CASE WHEN strpos(e.args, '"symbol_name"') > 0 THEN NULLIF(regexp_match(e.args, '"symbol_name"\s*:\s*"((?:[^"\\]|\\.)*)"')[1], '') END,
           CASE WHEN strpos(e.args, '"funcName"') > 0 THEN NULLIF(regexp_match(e.args, '"funcName"\s*:\s*"((?:[^"\\]|\\.)*)"')[1], '') END
         ) AS arg_name
  FROM work w JOIN events e ON e.trace = w.trace AND e.uid = w.uid
),
kernels AS (
  SELECT trace, uid, corr_id, device_id, agent, b, d,
         CASE WHEN arg_name IS NULL THEN COALESCE(ev_name, '')
              ELSE regexp_replace(arg_name, '\\(["\\/])', '${1}', 'g') END AS kname
  FROM work_timed
  WHERE lower(COALESCE(ev_name, '')) LIKE '%.kd'
     OR strpos(lower(COALESCE(ev_name, '')), '.kd ') > 0
     OR (d > 0 AND strpos(lower(COALESCE(ev_name, '')), 'register') = 0)
),
kept_kernels AS (
  SELECT * FROM kernels
  WHERE setting('pftrace.exclude_kernel_regex', '(?:^|\W)redzone_checker_kernel(?:\W|$)') = ''
     -- The default pattern matches only a name holding its literal, and the
     -- regex (Unicode \W) is the slow part: it runs only on those names.
     OR NOT CASE
          WHEN setting('pftrace.exclude_kernel_regex', '(?:^|\W)redzone_checker_kernel(?:\W|$)') = '(?:^|\W)redzone_checker_kernel(?:\W|$)'
               AND strpos(kname, 'redzone_checker_kernel') = 0 THEN false
          ELSE regexp_like(kname, setting('pftrace.exclude_kernel_regex', '(?:^|\W)redzone_checker_kernel(?:\W|$)'))
        END
),
-- The earliest kernel of each correlation id (then the first in the file), found
-- by an aggregate: a row_number() window over one small partition per launch
-- costs a batch slice per partition.
earliest_kernel AS (
  SELECT trace, first_value(uid ORDER BY COALESCE(b, 0), uid) AS uid
  FROM kept_kernels
  GROUP BY trace, corr_id
),
first_kernel AS (
  SELECT k.* FROM kept_kernels k
  LEFT JOIN earliest_kernel f ON f.trace = k.trace AND f.uid = k.uid
  WHERE f.uid IS NOT NULL OR setting('pftrace.allow_multi_kernel_per_api', 'false') = 'true'
),
apis AS (
  SELECT a.trace, a.uid, a.corr_id, CAST(a.domain AS VARCHAR) AS domain,
         CAST(e.name AS VARCHAR) AS api_name,
         regexp_like(e.args, '"corr_id"\s*:\s*[^n\s]') AS has_corr_key,
         CAST(CAST(e.pid AS VARCHAR) AS BIGINT) AS pid,
         CAST(CAST(e.tid AS VARCHAR) AS BIGINT) AS tid,
         CASE WHEN a.begin_ns IS NOT NULL AND a.end_ns IS NOT NULL THEN COALESCE(a.delta_ns, a.end_ns - a.begin_ns)
              WHEN e.ts IS NOT NULL AND e.dur IS NOT NULL THEN CAST(trunc(e.dur) AS BIGINT) * 1000
         END AS a_ns,
         CASE WHEN a.begin_ns IS NOT NULL AND a.end_ns IS NOT NULL THEN a.end_ns
              WHEN e.ts IS NOT NULL AND e.dur IS NOT NULL
                THEN CAST(trunc(e.ts) AS BIGINT) * 1000 + CAST(trunc(e.dur) AS BIGINT) * 1000
         END AS api_end
  FROM api_calls a JOIN events e ON e.trace = a.trace AND e.uid = a.uid
  WHERE a.corr_id IS NOT NULL AND a.trace IN (SELECT trace FROM pftrace_traces)
),
-- The last API-like call of each correlation id in file order.
last_api AS (
  SELECT trace, max(uid) AS uid
  FROM apis
  WHERE (domain = 'hip_api' AND has_corr_key) OR lower(domain) IN ('cuda_api', 'cupti')
  GROUP BY trace, corr_id
),
api_like AS (
  SELECT p.* FROM apis p JOIN last_api l ON l.trace = p.trace AND l.uid = p.uid
),
launches AS (
  SELECT * FROM api_like
  WHERE a_ns IS NOT NULL AND (setting('pftrace.include_nonlaunch_apis', 'false') = 'true' OR (
    domain = 'hip_api' AND has_corr_key
    AND (api_name IN ('hipModuleLaunchKernel', 'hipLaunchKernelGGL', 'hipLaunchKernel',
                      'hipExtLaunchKernelGGL', 'hipModuleLaunchCooperativeKernel',
                      'hipExtModuleLaunchKernel', 'hipMemset', 'hipMemcpyHtoDAsync',
                      'hipMemcpyDtoHAsync', 'hipMemsetD32Async')
         OR regexp_like(api_name, 'Launch.*Kernel', 'i'))))
),
pairs AS (
  SELECT l.pid, l.tid,
         CASE WHEN k.corr_id IS NULL THEN 0 ELSE COALESCE(k.device_id, g.gpu, 0) END AS dev,
         l.api_name, COALESCE(k.kname, '') AS kname,
         CAST(l.a_ns AS DOUBLE) AS a,
         CAST(COALESCE(GREATEST(0, k.b - l.api_end), 0) AS DOUBLE) AS q,
         CAST(COALESCE(k.d, 0) AS DOUBLE) AS k,
         k.corr_id IS NOT NULL AS has_kernel
  FROM launches l
  LEFT JOIN (SELECT * FROM first_kernel WHERE b IS NOT NULL AND d IS NOT NULL) k
    ON k.trace = l.trace AND k.corr_id = l.corr_id
  LEFT JOIN pftrace_agents g ON g.trace = k.trace AND g.agent = k.agent
  -- A call without a kernel is a row only with include_nonlaunch_apis.
  WHERE k.corr_id IS NOT NULL OR setting('pftrace.include_nonlaunch_apis', 'false') = 'true'
),
-- T has no value for a call without a kernel: its statistics are then 0.
rows AS (SELECT p.*, CASE WHEN has_kernel THEN a + q + k END AS t FROM pairs p)
SELECT pid AS "PID", tid AS "TID", dev AS "DevId", count(*) AS "Count", count(t) AS "QCount",
       COALESCE(avg(t), 0.0) AS "TAvg_ns", COALESCE(median(t), 0.0) AS "TMed_ns",
       COALESCE(CAST(min(t) AS BIGINT), 0) AS "TMin_ns", COALESCE(CAST(max(t) AS BIGINT), 0) AS "TMax_ns",
       COALESCE(stddev_pop(t), 0.0) AS "TStdDev_ns",
       avg(a) AS "AAvg_ns", median(a) AS "AMed_ns", CAST(min(a) AS BIGINT) AS "AMin_ns",
       CAST(max(a) AS BIGINT) AS "AMax_ns", stddev_pop(a) AS "AStdDev_ns",
       avg(q) AS "QAvg_ns", median(q) AS "QMed_ns", CAST(min(q) AS BIGINT) AS "QMin_ns",
       CAST(max(q) AS BIGINT) AS "QMax_ns", stddev_pop(q) AS "QStdDev_ns",
       avg(k) AS "KAvg_ns", median(k) AS "KMed_ns", CAST(min(k) AS BIGINT) AS "KMin_ns",
       CAST(max(k) AS BIGINT) AS "KMax_ns", stddev_pop(k) AS "KStdDev_ns",
       api_name AS "API Name", kname AS "Kernel Name"
FROM rows
GROUP BY pid, tid, dev, api_name, kname
ORDER BY "PID", "TID", "DevId", "API Name", "Kernel Name"
