package handlers

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// rendition is every document rendered for one base URL.
type rendition struct {
	links
	baseHeaders
	docs map[string]*document
	// tokens issues tokens and identity assertions naming this base URL.
	tokens *token.Issuer
	// mcp is the stateless MCP handler, built once per rendition.
	mcp http.Handler
	// ready is closed when the rendition is complete.
	ready chan struct{}
}

// renditionFor returns the documents rendered for base, rendering and
// caching them on first use. Concurrent first requests for one base share
// one rendering.
func (s *Service) renditionFor(base string) *rendition {
	if s.fixed != nil {
		return s.fixed
	}
	s.mu.Lock()
	if rd := s.byBase[base]; rd != nil {
		s.mu.Unlock()
		<-rd.ready
		return rd
	}
	if len(s.byBase) >= maxRenditions {
		for k := range s.byBase { // evict an arbitrary entry
			delete(s.byBase, k)
			break
		}
	}
	rd := &rendition{ready: make(chan struct{})}
	s.byBase[base] = rd
	s.mu.Unlock()
	done := false
	defer func() {
		if !done { // never leave a half-rendered rendition behind
			s.mu.Lock()
			delete(s.byBase, base)
			s.mu.Unlock()
		}
		close(rd.ready)
	}()
	if err := s.render(base, rd); err != nil {
		panic(err) // content was validated at load, so rendering cannot fail
	}
	done = true
	return rd
}

// headersFor returns the per-base header values: a rendition's when one is
// at hand, else computed from base alone, so that a problem never costs a
// rendering.
func (s *Service) headersFor(base string) *baseHeaders {
	if s.fixed != nil {
		return &s.fixed.baseHeaders
	}
	s.mu.Lock()
	rd := s.byBase[base]
	s.mu.Unlock()
	if rd != nil {
		select {
		case <-rd.ready:
			return &rd.baseHeaders
		default:
		}
	}
	bh := s.newBaseHeaders(base)
	return &bh
}

// baseHeaders are the header values that depend on the base URL only.
type baseHeaders struct {
	// origin is the base URL's origin, the one browser origin /mcp accepts.
	origin string
	// link is the Link header every response carries (RFC 9727 and
	// RFC 8631 relations); apiLink adds the deprecation relations for the
	// versioned responses when v1 is deprecated.
	link, apiLink string
	// deprecation and sunset are the RFC 9745 and RFC 8594 fields, if set.
	deprecation, sunset string
}

func (s *Service) newBaseHeaders(base string) baseHeaders {
	developers := base + pathDevelopers
	bh := baseHeaders{
		origin: originOf(base),
		link: fmt.Sprintf(`<%s>; rel="api-catalog", <%s>; rel="service-desc"; type="%s", <%s>; rel="service-doc"; type="text/html"`,
			base+pathCatalog, base+pathOpenAPI, mediaJSON, developers),
	}
	bh.apiLink = bh.link
	if d := s.cfg.Deprecation; !d.IsZero() {
		bh.deprecation = "@" + strconv.FormatInt(d.Unix(), 10)
		bh.apiLink += fmt.Sprintf(`, <%s#versioning>; rel="deprecation"; type="text/html"`, developers)
		if s.cfg.Successor != "" {
			bh.apiLink += fmt.Sprintf(`, <%s>; rel="successor-version"`, s.cfg.Successor)
		}
	}
	if t := s.cfg.Sunset; !t.IsZero() {
		bh.sunset = t.UTC().Format(http.TimeFormat)
	}
	return bh
}

// render fills rd with every document of the route table rendered for base.
func (s *Service) render(base string, rd *rendition) error {
	l := links{base: base, cfg: &s.cfg, routes: s.routes, onPanic: func(v any) {
		if s.cfg.OnPanic != nil {
			s.cfg.OnPanic(nil, v)
		}
	}}
	rd.links = l
	rd.baseHeaders = s.newBaseHeaders(base)
	rd.docs = make(map[string]*document)
	var err error
	rd.tokens, err = token.NewIssuer(token.Config{Secret: s.cfg.TokenSecret, TTL: s.cfg.TokenTTL, Issuer: base, Now: s.cfg.Now})
	if err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	server := l.mcpServer()
	rd.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// hostAllowed does this check, knowing the configured base URL.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        maxBodySize,
	})
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.render == nil {
			continue
		}
		if !rt.hasSlug() {
			body, err := rt.render(l, "")
			if err != nil {
				return fmt.Errorf("rendering %s: %w", rt.Path, err)
			}
			rd.docs[rt.Path] = newDocument(rt, body)
			continue
		}
		for _, in := range s.cfg.Site.Insights {
			body, err := rt.render(l, in.Slug)
			if err != nil {
				return fmt.Errorf("rendering %s: %w", insightPath(in.Slug), err)
			}
			rd.docs[insightPath(in.Slug)] = newDocument(rt, body)
		}
	}
	return nil
}
