#!/usr/bin/env bash
# Load benchmark of the discovery module against Caddy's own static handlers.
#
# The same documents, byte for byte and with the same Content-Type, are served
# three ways and loaded with wrk, alternating between the variants:
#
#   discovery    the module, rate limiting on with a quota the run never uses
#                up (rate_limit 1500 1s per wrk connection), base_url set so every document
#                is rendered at provision;
#   respond      Caddy's `respond` with the body embedded in the Caddyfile;
#   file_server  Caddy's `file_server` reading the body from a temp root;
#
# plus the 429 path: the module with `rate_limit 1 60s` after one request has
# used the quota, compared with the discovery success path of /api/v1/profile;
# plus MCP: each read request POSTed to /mcp, measured right after the GET of
# the REST document that holds the same data (on the same discovery
# instance), and compared with it; the search with a different query on
# every request (report.lua's BENCH_QUERIES);
# plus a page of the site that the content does not name, about 100 KB of
# HTML under file_server's root: asked for as Markdown on the discovery
# instance (which has that root and file_server behind the module), it is
# converted on the first request and then answered from the Markdown kept,
# the module asking file_server on the page's ETag each time; compared with
# the same page's HTML from the file_server instance.
#
# It prints a table (medians over the rounds) and PASS/MISS against the
# targets, and exits 0 either way: these are measurements, not tests. It exits
# non-zero only when something failed to run (wrk missing and not installable,
# a server that did not start, a response that was not the expected 200/429,
# variants that did not serve identical bytes).
#
# Usage: bench/run.sh   (after `make build`; `make bench` does both)
#
# Settings (environment):
#   CADDY                  the binary to test           (default: bin/caddy)
#   BENCH_ROUNDS           measured rounds              (default: 3)
#   BENCH_DURATION         seconds per measurement      (default: 5)
#   BENCH_WARMUP           seconds of warm-up per pair  (default: 2)
#   BENCH_CONNECTIONS      wrk connections              (default: 64)
#   BENCH_THREADS          wrk threads                  (default: 2)
#   BENCH_PROFILE_DIR      if set: enable the admin endpoint on the discovery
#                          instances only (localhost:8199, and localhost:8198
#                          for the 429 instance) and save a CPU profile of each
#                          discovery and MCP measurement of round 1 there;
#                          inspect with `go tool pprof -top bin/caddy <file>`
#   BENCH_KEEP             if 1: keep the temp dir (configs, bodies, logs, raw
#                          wrk output) and print where it is
#   BENCH_ONLY             if "convert": measure only the site page as
#                          Markdown against its HTML; if "metrics": only the
#                          REST document with metrics on against off
#   BENCH_METRICS_PAIRS    pairs of runs, metrics on and off (default: 10)
#   BENCH_METRICS_DURATION seconds per run of a pair      (default: 3)
#
# Ports: 8101-8104 for the servers, 8198-8199 for the optional admin endpoints.
set -euo pipefail
# Say where an unexpected failure happened instead of exiting silently.
set -E
trap 'echo "bench: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR="$ROOT/bench"
CADDY=${CADDY:-$ROOT/bin/caddy}
ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-5}
WARMUP=${BENCH_WARMUP:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-2}
PROFILE_DIR=${BENCH_PROFILE_DIR:-}
ONLY=${BENCH_ONLY:-}
METRICS_PAIRS=${BENCH_METRICS_PAIRS:-10}
METRICS_DURATION=${BENCH_METRICS_DURATION:-3}
case $ONLY in "" | convert | metrics) ;; *) echo "bench: BENCH_ONLY must be empty, convert or metrics, not '$ONLY'" >&2 && exit 1 ;; esac

PORT_DISCOVERY=8101
PORT_RESPOND=8102
PORT_FILES=8103
PORT_LIMITED=8104
PORT_NO_METRICS=8105
PORT_ADMIN_DISCOVERY=8199
PORT_ADMIN_LIMITED=8198

# The documents measured. The insight listing is also the parent path of the
# single insight, which matters for file_server (see write_file_root).
SLUG=the-case-for-a-boring-data-platform
DOCS=(
	/api/v1/profile
	/api/v1/insights
	/api/v1/insights/$SLUG
	/llms-full.txt
	/insights/$SLUG.md
	/index.md
	/sitemap.xml
)
VARIANTS=(discovery respond file_server)
# The 429 path is measured on this document, against discovery's success path.
LIMITED_DOC=/api/v1/profile

# The MCP requests measured, each as "label|REST document|JSON-RPC params":
# the REST document holds the same data (tools/list: the OpenAPI description
# of the same operations). RESOURCE_URI is read from resources/list at start.
MCP_CALLS=(
	"tools/call get_profile|/api/v1/profile|tools/call|{\"name\":\"get_profile\",\"arguments\":{}}"
	"tools/call list_insights|/api/v1/insights|tools/call|{\"name\":\"list_insights\",\"arguments\":{}}"
	"tools/call get_insight|/api/v1/insights/$SLUG|tools/call|{\"name\":\"get_insight\",\"arguments\":{\"slug\":\"$SLUG\"}}"
	"resources/read (insight)|/api/v1/insights/$SLUG|resources/read|{\"uri\":\"RESOURCE_URI\"}"
	"tools/list|/openapi.json|tools/list|{}"
	"tools/call get_health (SDK)|/api/v1/health|tools/call|{\"name\":\"get_health\",\"arguments\":{}}"
	"tools/call search_insights|/api/v1/insights|tools/call|{\"name\":\"search_insights\",\"arguments\":{\"query\":\"QUERY\"}}"
)
# A body with QUERY is sent with a different query on every request, in
# turn from SEARCH_QUERIES (written at start: pairs of SEARCH_WORDS), so
# that no answer can be one kept from before.
SEARCH_WORDS=(data contracts warehouse cost platform privacy team migration engineer hiring
	public sector sharing governance model features messy boring lessons spend schema
	pipeline quality owner review)
