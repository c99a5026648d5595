//go:build !race

package caddytest

// raceDetector tells tests whose figures the race detector distorts (memory
// five to ten times, time many times) that it is on.
const raceDetector = false
