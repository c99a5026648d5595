// Package origin parses and compares the URLs, origins and hosts the
// module meets: its base URL, a request's Host, a connection's address.
// Every one of them goes through this package, which imports nothing of
// the module.
//
// Imports from the module: none.
package origin

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// NormalizeBaseURL checks that raw is an absolute http(s) URL with a host
// and no path, query or fragment, and returns it without a trailing slash.
func NormalizeBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q: must be an absolute http or https URL", raw)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("base URL %q: must be scheme://host[:port] only, without path, query or credentials", raw)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// MaxHostLen is the longest Host a base URL is taken from: a DNS name has
// at most 253 characters, and a port adds at most 6. Every published
// address repeats the Host, so a longer one would only make the documents
// larger.
const MaxHostLen = 253 + len(":65535")

// RequestBase is the base URL a request names: its scheme and Host. ok is
// false when the Host is not a valid host[:port].
func RequestBase(r *http.Request) (base string, ok bool) {
	if len(r.Host) > MaxHostLen {
		return "", false
	}
	host := strings.ToLower(r.Host)
	u, err := url.Parse("http://" + host)
	if err != nil || u.Host != host || u.Hostname() == "" || u.User != nil || u.Path != "" {
		return "", false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host, true
}

// ConnectionBase is the base URL of the address r's connection reached:
// its scheme and the local IP address and port, such as
// http://127.0.0.1:8080. Without a local address, http://localhost.
func ConnectionBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return scheme + "://localhost"
	}
	reached, err := netip.ParseAddrPort(local.String())
	if err != nil {
		return scheme + "://localhost"
	}
	return scheme + "://" + netip.AddrPortFrom(reached.Addr().Unmap().WithZone(""), reached.Port()).String()
}

// HostOf is the host[:port] of a normalized base URL.
func HostOf(base string) string {
	_, host, _ := strings.Cut(base, "://")
	return host
}

// HostOnly is the host of host[:port], without brackets.
func HostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// IsLoopback reports whether host[:port] names the loopback interface.
func IsLoopback(hostport string) bool {
	h := HostOnly(hostport)
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Of is the serialised origin of a URL: lowercase scheme://host, with
// a port only when it is not the scheme's default.
func Of(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return scheme + "://" + host
}
