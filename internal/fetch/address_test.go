package fetch

import (
	"errors"
	"net/netip"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr        string
		public      bool // allowed without AllowPrivate
		withPrivate bool // allowed with AllowPrivate
	}{
		{"93.184.215.14", true, true},
		{"2606:4700::6810:84e5", true, true},
		{"1.1.1.1", true, true},
		{"127.0.0.1", false, true},
		{"127.255.0.9", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true}, // IPv4-mapped loopback
		{"10.1.2.3", false, true},
		{"172.16.0.1", false, true},
		{"172.31.255.255", false, true},
		{"172.32.0.1", true, true},
		{"192.168.1.1", false, true},
		{"100.64.0.1", false, true}, // CGNAT
		{"100.127.255.254", false, true},
		{"fd00:ec2::254", false, true}, // ULA
		{"fc00::1", false, true},
		{"169.254.169.254", false, false}, // cloud metadata: never
		{"fe80::1", false, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"224.0.0.1", false, false},
		{"ff02::1", false, false},
		{"255.255.255.255", false, false},
		{"240.0.0.1", false, false},
		{"192.0.2.1", false, false},
		{"198.18.0.1", false, false},
		{"2001:db8::1", false, false},
		{"2002:7f00:1::1", false, false},      // 6to4 of 127.0.0.1
		{"2001:0:4136:e378::1", false, false}, // Teredo
		{"64:ff9b::7f00:1", false, true},      // NAT64 of 127.0.0.1
		{"64:ff9b::5db8:d70e", true, true},    // NAT64 of a public address
		{"::7f00:1", false, false},            // IPv4-compatible, deprecated
		{"fec0::1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			if err := checkAddr(a, false); (err == nil) != tt.public {
				t.Errorf("checkAddr(%s, false) = %v, want allowed %v", a, err, tt.public)
			} else if err != nil && !errors.Is(err, ErrForbiddenAddress) {
				t.Errorf("error %v is not ErrForbiddenAddress", err)
			}
			if err := checkAddr(a, true); (err == nil) != tt.withPrivate {
				t.Errorf("checkAddr(%s, true) = %v, want allowed %v", a, err, tt.withPrivate)
			}
		})
	}
}

func TestDialControlChecksTheDialledAddress(t *testing.T) {
	control := dialControl(func(a netip.Addr) error { return checkAddr(a, false) })
	tests := []struct {
		network, address string
		ok               bool
	}{
		{"tcp4", "93.184.215.14:443", true},
		{"tcp6", "[2606:4700::6810:84e5]:443", true},
		{"tcp4", "127.0.0.1:443", false},
		{"tcp6", "[::1]:443", false},
		{"tcp6", "[fe80::1%eth0]:443", false},
		{"udp", "93.184.215.14:443", false},
		{"tcp", "not-an-address:443", false},
	}
	for _, tt := range tests {
		if err := control(tt.network, tt.address, nil); (err == nil) != tt.ok {
			t.Errorf("control(%s, %s) = %v, want allowed %v", tt.network, tt.address, err, tt.ok)
		}
	}
}