RESOURCE_URI=""
# The MCP/REST targets, by label; the others are reported without one.
TARGET_MCP=0.5
MCP_TARGETED=("tools/call get_profile" "resources/read (insight)" "tools/call search_insights")

# The site page converted to Markdown, and the header that asks for it.
SITE_PAGE=/docs/guide.html
MARKDOWN_ACCEPT='Accept: text/markdown'

# The REST document measured with metrics on (the default) and off.
METRICS_DOC=/api/v1/profile

# Targets.
TARGET_CONVERTED=0.8
TARGET_METRICS=0.97
TARGET_VS_RESPOND=1.0
TARGET_VS_FILES=1.5
TARGET_LIMITED=1.0
TARGET_P99_US=5000

# Every wrk and curl request asks for the identity encoding, so compression
# never enters the comparison (no variant has `encode`, this makes sure).
ACCEPT_ENCODING='Accept-Encoding: identity'

TMP=""
CLK_TCK=100
LOAD_START=""
PIDS=()
declare -A PID_OF=()

die() {
	echo "bench: $*" >&2
	exit 1
}

log() {
	echo "bench: $*" >&2
}

# cleanup stops every Caddy this script started (by pid, nothing else) and
# removes the temp dir. It runs on every exit, including failures.
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		if [ "${BENCH_KEEP:-0}" = 1 ]; then
			log "kept $TMP"
		else
			rm -rf "$TMP"
		fi
	fi
}

# need makes sure a command exists, installing its Debian package when it
# does not: CI machines start fresh, and wrk is rarely preinstalled.
APT_UPDATED=""
need() {
	local cmd=$1 pkg=$2 sudo=""
	command -v "$cmd" >/dev/null 2>&1 && return
	command -v apt-get >/dev/null 2>&1 || die "$cmd is missing and there is no apt-get to install $pkg"
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log "$cmd is missing; installing $pkg with apt-get"
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >&2; then
		if [ -z "$APT_UPDATED" ]; then
			$sudo apt-get update -qq >&2 || die "apt-get update failed"
			APT_UPDATED=1
		fi
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >&2 || die "could not install $pkg"
	fi
	command -v "$cmd" >/dev/null 2>&1 || die "$pkg is installed but $cmd is still not on PATH"
}

# port_free fails when something already listens on 127.0.0.1:port, so that a
# stray server can never answer in place of the one under test.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# global_options is the same global block for every instance, so that the
# variants differ only in their site block. admin is off unless profiling,
# and then only on the discovery instances.
global_options() {
	local admin=$1
	cat <<-EOF
		{
			admin $admin
			auto_https off
			persist_config off
			default_bind 127.0.0.1
		}
	EOF
}

admin_for() { # admin_for <port>: the admin setting of a discovery instance
	if [ -n "$PROFILE_DIR" ]; then echo "localhost:$1"; else echo off; fi
}

# start_caddy runs one Caddy in the background with its own data and config
# dirs under the temp dir (the module keeps its token secret in storage), and
# waits until it answers on its port. Its log goes to a file, as a production
# Caddy's would: caddy-ratelimit logs every refusal at INFO, which is part of
# the cost of the 429 path (a default run writes about 100 MB there).
start_caddy() {
	local name=$1 port=$2 config=$3 pid i
	port_free "$port" || die "port $port is already in use"
	mkdir -p "$TMP/$name/data" "$TMP/$name/config"
	"$CADDY" validate --adapter caddyfile --config "$config" >"$TMP/$name/validate.log" 2>&1 ||
		die "the $name config does not load:"$'\n'"$(tail -n 20 "$TMP/$name/validate.log")"
	XDG_DATA_HOME="$TMP/$name/data" XDG_CONFIG_HOME="$TMP/$name/config" \
		"$CADDY" run --adapter caddyfile --config "$config" >"$TMP/$name/caddy.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	PID_OF[$name]=$pid
	for i in $(seq 100); do
		if ! kill -0 "$pid" 2>/dev/null; then
			die "$name exited at start:"$'\n'"$(tail -n 20 "$TMP/$name/caddy.log")"
		fi
		# Any HTTP answer means the listener is up.
		if curl -s -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then
			return
		fi
		sleep 0.1
	done
	die "$name did not answer on port $port within 10 s:"$'\n'"$(tail -n 20 "$TMP/$name/caddy.log")"
}

port_of() {
	case $1 in
	discovery | mcp | mcp-rest | converted) echo "$PORT_DISCOVERY" ;;
	respond) echo "$PORT_RESPOND" ;;
	file_server | page_html) echo "$PORT_FILES" ;;
	limited) echo "$PORT_LIMITED" ;;
	metrics_off) echo "$PORT_NO_METRICS" ;;
	esac
}

