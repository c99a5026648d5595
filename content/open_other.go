//go:build !unix

package content

// openNonblock is 0 where FIFOs cannot block an open for reading.
const openNonblock = 0
