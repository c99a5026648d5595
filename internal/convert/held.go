package convert

import "sync/atomic"

// HeldBudget bounds the bytes of the site's answers that requests hold,
// all of them together, to convert them: the HTML waiting for a
// conversion slot or being converted, and a compressed answer with what it
// unpacks to. It is one budget for the process, whatever the number of
// sites and configurations, since memory is. A request that would hold
// more passes the site's answer on as the site sent it.
const HeldBudget = 16 << 20

// held is the bytes the requests hold now.
var held atomic.Int64

// Hold takes n bytes of HeldBudget, reporting false, having taken nothing,
// when fewer are left.
func Hold(n int) bool {
	for {
		now := held.Load()
		if now+int64(n) > HeldBudget {
			return false
		}
		if held.CompareAndSwap(now, now+int64(n)) {
			return true
		}
	}
}

// Release gives back n bytes taken by Hold.
func Release(n int) { held.Add(-int64(n)) }

// Held is the bytes the requests hold now.
func Held() int { return int(held.Load()) }
