package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// entry is what the cache holds for one URL: the last document fetched
// successfully, and the last failure since.
type entry struct {
	doc        *Document // nil until a fetch succeeds
	freshUntil time.Time // doc is used without fetching again until then
	err        error     // the last fetch's failure, nil after a success
	retryAfter time.Time // no fetch after a failure before then
}

func (e *entry) fresh(now time.Time) bool {
	return e.doc != nil && now.Before(e.freshUntil)
}

func (e *entry) failedRecently(now time.Time) bool {
	return e.err != nil && now.Before(e.retryAfter)
}

// staleOr returns the entry's document while it is within maxStale of its
// lifetime, and otherwise the last failure.
func (e *entry) staleOr(now time.Time, maxStale time.Duration) (*Document, error) {
	if e.doc != nil && !now.After(e.freshUntil.Add(maxStale)) {
		return e.doc, nil
	}
	return nil, e.err
}

// store records the outcome of a fetch of key. A failure keeps the earlier
// document: an outage is no evidence that it changed.
func (f *Fetcher) store(key string, doc *Document, ttl time.Duration, err error) {
	now := f.now()
	e, _ := f.entries.Get(key)
	if e == nil && err != nil && f.opts.FailureTTL == 0 {
		return // failures are not remembered, and there is nothing else to keep
	}
	if e == nil {
		e = new(entry)
		f.entries.Add(key, e, 0)
	}
	if err != nil {
		e.err, e.retryAfter = err, now.Add(f.opts.FailureTTL)
		return
	}
	e.doc, e.freshUntil = doc, now.Add(ttl)
	e.err, e.retryAfter = nil, time.Time{}
}

// lifetime is how long a response may be used, from its Cache-Control
// max-age (less its Age) or, without one, its Expires, clamped to
// [MinTTL, MaxTTL]. A response that forbids storing or reuse gets MinTTL:
// a verifier that never waits on the network can only use what it holds.
func (f *Fetcher) lifetime(h http.Header, now time.Time) time.Duration {
	ttl, ok := cacheControlTTL(h.Values("Cache-Control"))
	if ok {
		if age, err := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64); err == nil && age > 0 {
			ttl -= time.Duration(min(age, maxSeconds)) * time.Second
		}
	} else if exp := h.Get("Expires"); exp != "" {
		date := now
		if d, err := http.ParseTime(h.Get("Date")); err == nil {
			date = d
		}
		if t, err := http.ParseTime(exp); err == nil {
			ttl = t.Sub(date)
		} else {
			ttl = 0 // an invalid Expires means already expired (RFC 9111, 5.3)
		}
	} else {
		ttl = f.opts.DefaultTTL
	}
	return min(max(ttl, f.opts.MinTTL), f.opts.MaxTTL)
}

// maxSeconds caps parsed delta-seconds well below overflowing a Duration.
const maxSeconds = 1 << 31

// cacheControlTTL reads the directives that set a lifetime: no-store and
// no-cache mean zero, max-age its value. It reports false when none is
// present.
func cacheControlTTL(values []string) (time.Duration, bool) {
	ttl, found := time.Duration(0), false
	for _, v := range values {
		for d := range strings.SplitSeq(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0, true
			case "max-age":
				n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(arg), `"`), 10, 64)
				if err != nil || n < 0 {
					return 0, true // RFC 9111, 4.2.1: an invalid max-age means stale
				}
				ttl, found = time.Duration(min(n, maxSeconds))*time.Second, true
			}
		}
	}
	return ttl, found
}