# slug_of turns a path into a file-name-safe label.
slug_of() {
	local s=${1#/}
	s=${s//\//_}
	s=${s// /_}
	s=${s//[()]/}
	echo "$s"
}

# fetch <variant> <path> <out prefix>: GET the document, leaving the body in
# <prefix>.body and the response head in <prefix>.head; prints the status and
# the Content-Type.
fetch() {
	local port
	port=$(port_of "$1")
	curl -sS -H "$ACCEPT_ENCODING" -o "$3.body" -D "$3.head" \
		-w '%{http_code} %{content_type}\n' "http://127.0.0.1:$port$2"
}

# start_discovery starts (a) and the 429 instance. base_url makes the module
# render every document at provision, as in production. The file_server
# behind the module serves the site page converted to Markdown; the module
# answers every measured document itself, so it is never reached for them.
start_discovery() {
	{
		global_options "$(admin_for "$PORT_ADMIN_DISCOVERY")"
		cat <<-EOF
			http://:$PORT_DISCOVERY {
				discovery {
					content sample
					base_url http://localhost:$PORT_DISCOVERY
					# The quota is capped (caddy-ratelimit reserves 24 bytes per
					# event for each client), so each wrk connection is a client
					# of its own with the largest quota over the shortest window:
					# two cores serve each of 64 connections under 1 000 requests a
					# second. Every run is checked for refusals anyway.
					rate_limit 1500 1s
					rate_limit_key {http.request.remote}
				}
				# The site behind the module: the page converted to Markdown
				# alone, not file_server's copies of the documents, which
				# would be the site's own /sitemap.xml.
				root * $TMP/site
				file_server
			}
		EOF
	} >"$TMP/discovery.Caddyfile"
	start_caddy discovery "$PORT_DISCOVERY" "$TMP/discovery.Caddyfile"
	[ "$ONLY" = convert ] && return

	# The same instance without counting: what the metrics cost.
	sed -e "s/:$PORT_DISCOVERY/:$PORT_NO_METRICS/g" -e 's/^\([[:space:]]*\)rate_limit 1500 1s/\1rate_limit 1500 1s\n\1metrics off/' \
		"$TMP/discovery.Caddyfile" >"$TMP/metrics_off.Caddyfile"
	grep -q 'metrics off' "$TMP/metrics_off.Caddyfile" || die "could not write the metrics-off config"
	start_caddy metrics_off "$PORT_NO_METRICS" "$TMP/metrics_off.Caddyfile"
	[ "$ONLY" = metrics ] && return

	{
		global_options "$(admin_for "$PORT_ADMIN_LIMITED")"
		cat <<-EOF
			http://:$PORT_LIMITED {
				discovery {
					content sample
					base_url http://localhost:$PORT_LIMITED
					rate_limit 1 60s
				}
			}
		EOF
	} >"$TMP/limited.Caddyfile"
	start_caddy limited "$PORT_LIMITED" "$TMP/limited.Caddyfile"
}

# capture_documents fetches every document from discovery: its bytes and
# Content-Type are what the other variants serve.
capture_documents() {
	local doc out status ctype
	mkdir -p "$TMP/docs"
	for doc in "${DOCS[@]}"; do
		out="$TMP/docs/$(slug_of "$doc")"
		read -r status ctype < <(fetch discovery "$doc" "$out")
		[ "$status" = 200 ] || die "discovery answered $doc with $status, want 200"
		[ -s "$out.body" ] || die "discovery answered $doc with an empty body"
		echo "$ctype" >"$out.ctype"
	done
}

# header_lines sets each document's Content-Type with one `header` handler per
# distinct type (a path matcher listing its documents), identical for respond
# and file_server. Setting it explicitly also keeps respond from running
# json.Valid over the body on every request to guess it, which the module
# never does either.
header_lines() {
	local i=0 ctype doc paths
	while IFS= read -r ctype; do
		paths=""
		for doc in "${DOCS[@]}"; do
			if [ "$(cat "$TMP/docs/$(slug_of "$doc").ctype")" = "$ctype" ]; then
				paths+=" $doc"
			fi
		done
		printf '\t@ct%d path%s\n' "$i" "$paths"
		printf '\theader @ct%d Content-Type "%s"\n' "$i" "${ctype//\"/\\\"}"
		i=$((i + 1))
	done < <(cat "$TMP"/docs/*.ctype | sort -u)
}

# start_respond serves each body with `respond`, embedded in the Caddyfile as
# a heredoc, so it is in memory like the module's. The closing marker sits at
# column 0 so no indentation is stripped; the newline before it is not part
# of the body, hence the extra echo. Caddyfile or placeholder processing that
# changed a byte would be caught by the identity check before measuring.
start_respond() {
	local doc body marker=BENCH_BODY_END_7f3a
	{
		global_options off
		echo "http://:$PORT_RESPOND {"
		header_lines
		for doc in "${DOCS[@]}"; do
			body="$TMP/docs/$(slug_of "$doc").body"
			if grep -q "$marker" "$body"; then die "the body of $doc contains the heredoc marker"; fi
			echo "	respond $doc <<$marker"
			cat "$body"
			echo
			echo "$marker 200"
		done
		echo "}"
	} >"$TMP/respond.Caddyfile"
	start_caddy respond "$PORT_RESPOND" "$TMP/respond.Caddyfile"
}

# write_file_root writes each body under the file_server root at its URL
# path. /api/v1/insights is both a document and the parent of the single
# insight, and a file cannot also be a directory: such a document becomes the
# directory's index file (`index _document`). That costs file_server one more
# stat for that document only; the alternative, a rewrite, would add a handler
# and a matcher to every request.
write_file_root() {
	local doc other target dir_doc
	mkdir -p "$TMP/www"
	for doc in "${DOCS[@]}"; do
		dir_doc=0
		for other in "${DOCS[@]}"; do
			case $other in "$doc"/*) dir_doc=1 ;; esac
		done
		if [ "$dir_doc" = 1 ]; then target="$TMP/www$doc/_document"; else target="$TMP/www$doc"; fi
		mkdir -p "$(dirname "$target")"
		cp "$TMP/docs/$(slug_of "$doc").body" "$target"
	done
}

# start_file_server serves the same bodies from disk. Canonical-URI redirects
# are off so that the directory document is served at its path, without a
# trailing slash, like the other variants.
start_file_server() {
	[ "$ONLY" != "" ] || write_file_root
	{
		global_options off
		echo "http://:$PORT_FILES {"
		[ "$ONLY" != "" ] || header_lines
		cat <<-EOF
			file_server {
				root $TMP/www
				index _document
				disable_canonical_uris
			}
		EOF
		echo "}"
	} >"$TMP/file_server.Caddyfile"
	start_caddy file_server "$PORT_FILES" "$TMP/file_server.Caddyfile"
}

# check_identical runs before each document is measured: every variant must
# answer 200 with the bytes and Content-Type captured from discovery.
check_identical() {
	local doc=$1 variant want_ctype status ctype out
	want_ctype=$(cat "$TMP/docs/$(slug_of "$doc").ctype")
	for variant in "${VARIANTS[@]}"; do
		out="$TMP/check/$variant-$(slug_of "$doc")"
		read -r status ctype < <(fetch "$variant" "$doc" "$out")
		[ "$status" = 200 ] || die "$variant answered $doc with $status, want 200"
		[ "$ctype" = "$want_ctype" ] || die "$variant served $doc as '$ctype', discovery as '$want_ctype'"
		cmp -s "$out.body" "$TMP/docs/$(slug_of "$doc").body" ||
			die "$variant served different bytes for $doc (see $out.body; BENCH_KEEP=1 keeps it)"
	done
}

# check_limited makes sure the 429 instance refuses before it is measured.
# The first request of a window is allowed (the quota is one), so a 200 is
# accepted once, which also (re)fills the window for the next 60 s.
check_limited() {
	local status ctype out="$TMP/check/limited"
	read -r status ctype < <(fetch limited "$LIMITED_DOC" "$out")
	if [ "$status" = 200 ]; then
		read -r status ctype < <(fetch limited "$LIMITED_DOC" "$out")
	fi
	[ "$status" = 429 ] || die "the rate-limited instance answered $status after its quota was used, want 429"
	[ "$ctype" = application/problem+json ] || die "the 429 came as '$ctype', want application/problem+json"
}

# field <name> <BENCH line>: one value of report.lua's line.
field() {
	local kv
	for kv in $2; do
		case $kv in "$1"=*) echo "${kv#*=}" && return ;; esac
	done
	die "no $1 in wrk's report: $2"
}

# measure <round> <variant> <doc> <seconds> <expected status> [<label> <body>
# <header>]: one wrk run. With a body, the run POSTs it to <doc> and is
# recorded under <label>; with a header, every request carries it. Round 0
# is the warm-up and is not recorded.
measure() {
	local round=$1 variant=$2 doc=$3 seconds=$4 want=$5 label=${6:-$3} body=${7:-} header=${8:-} port out line requests status_errors prof_pid=""
	local -a extra=()
	[ -z "$header" ] || extra=(-H "$header")
	port=$(port_of "$variant")
	out="$TMP/wrk/$round-$variant-$(slug_of "$label").txt"
	if [ -n "$PROFILE_DIR" ] && [ "$round" = 1 ] && { [ "$variant" = discovery ] || [ "$variant" = limited ] || [ "$variant" = mcp ] || [ "$variant" = converted ]; }; then
		local admin=$PORT_ADMIN_DISCOVERY
		[ "$variant" = limited ] && admin=$PORT_ADMIN_LIMITED
		# A profile a second shorter than the run, so it sees load only.
		curl -sS -o "$PROFILE_DIR/$variant-$(slug_of "$label").pprof" \
			"http://localhost:$admin/debug/pprof/profile?seconds=$((seconds > 1 ? seconds - 1 : 1))" &
		prof_pid=$!
	fi
	local queries=""
	[[ $body != *QUERY* ]] || queries=$TMP/queries.txt
	BENCH_BODY=$body BENCH_QUERIES=$queries wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" --timeout 5s \
		-H "$ACCEPT_ENCODING" "${extra[@]}" -s "$BENCH_DIR/report.lua" \
		"http://127.0.0.1:$port$doc" >"$out" 2>&1 || die "wrk failed on $variant $doc:"$'\n'"$(cat "$out")"
	if [ -n "$prof_pid" ]; then wait "$prof_pid" || die "could not fetch the CPU profile of $variant $doc"; fi
	line=$(grep '^BENCH ' "$out") || die "wrk printed no report for $variant $doc:"$'\n'"$(cat "$out")"
	requests=$(field requests "$line")
	status_errors=$(field status_errors "$line")
	[ "$requests" -gt 0 ] || die "wrk completed no request on $variant $doc"
	[ "$(field connect_errors "$line")" = 0 ] || die "wrk could not connect to $variant:"$'\n'"$(cat "$out")"
	[ "$(field timeouts "$line")" = 0 ] || die "requests to $variant $doc timed out:"$'\n'"$(cat "$out")"
	if [ "$want" = 200 ]; then
		# Each wrk connection is a client with the largest quota, 1 500 a
		# second. On the cheapest documents, at 40 000 requests a second
		# and more, connections average 600–750 a second each, and those
		# the two shared cores serve ahead of the others pass the quota
		# for a moment: 0.1–2.5 % of a run's requests were refused (at 32
		# connections, 18 %; at 128, 0.16 %; at 256, none). Up to one
		# request in twenty may be refused: it is logged, and the rate
		# recorded is of the answers that were not refused. More than that
		# is a failure.
		# The warm-up (round 0) is not recorded: its refusals are logged
		# only (its connections may come from the ports of the run just
		# before, whose windows have not run out).
		if [ "$status_errors" != 0 ]; then
			[ "$round" = 0 ] || [ $((status_errors * 20)) -le "$requests" ] ||
				die "$variant answered $status_errors of $requests requests for $doc with an error status (a 429 means the quota is too small for this machine)"
			log "$variant answered $status_errors of $requests requests for $doc with an error status (at most 1 in 20 tolerated: a connection past its quota; the rate is of the others)"
			printf '%s\t%s\t%s\t%s\n' "$variant" "$label" "$status_errors" "$requests" >>"$TMP/refused.tsv"
		fi
	else
		# At most one request per window can be allowed, and only when the
		# window that check_limited filled ran out during the run.
		[ $((requests - status_errors)) -le 1 ] ||
			die "the rate-limited instance allowed $((requests - status_errors)) of $requests requests, want 429s"
	fi
	local rps
	rps=$(field rps "$line")
	if [ "$want" = 200 ] && [ "$status_errors" != 0 ]; then
		# The rate of the answers that were not refused.
		rps=$(awk -v r="$rps" -v n="$requests" -v e="$status_errors" 'BEGIN { printf "%.1f", r * (n - e) / n }')
	fi
	if [ "$round" -gt 0 ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$label" "$round" \
			"$rps" "$(field p50_us "$line")" "$(field p99_us "$line")" >>"$TMP/results.tsv"
	fi
	log "$(printf 'round %s %-11s %-52s %9s req/s  p50 %5s us  p99 %6s us' "$round" "$variant" "$label" \
		"$rps" "$(field p50_us "$line")" "$(field p99_us "$line")")"
}

# run_round measures every document on every variant, alternating the
# variants document by document, then the 429 path right after the success
# path it is compared with.
run_round() {
	local round=$1 seconds=$2
	if [ "$ONLY" != convert ]; then
		run_documents "$round" "$seconds"
	fi
	check_converted
	measure "$round" converted "$SITE_PAGE" "$seconds" 200 "$SITE_PAGE" "" "$MARKDOWN_ACCEPT"
	measure "$round" page_html "$SITE_PAGE" "$seconds" 200
}

# cpu_ticks <variant>: the CPU time its Caddy has used, user and system,
# in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/${PID_OF[$1]}/stat"
}

# measure_cpu <pair> <variant> <label>: one run of METRICS_DOC, recorded
# in metrics.tsv with its req/s and the Caddy's CPU time per request.
measure_cpu() {
	local pair=$1 variant=$2 label=$3 before after out requests
	before=$(cpu_ticks "$variant")
	measure "$pair" "$variant" "$METRICS_DOC" "$METRICS_DURATION" 200 "$label"
	after=$(cpu_ticks "$variant")
	out="$TMP/wrk/$pair-$variant-$(slug_of "$label").txt"
	requests=$(field requests "$(grep '^BENCH ' "$out")")
	printf '%s\t%s\t%s\t%s\n' "$pair" "$variant" "$(field rps "$(grep '^BENCH ' "$out")")" \
		"$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$requests" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')" >>"$TMP/metrics.tsv"
}

# compare_metrics measures what counting costs: METRICS_PAIRS pairs of
# runs of METRICS_DOC on the same config with metrics on and off, the
# order alternating pair by pair so that a drift of the machine favours
# neither. A pair's runs are seconds apart, so the median of the pairs'
# ratios sees little of the load that other tenants of a shared machine
# put on it; the Caddy's CPU time per request (from /proc) is reported
# beside it, as a second view that such load moves even less.
compare_metrics() {
	local pair
	log "metrics: a warm-up, then $METRICS_PAIRS pairs of ${METRICS_DURATION} s runs, on and off in turn"
	measure 0 discovery "$METRICS_DOC" "$WARMUP" 200 "metrics on $METRICS_DOC"
	measure 0 metrics_off "$METRICS_DOC" "$WARMUP" 200 "metrics off $METRICS_DOC"
	for pair in $(seq "$METRICS_PAIRS"); do
		if [ $((pair % 2)) = 1 ]; then
			measure_cpu "$pair" discovery "metrics on $METRICS_DOC"
			measure_cpu "$pair" metrics_off "metrics off $METRICS_DOC"
		else
			measure_cpu "$pair" metrics_off "metrics off $METRICS_DOC"
			measure_cpu "$pair" discovery "metrics on $METRICS_DOC"
		fi
	done
}

# metrics_stat <column> [ratio]: the median over the pairs of a column of
# metrics.tsv (3: req/s, 4: CPU us per request) with metrics on, off, or
# (ratio) of on over off pair by pair.
metrics_stat() {
	awk -F'\t' -v c="$1" -v mode="$2" '
		{ v[$1, $2] = $(c); pairs[$1] = 1 }
		END {
			for (p in pairs) {
				if (mode == "ratio") x[n++] = v[p, "discovery"] / v[p, "metrics_off"]
				else x[n++] = v[p, mode]
			}
			for (i = 1; i < n; i++) { t = x[i]; for (j = i - 1; j >= 0 && x[j] > t; j--) x[j+1] = x[j]; x[j+1] = t }
			m = (n % 2) ? x[int(n/2)] : (x[n/2-1] + x[n/2]) / 2
			printf (mode == "ratio" ? "%.3f" : "%.1f"), m
		}' "$TMP/metrics.tsv"
}

# run_documents measures the documents, the 429 path and MCP.
run_documents() {
	local round=$1 seconds=$2 doc variant
	for doc in "${DOCS[@]}"; do
		check_identical "$doc"
		for variant in "${VARIANTS[@]}"; do
			measure "$round" "$variant" "$doc" "$seconds" 200
		done
		if [ "$doc" = "$LIMITED_DOC" ]; then
			check_limited
			measure "$round" limited "$doc" "$seconds" 429
		fi
	done
	local call label rest body
	for call in "${MCP_CALLS[@]}"; do
		IFS='|' read -r label rest _ _ <<<"$call"
		body=$(mcp_body "$call")
		measure "$round" mcp-rest "$rest" "$seconds" 200 "$label"
		measure "$round" mcp /mcp "$seconds" 200 "$label" "$body"
	done
}

# write_site_page writes the site page under the discovery instance's
# site root and under file_server's root: a
# documentation page of about 100 KB with a header, navigation, headings,
# paragraphs with links, lists, code, images and tables, a footer and
# scripts, as BenchmarkConvertPage converts it.
write_site_page() {
	local i target="$TMP/site$SITE_PAGE"
	mkdir -p "$(dirname "$target")" "$(dirname "$TMP/www$SITE_PAGE")"
	{
		printf '%s' '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A long guide</title>' \
			'<meta name="description" content="Everything about it."><link rel="stylesheet" href="/s.css">' \
			'<style>body{margin:0}</style><script src="/app.js"></script></head><body><header><a href="/">Site</a>' \
			'<nav><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></nav></header><main><h1>A long guide</h1>'
		for ((i = 0; i < 190; i++)); do
			printf '<h2 id="s%d">Section %d</h2><p>This is paragraph %d with <a href="/docs/page-%d">a relative link</a>, ' "$i" "$i" "$i" "$i"
			printf '%s' 'some <em>emphasis</em>, <strong>strong text</strong> and <code>inline code</code>. Lorem ipsum dolor sit amet, ' \
				'consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>' \
				'<ul><li>First item</li><li>Second <a href="https://example.org/x">item</a></li></ul>'
			printf '<pre><code class="language-go">func main() { fmt.Println("hi %d") }</code></pre><p><img src="img/fig-%d.png" alt="Figure %d"></p>' "$i" "$i" "$i"
			if ((i % 5 == 0)); then
				printf '%s' '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr>' \
					'<tr><td>b</td><td>2</td></tr></tbody></table>'
			fi
		done
		printf '%s\n' '</main><footer><p>(c) Site</p></footer><script>window.x=1</script></body></html>'
	} >"$target"
	cp "$target" "$TMP/www$SITE_PAGE"
}

# check_converted makes sure, before the site page is measured, that the
# discovery instance answers it as Markdown and file_server as HTML. The
# first request converts the page; the ones measured find it kept.
check_converted() {
	local status ctype port out="$TMP/check/converted"
	port=$(port_of converted)
	read -r status ctype < <(curl -sS -H "$ACCEPT_ENCODING" -H "$MARKDOWN_ACCEPT" -o "$out.body" -D "$out.head" \
		-w '%{http_code} %{content_type}\n' "http://127.0.0.1:$port$SITE_PAGE")
	[ "$status" = 200 ] && [ "$ctype" = "text/markdown; charset=utf-8" ] ||
		die "discovery answered $SITE_PAGE as Markdown with $status '$ctype' (see $TMP/discovery/caddy.log)"
	read -r status ctype < <(fetch page_html "$SITE_PAGE" "$TMP/check/page_html")
	[ "$status" = 200 ] && [ "${ctype%%;*}" = text/html ] || die "file_server answered $SITE_PAGE with $status '$ctype'"
}

# write_queries writes the search queries: every pair of SEARCH_WORDS.
write_queries() {
	local a b
	for a in "${SEARCH_WORDS[@]}"; do
		for b in "${SEARCH_WORDS[@]}"; do
			[ "$a" = "$b" ] || echo "$a $b"
		done
	done >"$TMP/queries.txt"
}

# mcp_body <MCP_CALLS entry>: the JSON-RPC request of one MCP measurement
# (with QUERY for a search's query, see measure).
mcp_body() {
	local method params
	IFS='|' read -r _ _ method params <<<"$1"
	echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$method\",\"params\":${params//RESOURCE_URI/$RESOURCE_URI}}"
}

# check_mcp makes sure every MCP request is answered with a result, not an
# error, before anything is measured, and finds the insight's resource URI.
check_mcp() {
	local call label status ctype out="$TMP/check/mcp"
	curl -sS -o "$out.list" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-d '{"jsonrpc":"2.0","id":1,"method":"resources/list"}' "http://127.0.0.1:$PORT_DISCOVERY/mcp"
	RESOURCE_URI=$(grep -o "\"uri\":\"[^\"]*/$SLUG\"" "$out.list" | head -n 1 | cut -d'"' -f4)
	[ -n "$RESOURCE_URI" ] || die "resources/list names no resource for $SLUG: $(head -c 300 "$out.list")"
	for call in "${MCP_CALLS[@]}"; do
		IFS='|' read -r label _ _ _ <<<"$call"
		read -r status ctype < <(curl -sS -H "$ACCEPT_ENCODING" -H 'Content-Type: application/json' \
			-H 'Accept: application/json, text/event-stream' -d "$(mcp_body "$call" | sed "s/QUERY/$(head -n 1 "$TMP/queries.txt")/")" -o "$out.body" \
			-w '%{http_code} %{content_type}\n' "http://127.0.0.1:$PORT_DISCOVERY/mcp")
		[ "$status" = 200 ] && [ "$ctype" = application/json ] || die "MCP $label: $status '$ctype', want 200 application/json"
		if ! grep -q '"result":' "$out.body" || grep -q '"isError":true' "$out.body"; then
			die "MCP $label was not answered with a result: $(head -c 300 "$out.body")"
		fi
		cp "$out.body" "$TMP/check/mcp-$(slug_of "$label").body"
	done
}

# stat <variant> <doc> <column>: the median over the rounds of one column of
# results.tsv (4 rps, 5 p50, 6 p99); with "spread", half the range of the
# rps values as a percentage of their median, to show the noise.
stat() {
	awk -F'\t' -v v="$1" -v d="$2" -v c="$3" -v mode="${4:-median}" '
		$1 == v && $2 == d { x[n++] = $(c) + 0 }
		END {
			if (n == 0) { print "n/a"; exit }
			# insertion sort: n is the number of rounds
			for (i = 1; i < n; i++) { t = x[i]; for (j = i - 1; j >= 0 && x[j] > t; j--) x[j+1] = x[j]; x[j+1] = t }
			m = (n % 2) ? x[int(n/2)] : (x[n/2-1] + x[n/2]) / 2
			if (mode == "spread") printf "%.0f", (m > 0 ? (x[n-1] - x[0]) / 2 / m * 100 : 0)
			else printf "%.0f", m
		}' "$TMP/results.tsv"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }
verdict() { if "$@"; then echo PASS; else echo MISS; fi; }

# row <label> <variant> <doc> <head file>: one line of the table.
row() {
	printf '  %-28s %8s %4s%% %8s %8s %7s\n' "$1" \
		"$(stat "$2" "$3" 4)" "$(stat "$2" "$3" 4 spread)" "$(stat "$2" "$3" 5)" "$(stat "$2" "$3" 6)" \
		"$(wc -c <"$4")"
}

# target <what> <measure> <value> <op> <goal> <verdict>: one line of the
# targets list.
target() {
	printf '  %-52s %-22s %6s %2s %-4s  %s\n' "$@"
}

print_report() {
	local doc variant rps p99 d_rps vs_r vs_f slug
	local -a targets=()
	echo
	echo "Load benchmark: wrk -t$THREADS -c$CONNECTIONS, Accept-Encoding: identity; $ROUNDS rounds of ${DURATION} s per"
	echo "variant and document after a ${WARMUP} s warm-up, variants alternating. Medians over the rounds;"
	echo "+- is half the range of req/s in % of the median; head B is the size of the response head."
	echo "Machine: $(nproc) CPUs shared by wrk and Caddy ($("$CADDY" version | cut -d' ' -f1)); load average at start $LOAD_START, now $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	if [ "$ONLY" != convert ]; then
		echo "Metrics: $METRICS_DOC from the same config with metrics on (the default) and off: $METRICS_PAIRS pairs"
		echo "of ${METRICS_DURATION} s runs, the order alternating; medians over the pairs; CPU us/req is the Caddy's own CPU time"
		printf '  %-28s %8s %5s %8s %8s %7s\n' "" "req/s" "+-" "p50 us" "p99 us" "CPU us/req"
		printf '  %-28s %8s %4s%% %8s %8s %7s\n' "metrics on" "$(stat discovery "metrics on $METRICS_DOC" 4)" \
			"$(stat discovery "metrics on $METRICS_DOC" 4 spread)" "$(stat discovery "metrics on $METRICS_DOC" 5)" "$(stat discovery "metrics on $METRICS_DOC" 6)" \
			"$(metrics_stat 4 discovery)"
		printf '  %-28s %8s %4s%% %8s %8s %7s\n' "metrics off" "$(stat metrics_off "metrics off $METRICS_DOC" 4)" \
			"$(stat metrics_off "metrics off $METRICS_DOC" 4 spread)" "$(stat metrics_off "metrics off $METRICS_DOC" 5)" "$(stat metrics_off "metrics off $METRICS_DOC" 6)" \
			"$(metrics_stat 4 metrics_off)"
		local vs_m
		vs_m=$(metrics_stat 3 ratio)
		echo "  on/off req/s $vs_m (median of the pairs' ratios); CPU per request on/off $(metrics_stat 4 ratio)"
		targets+=("$(target "$METRICS_DOC with metrics" "on/off" "$vs_m" ">=" "$TARGET_METRICS" "$(verdict at_least "$vs_m" "$TARGET_METRICS")")")
	fi
	if [ "$ONLY" = metrics ]; then
		echo
		echo "Targets:"
		printf '%s\n' "${targets[@]}"
		return
	fi
	echo
	printf '  %-28s %8s %5s %8s %8s %7s\n' "" "req/s" "+-" "p50 us" "p99 us" "head B"
	if [ "$ONLY" = "" ]; then
		report_documents
	fi
	echo "A site page as Markdown: $SITE_PAGE, $(wc -c <"$TMP/check/page_html.body") B of HTML, $(wc -c <"$TMP/check/converted.body") B of"
	echo "Markdown, converted on the first request, then answered from the Markdown kept (file_server asked on the ETag)"
	row "converted (repeat)" converted "$SITE_PAGE" "$TMP/check/converted.head"
	row "file_server HTML" page_html "$SITE_PAGE" "$TMP/check/page_html.head"
	vs_f=$(ratio "$(stat converted "$SITE_PAGE" 4)" "$(stat page_html "$SITE_PAGE" 4)")
	echo "  converted/file_server $vs_f"
	targets+=("$(target "$SITE_PAGE as Markdown" "converted/file_server" "$vs_f" ">=" "$TARGET_CONVERTED" "$(verdict at_least "$vs_f" "$TARGET_CONVERTED")")")
	echo
	echo "Targets (p99 at $CONNECTIONS connections):"
	printf '%s\n' "${targets[@]}"
	local missed
	missed=$(printf '%s\n' "${targets[@]}" | grep -c 'MISS$' || true)
	echo
	echo "$((${#targets[@]} - missed)) of ${#targets[@]} targets met. These are measurements: the exit status does not depend on them."
}

# report_documents prints the documents, the 429 path and MCP, adding to
# the caller's targets.
report_documents() {
	local doc variant rps p99 d_rps vs_r vs_f slug
	for doc in "${DOCS[@]}"; do
		slug=$(slug_of "$doc")
		echo "$doc (body $(wc -c <"$TMP/docs/$slug.body") B, $(cat "$TMP/docs/$slug.ctype"))"
		for variant in "${VARIANTS[@]}"; do
			row "$variant" "$variant" "$doc" "$TMP/check/$variant-$slug.head"
		done
		d_rps=$(stat discovery "$doc" 4)
		vs_r=$(ratio "$d_rps" "$(stat respond "$doc" 4)")
		vs_f=$(ratio "$d_rps" "$(stat file_server "$doc" 4)")
		p99=$(stat discovery "$doc" 6)
		echo "  discovery/respond $vs_r   discovery/file_server $vs_f"
		targets+=("$(target "$doc" "discovery/respond" "$vs_r" ">=" "$TARGET_VS_RESPOND" "$(verdict at_least "$vs_r" "$TARGET_VS_RESPOND")")")
		targets+=("$(target "$doc" "discovery/file_server" "$vs_f" ">=" "$TARGET_VS_FILES" "$(verdict at_least "$vs_f" "$TARGET_VS_FILES")")")
		targets+=("$(target "$doc" "discovery p99 ms" "$(ms "$p99")" "<" "$(ms "$TARGET_P99_US")" "$(verdict below "$p99" "$TARGET_P99_US")")")
	done
	slug=$(slug_of "$LIMITED_DOC")
	echo "429 path: $LIMITED_DOC with rate_limit 1 60s (problem body $(wc -c <"$TMP/check/limited.body") B)"
	row "discovery, 429" limited "$LIMITED_DOC" "$TMP/check/limited.head"
	row "discovery, 200 (from above)" discovery "$LIMITED_DOC" "$TMP/check/discovery-$slug.head"
	rps=$(stat limited "$LIMITED_DOC" 4)
	p99=$(stat limited "$LIMITED_DOC" 6)
	vs_r=$(ratio "$rps" "$(stat discovery "$LIMITED_DOC" 4)")
	echo "  429/success $vs_r"
	targets+=("$(target "429 path ($LIMITED_DOC)" "429/success" "$vs_r" ">=" "$TARGET_LIMITED" "$(verdict at_least "$vs_r" "$TARGET_LIMITED")")")
	targets+=("$(target "429 path ($LIMITED_DOC)" "429 p99 ms" "$(ms "$p99")" "<" "$(ms "$TARGET_P99_US")" "$(verdict below "$p99" "$TARGET_P99_US")")")
	echo "MCP: each request POSTed to /mcp, and the GET of the REST document with the same data measured just before it"
	local call label rest mcp_rps ratio_m targeted t
	for call in "${MCP_CALLS[@]}"; do
		IFS='|' read -r label rest _ _ <<<"$call"
		printf '  %-28s %8s %4s%% %8s %8s %7s\n' "$label" \
			"$(stat mcp "$label" 4)" "$(stat mcp "$label" 4 spread)" "$(stat mcp "$label" 5)" "$(stat mcp "$label" 6)" \
			"$(wc -c <"$TMP/check/mcp-$(slug_of "$label").body")"
		printf '  %-28s %8s %4s%% %8s %8s\n' "  GET $rest" \
			"$(stat mcp-rest "$label" 4)" "$(stat mcp-rest "$label" 4 spread)" "$(stat mcp-rest "$label" 5)" "$(stat mcp-rest "$label" 6)"
		mcp_rps=$(stat mcp "$label" 4)
		ratio_m=$(ratio "$mcp_rps" "$(stat mcp-rest "$label" 4)")
		echo "  MCP/REST $ratio_m"
		targeted=0
		for t in "${MCP_TARGETED[@]}"; do [ "$t" = "$label" ] && targeted=1; done
		if [ "$targeted" = 1 ]; then
			targets+=("$(target "MCP $label" "MCP/REST" "$ratio_m" ">=" "$TARGET_MCP" "$(verdict at_least "$ratio_m" "$TARGET_MCP")")")
		fi
	done
	echo "  (the last column of an MCP line is the size of its answer's body)"
}

main() {
	[ -x "$CADDY" ] || die "$CADDY is missing: run 'make build' first (make bench does)"
	need curl curl
	need wrk wrk
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/caddy-discovery-bench.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$TMP/wrk" "$TMP/check"
	[ -z "$PROFILE_DIR" ] || mkdir -p "$PROFILE_DIR"
	: >"$TMP/results.tsv"
	: >"$TMP/metrics.tsv"
	: >"$TMP/refused.tsv"
	CLK_TCK=$(getconf CLK_TCK)

	# Separate processes, not three site blocks of one Caddy: each variant
	# gets a Go runtime of its own, so the discovery instance's heap (the
	# limiter's ring of 2 million slots, 48 MB) and goroutines do not change
	# the GC pacing or scheduling of the baselines, and one variant's garbage
	# is never collected during another's measurement. Only one is loaded at
	# a time; the idle ones cost nothing. All run the same binary with the
	# same global options.
	write_site_page
	write_queries
	start_discovery
	if [ "$ONLY" = "" ]; then
		capture_documents
		check_mcp
		start_respond
	fi
	start_file_server

	local start=$SECONDS round
	LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
	[ "$ONLY" = convert ] || compare_metrics
	if [ "$ONLY" != metrics ]; then
		log "warm-up: ${WARMUP} s per variant and document"
		run_round 0 "$WARMUP"
		for round in $(seq "$ROUNDS"); do
			run_round "$round" "$DURATION"
		done
	fi
	print_report
	if [ -s "$TMP/refused.tsv" ]; then
		echo "Success runs with refusals (a wrk connection past its 1 500-a-second quota; at most 1 in 20 tolerated, the rates of the others):"
		awk -F'\t' '{ printf "  %s %s: %s of %s\n", $1, $2, $3, $4 }' "$TMP/refused.tsv"
	fi
	echo "Run time: ${SECONDS} s (servers started in $start s)."
	[ -z "$PROFILE_DIR" ] || echo "CPU profiles of round 1 (discovery instances): $PROFILE_DIR"
}

main "$@"
