// Package caddytest holds the integration tests: each starts a real Caddy in
// process (the caddytest harness) with a Caddyfile that uses the discovery
// module, and talks to it over HTTP.
package caddytest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/santhosh-tekuri/jsonschema/v6"

	_ "github.com/caddy-discovery/caddy-discovery"
	_ "github.com/mholt/caddy-ratelimit"
)

// base is the address the test server listens on.
const base = "http://localhost:9080"

// globalOptions run every test server: HTTP only, admin where caddytest
// expects it.
const globalOptions = `{
	admin localhost:2999
	http_port 9080
	https_port 9443
	auto_https off
	grace_period 1ns
	skip_install_trust
}
`

// runAsCaddy makes the test binary act as a Caddy executable, so tests can
// start separate Caddy processes (see startProcess) without another build.
const runAsCaddy = "DISCOVERY_TEST_RUN_CADDY"

// testBinary is this test executable (caddytest overwrites os.Args).
var testBinary string

func TestMain(m *testing.M) {
	if os.Getenv(runAsCaddy) == "1" {
		caddycmd.Main()
		return
	}
	var err error
	if testBinary, err = os.Executable(); err != nil {
		panic(err)
	}
	// The harness skips every test when its TLS test certificates are
	// missing; these tests use plain HTTP and must never be skipped.
	caddytest.Default.Certificates = nil
	os.Exit(m.Run())
}

// server is a running Caddy and a client for it.
type server struct {
	*caddytest.Tester
	t testing.TB
}

// startCaddy loads the site block siteBlock (with the global options) into
// the in-process Caddy.
func startCaddy(t testing.TB, siteBlock string) *server {
	t.Helper()
	return startCaddyWith(t, globalOptions, siteBlock)
}

// startCaddyWith is startCaddy with other global options, such as a
// variant of globalOptions.
func startCaddyWith(t testing.TB, globals, siteBlock string) *server {
	t.Helper()
	// caddytest skips a test whose Caddy does not come up; here that is a
	// failure.
	t.Cleanup(func() {
		if t.Skipped() {
			t.Error("the in-process Caddy did not start, so the test could not run")
		}
	})
	tester := caddytest.NewTester(t)
	tester.InitServer(globals+siteBlock, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	return &server{Tester: tester, t: t}
}

// sampleSite is the site block most tests use: the module with its sample
// content in front of a stand-in for the rest of the site. Its quota is
// raised so that the limiter runs (and sends its headers) without refusing
// the many requests of one test.
const sampleSite = `
http://localhost:9080 {
	discovery {
		content sample
		rate_limit 1500 60s
	}
	respond "next handler" 200
}
`

// response is a finished exchange.
type response struct {
	*http.Response
	body []byte
}

func (r *response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %v\n%s", r.Request.Method, r.Request.URL, err, r.body)
	}
	return m
}

// do sends a request and reads the whole response.
func (s *server) do(method, target string, body io.Reader, headers ...string) *response {
	s.t.Helper()
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		s.t.Fatal(err)
	}
	// Ask for the identity form unless a test asks otherwise: Go's client
	// would otherwise ask for gzip on GET (not on HEAD) and unpack it
	// silently, hiding the headers the server sent.
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return s.send(req)
}

func (s *server) send(req *http.Request) *response {
	s.t.Helper()
	resp, err := s.Client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return &response{Response: resp, body: body}
}

func (s *server) get(path string, headers ...string) *response {
	s.t.Helper()
	return s.do(http.MethodGet, base+path, nil, headers...)
}

// spec validates responses against the /openapi.json the server itself
// serves, with a real OpenAPI 3.1 validator, so the description and the
// behaviour cannot drift apart.
type spec struct {
	validator validator.Validator
	problem   *jsonschema.Schema
}

var (
	specMu    sync.Mutex
	specCache = map[string]*spec{}
)

// spec loads the server's own OpenAPI description (once per distinct body).
func (s *server) spec() *spec {
	s.t.Helper()
	r := s.get("/openapi.json", "X-Client", "openapi-validator")
	if r.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /openapi.json: status %d", r.StatusCode)
	}
	return loadSpec(s.t, r.body)
}

