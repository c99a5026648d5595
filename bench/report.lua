-- report.lua: wrk's `done` hook, printing one machine-readable line per run.
--
-- With BENCH_BODY set (an MCP request), every request is a POST of that
-- body with the headers MCP clients send. It is set here, once, on wrk's
-- prebuilt request.
--
-- Otherwise only `done` is defined: wrk then keeps sending its prebuilt
-- request and never enters Lua per request or per response, so the script
-- costs nothing while measuring. Latencies come from wrk's own histogram, in microseconds.
-- status_errors counts responses with a status above 399 (wrk's definition),
-- which run.sh uses to check that the success runs never got a 429 and that
-- the 429 run got nothing else.

local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
end

-- With BENCH_QUERIES set too (a file of queries, one a line, that need no
-- escaping in JSON), each request is BENCH_BODY with QUERY replaced by the
-- next query, in turn. The requests are built once, in each thread's init
-- (wrk knows the host and path only then); but defining `request` makes
-- wrk call into Lua for every request, a cost the runs with one body do
-- not pay, so it is defined only then.
local queries = os.getenv("BENCH_QUERIES")
if body ~= nil and body ~= "" and queries ~= nil and queries ~= "" then
  local requests = {}
  init = function()
    for q in io.lines(queries) do
      local b = body:gsub("QUERY", function() return q end)
      requests[#requests + 1] = wrk.format(nil, nil, nil, b)
    end
    assert(#requests > 0, "BENCH_QUERIES names an empty file")
  end
  local i = 0
  request = function()
    i = i % #requests + 1
    return requests[i]
  end
end

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
