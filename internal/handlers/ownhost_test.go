package handlers

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// reaching returns r as if its connection had reached local.
func reaching(r *http.Request, local net.Addr) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
}

func TestVouchedHost(t *testing.T) {
	v4 := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 443}
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	v6 := &net.TCPAddr{IP: net.ParseIP("2001:db8::10"), Port: 8443}
	quic := &net.UDPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 443}
	tests := []struct {
		name  string
		host  string
		sni   string // a TLS connection when set
		local net.Addr
		want  bool
	}{
		{"TLS, the handshake's name", "example.com", "example.com", v4, true},
		{"TLS, the name in another case", "Example.COM", "example.com", v4, true},
		{"TLS, the name at the reached port", "example.com:443", "example.com", v4, true},
		{"TLS, the name at another port", "example.com:8443", "example.com", v4, false},
		{"TLS, another name than the handshake's", "evil.example", "example.com", v4, false},
		{"HTTP/3, the handshake's name", "example.com", "example.com", quic, true},
		{"plain, localhost at the reached port", "localhost:8080", "", loop, true},
		{"plain, localhost without a port", "localhost", "", loop, true},
		{"plain, localhost at another port", "localhost:9", "", loop, false},
		{"plain, the reached address", "127.0.0.1:8080", "", loop, true},
		{"plain, another loopback address", "127.0.0.2:8080", "", loop, false},
		{"plain, the reached IPv6 address", "[2001:db8::10]:8443", "", v6, true},
		{"plain, a name", "example.com", "", v4, false},
		{"plain, a made-up name", "h1.example:443", "", v4, false},
		{"no local address", "localhost", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/llms.txt", nil)
			r.Host = tt.host
			if tt.sni != "" {
				r.TLS = &tls.ConnectionState{ServerName: tt.sni}
			} else {
				r.TLS = nil
			}
			if tt.local != nil {
				r = reaching(r, tt.local)
			}
			if got := vouchedHost(r); got != tt.want {
				t.Errorf("vouchedHost(Host %q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

// A document larger than the cache's whole budget is kept for the site's
// own Host, so a repeat request renders and compresses nothing; for any
// other Host the budget holds, and it is not kept.
func TestOwnHostKeepsDocumentsOverTheBudget(t *testing.T) {
	s := hostedService(t, 300)
	s.hosted = newRenditionCache(64 << 10) // well under llms-full.txt
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	fetch := func(host string) (*document, *httptest.ResponseRecorder) {
		r := httptest.NewRequest(http.MethodGet, view.PathLLMsFull, nil)
		r.Host = host
		r.Header.Set("Accept-Encoding", "gzip")
		r = reaching(r, local)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Header().Get(respond.HeaderContentEnc) != "gzip" {
			t.Fatalf("%s: %d, Content-Encoding %q", host, w.Code, w.Header().Get(respond.HeaderContentEnc))
		}
		rd := s.renditionOf(r, "http://"+host)
		v, ok := rd.lazy.Load(view.PathLLMsFull)
		if !ok {
			return nil, w
		}
		return v.(*lazyDocument).doc, w
	}
	first, _ := fetch("localhost:8080")
	if first == nil || len(first.body) <= s.hosted.budget {
		t.Fatalf("llms-full.txt of the own Host is not kept, or not over the budget")
	}
	again, w := fetch("localhost:8080")
	if again != first {
		t.Error("the own Host's llms-full.txt was rendered again")
	}
	if cc := w.Header().Get(respond.HeaderCacheControl); !strings.HasPrefix(cc, "private, ") {
		t.Errorf("Cache-Control %q for a document naming the request's Host, want private", cc)
	}
	// Another Host's copy is dropped at once, so it is not compressed.
	for _, host := range []string{"other.example", "other.example", "third.example"} {
		r := httptest.NewRequest(http.MethodGet, view.PathLLMsFull, nil)
		r.Host = host
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, reaching(r, local))
		if w.Code != http.StatusOK || w.Header().Get(respond.HeaderContentEnc) != "" {
			t.Errorf("%s: %d, Content-Encoding %q, want the identity form", host, w.Code, w.Header().Get(respond.HeaderContentEnc))
		}
		checkAccounting(t, s.hosted)
	}
	if n := s.hosted.own.Len(); n != 1 {
		t.Errorf("%d own Hosts, want 1", n)
	}
}

// However many Hosts a connection vouches for, at most maxOwnHosts are
// kept whole.
func TestOwnHostsAreBounded(t *testing.T) {
	s := hostedService(t, 20)
	for port := 8000; port < 8000+3*maxOwnHosts; port++ {
		r := httptest.NewRequest(http.MethodGet, view.PathLLMs, nil)
		r.Host = "localhost:" + strconv.Itoa(port)
		r = reaching(r, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("port %d: %d", port, w.Code)
		}
	}
	if n := s.hosted.own.Len(); n != maxOwnHosts {
		t.Errorf("%d own Hosts kept, want %d", n, maxOwnHosts)
	}
}

func TestConnectionBase(t *testing.T) {
	for _, tt := range []struct {
		local net.Addr
		tls   bool
		want  string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, false, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 80}, false, "http://127.0.0.1:80"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8443}, true, "https://[::1]:8443"},
		{nil, false, "http://localhost"},
	} {
		r := httptest.NewRequest(http.MethodPost, view.PathMCP, nil)
		r.Host = "rebound.example"
		if !tt.tls {
			r.TLS = nil
		} else {
			r.TLS = &tls.ConnectionState{ServerName: "rebound.example"}
		}
		if tt.local != nil {
			r = reaching(r, tt.local)
		}
		if got := origin.ConnectionBase(r); got != tt.want {
			t.Errorf("origin.ConnectionBase(%v) = %q, want %q", tt.local, got, tt.want)
		}
	}
}