// loadSpec builds the validator of an OpenAPI description a server
// served, once per distinct body.
func loadSpec(t testing.TB, body []byte) *spec {
	t.Helper()
	specMu.Lock()
	defer specMu.Unlock()
	if sp := specCache[string(body)]; sp != nil {
		return sp
	}
	doc, err := libopenapi.NewDocument(body)
	if err != nil {
		t.Fatalf("parsing /openapi.json: %v", err)
	}
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatalf("building the validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("/openapi.json is not a valid OpenAPI 3.1 document: %s", e.Error())
		}
		t.FailNow()
	}
	sp := &spec{validator: v, problem: compileComponent(t, body, "Problem")}
	specCache[string(body)] = sp
	return sp
}

// compileComponent compiles the schema component name of the OpenAPI
// description doc, asserting formats.
func compileComponent(t testing.TB, doc []byte, name string) *jsonschema.Schema {
	t.Helper()
	var raw any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://test.invalid/openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("https://test.invalid/openapi.json#/components/schemas/" + name)
	if err != nil {
		t.Fatalf("compiling the %s schema: %v", name, err)
	}
	return schema
}

// schemaAccepts reports whether the served description's schema component
// name accepts the JSON body, as a client that validates requests before
// sending them would decide.
func (s *server) schemaAccepts(name, body string) bool {
	s.t.Helper()
	r := s.get("/openapi.json", "X-Client", "openapi-validator")
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		return false // not JSON: no schema accepts it
	}
	return compileComponent(s.t, r.body, name).Validate(v) == nil
}

// validate checks a response against the operation the description gives
// for its request: status, headers and body.
func (s *server) validate(r *response) {
	s.t.Helper()
	resp := *r.Response
	resp.Body = io.NopCloser(bytes.NewReader(r.body))
	req := r.Request
	if req.URL.Opaque != "" { // a path sent exactly as written
		req = req.Clone(req.Context())
		u, err := url.Parse(base + req.URL.Opaque)
		if err != nil {
			s.t.Fatal(err)
		}
		req.URL = u
	}
	if ok, errs := s.spec().validator.ValidateHttpResponse(req, &resp); !ok {
		for _, e := range errs {
			s.t.Errorf("%s %s -> %d does not match /openapi.json: %s (%s)", r.Request.Method, r.Request.URL.Path, r.StatusCode, e.Message, e.Reason)
		}
	}
}

// validateProblem checks that r is an RFC 9457 problem with the given status
// and code, valid against the served Problem schema, for requests whose path
// the description cannot name (unknown paths).
func (s *server) validateProblem(r *response, status int, code string) map[string]any {
	s.t.Helper()
	if r.StatusCode != status {
		s.t.Errorf("%s %s: status %d, want %d\n%s", r.Request.Method, r.Request.URL, r.StatusCode, status, r.body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		s.t.Errorf("%s %s: Content-Type %q, want application/problem+json", r.Request.Method, r.Request.URL, ct)
	}
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		s.t.Fatalf("%s %s: problem is not JSON: %v", r.Request.Method, r.Request.URL, err)
	}
	if err := s.spec().problem.Validate(v); err != nil {
		s.t.Errorf("%s %s: problem does not match the Problem schema: %v", r.Request.Method, r.Request.URL, err)
	}
	p := r.json(s.t)
	if p["code"] != code {
		s.t.Errorf("%s %s: code %v, want %s", r.Request.Method, r.Request.URL, p["code"], code)
	}
	if int(p["status"].(float64)) != status {
		s.t.Errorf("%s %s: status member %v, want %d", r.Request.Method, r.Request.URL, p["status"], status)
	}
	wantType := base + "/developers#error-" + strings.ReplaceAll(code, "_", "-")
	if p["type"] != wantType {
		s.t.Errorf("%s %s: type %v, want %s", r.Request.Method, r.Request.URL, p["type"], wantType)
	}
	return p
}
