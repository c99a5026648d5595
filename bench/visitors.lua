-- Visitors of the site, not a flood: each connection waits 10 ms after an
-- answer before its next request (about 100 requests a second each), so
-- that the latency measured is what a visitor waits, not a queue behind a
-- saturated CPU.
function delay()
	return 10
end
