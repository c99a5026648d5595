package pages

import "testing"

func TestAcceptsGzip(t *testing.T) {
	for value, want := range map[string]bool{
		"gzip": true, "gzip, deflate, br, zstd": true, "GZIP;q=0.5": true, "x-gzip": true, "*": true, "br, *;q=0.1": true,
		"": false, "identity": false, "br": false, "gzip;q=0": false, "gzip; q=0.000": false, "*, gzip;q=0": false, "*;q=0": false,
	} {
		if got := acceptsGzip([]string{value}); got != want {
			t.Errorf("%q: %v, want %v", value, got, want)
		}
	}
}
