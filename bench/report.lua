-- report.lua: wrk's `done` hook, printing one machine-readable line per run.
--
-- Only `done` is defined: wrk then keeps sending its prebuilt request and
-- never enters Lua per request or per response, so the script costs nothing
-- while measuring. Latencies come from wrk's own histogram, in microseconds.
-- status_errors counts responses with a status above 399 (wrk's definition),
-- which run.sh uses to check that the success runs never got a 429 and that
-- the 429 run got nothing else.

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "bytes=%d status_errors=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, summary.requests / seconds,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    summary.bytes, e.status, e.connect, e.read, e.write, e.timeout))
end
