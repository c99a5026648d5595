package caddytest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// process is a Caddy running in a process of its own: the test binary
// itself (see TestMain), with its own data directory and so its own
// instance ID.
type process struct {
	url string
	cmd *exec.Cmd
	log *processLog
}

// processLog is a process's output, read while the process writes it.
type processLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *processLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *processLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// startProcess runs Caddy with caddyfile in a new process and waits until
// url answers /api/v1/health. Requests to the health check carry
// X-Client: probe, so configurations that key their limit on that header do
// not count them.
func startProcess(t *testing.T, name, url, caddyfile string) *process {
	t.Helper()
	return startProcessProbing(t, name, url, caddyfile, nil)
}

// startProcessProbing is startProcess whose health checks, the first
// requests the process gets, also carry the headers probe (credentials,
// cookies).
func startProcessProbing(t *testing.T, name, url, caddyfile string, probe http.Header) *process {
	t.Helper()
	mustBeFree(t, name, url)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &process{url: url, log: new(processLog)}
	p.cmd = exec.Command(testBinary, "run", "--config", config, "--adapter", "caddyfile")
	p.cmd.Env = append(os.Environ(),
		runAsCaddy+"=1",
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, p.log)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/health", nil)
		for name, values := range probe {
			req.Header[name] = values
		}
		req.Header.Set("X-Client", "probe")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start: %v\n%s", name, err, p.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mustBeFree fails the test when another process holds the port of url.
// Caddy binds with SO_REUSEPORT, so a second Caddy on the port (another test
// binary running at the same time) would not be refused: the kernel would
// spread the test's connections over both. Binding without that option
// fails if anyone holds the port.
func mustBeFree(t *testing.T, name, url string) {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatalf("%s: %s has no port", name, url)
	}
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		t.Fatalf("%s: port %s is in use, by another test binary perhaps: %v", name, port, err)
	}
	l.Close()
}

// awaitLog waits until the process has logged want, at most within.
func awaitLog(t *testing.T, p *process, want string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if log := p.log.String(); strings.Contains(log, want) {
			return log
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %s after %s:\n%s", want, within, p.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the process and returns everything it logged.
func (p *process) stop() string {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	return p.log.String()
}

// get sends GET url+path as client and returns the status.
func (p *process) get(t *testing.T, path, client string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.url+path, nil)
	req.Header.Set("X-Client", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", p.url, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// processClient talks to the processes: it keeps enough connections open
// for concurrent requests and follows no redirect, so that an
// authorization response can be read.
var processClient = &http.Client{
	Transport:     &http.Transport{MaxIdleConnsPerHost: 64},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       30 * time.Second,
}

// send sends method url+path as client (its X-Client header), with headers
// given as name, value pairs, and returns the response with its whole body.
// It is safe to call from several goroutines: it returns an error rather
// than failing the test.
func (p *process) send(method, path, client string, body io.Reader, headers ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(method, p.url+path, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("X-Client", client)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := processClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s%s: %w", method, p.url, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s%s: reading the body: %w", method, p.url, path, err)
	}
	return resp, b, nil
}

func processCaddyfile(port int, storage, discovery string) string {
	discovery = withSample(discovery)
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	http_port %d
	storage file_system %s
}

http://localhost:%d {
	discovery {
		%s
	}
}
`, port, storage, port, discovery)
}

// withSample is a discovery block's lines with the sample content named,
// unless they name content of their own.
func withSample(discovery string) string {
	if strings.Contains(discovery, "content ") {
		return discovery
	}
	return "content sample\n\t\t" + discovery
}
