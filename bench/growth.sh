#!/usr/bin/env bash
# Growth figures: what the module costs as the content grows.
#
# For 10, 1 000 and 10 000 insights (GROWTH_SIZES), it generates a content
# directory from the embedded sample's profile and articles (each insight
# one of the eight sample articles, about 900 words, under a title and slug
# of its own), starts bin/caddy on it with base_url set (so every document
# is rendered at load, as in production) and measures:
#
#   load     the time from starting Caddy to its first answer, and its RSS
#            then (VmRSS, /proc); the process start alone is the 10-insight
#            figure;
#   serve    each document and MCP read: its size and wrk's req/s and p50
#            (wrk -t2 -c16, GROWTH_DURATION s each, identity encoding); then
#            RSS after serving them all, and the peak (VmHWM);
#   llms-full.txt  the time to first byte and in all of one request, as sent
#            (identity), and of the first and second request accepting zstd
#            (the first makes the compressed form, which is then kept).
#
# It prints Markdown tables (the growth tables of docs/performance.md come from it) and
# exits non-zero only when something failed to run. Run it on an idle
# machine: wrk shares the cores with Caddy.
#
# Usage: bench/growth.sh   (after `make build`; `make growth` does both)
#
# Settings (environment): CADDY (default bin/caddy), GROWTH_SIZES (default
# "10 1000 10000"), GROWTH_DURATION (seconds per document, default 2),
# GROWTH_KEEP=1 keeps the temp dir. Port: 8101 (as bench/run.sh: run one at
# a time).
set -euo pipefail
set -E
trap 'echo "growth: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CADDY=${CADDY:-$ROOT/bin/caddy}
SIZES=${GROWTH_SIZES:-10 1000 10000}
DURATION=${GROWTH_DURATION:-2}
PORT=8101
BASE=http://localhost:$PORT
TMP=""
PID=""

die() {
	echo "growth: $*" >&2
	exit 1
}

cleanup() {
	stop_caddy
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		if [ "${GROWTH_KEEP:-0}" = 1 ]; then echo "growth: kept $TMP" >&2; else rm -rf "$TMP"; fi
	fi
}

stop_caddy() {
	if [ -n "$PID" ]; then
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
		PID=""
	fi
}

# generate <n> <dir>: profile.yaml and n insights, insight-00000.md …, each
# a sample article whose title says which copy it is.
generate() {
	local n=$1 dir=$2
	mkdir -p "$dir/insights"
	cp "$ROOT/content/sample/profile.yaml" "$dir/"
	awk -v n="$n" -v out="$dir/insights" '
		FNR == 1 { k++ }
		{ text[k] = text[k] $0 "\n" }
		END {
			for (i = 0; i < n; i++) {
				t = text[i % k + 1]
				sub(/\ntitle: "/, "\ntitle: \"(" i ") ", t)
				f = sprintf("%s/insight-%05d.md", out, i)
				printf "%s", t > f
				close(f)
			}
		}' "$ROOT"/content/sample/insights/*.md
}

rss_kb() { awk -v f="$2" '$1 == f ":" { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# start <n>: runs Caddy on the content of n insights; sets LOAD_MS.
start() {
	local n=$1 dir="$TMP/content-$1" start_ns i
	cat >"$TMP/Caddyfile" <<-EOF
		{
			admin off
			auto_https off
			persist_config off
			default_bind 127.0.0.1
		}
		http://:$PORT {
			discovery {
				base_url $BASE
				content $dir
				rate_limit off
			}
		}
	EOF
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && die "port $PORT is already in use"
	mkdir -p "$TMP/data"
	start_ns=$(date +%s%N)
	XDG_DATA_HOME="$TMP/data" XDG_CONFIG_HOME="$TMP/data" \
		"$CADDY" run --adapter caddyfile --config "$TMP/Caddyfile" >"$TMP/caddy-$n.log" 2>&1 &
	PID=$!
	for i in $(seq 6000); do
		kill -0 "$PID" 2>/dev/null || die "Caddy exited at start: $(tail -n 5 "$TMP/caddy-$n.log")"
		if curl -sf -o /dev/null "$BASE/api/v1"; then
			LOAD_MS=$((($(date +%s%N) - start_ns) / 1000000))
			return
		fi
		sleep 0.01
	done
	die "Caddy did not answer within 60 s"
}

# measure <label> <path> [<MCP body>]: one wrk run; prints "size rps p50".
measure() {
	local path=$2 body=${3:-} size line
	if [ -n "$body" ]; then
		size=$(curl -sS -o /dev/null -w '%{size_download}' -H 'Content-Type: application/json' \
			-H 'Accept: application/json, text/event-stream' -d "$body" "$BASE$path")
	else
		size=$(curl -sS -o /dev/null -w '%{size_download}' "$BASE$path")
	fi
	line=$(BENCH_BODY=$body wrk -t2 -c16 -d"${DURATION}s" --timeout 30s -H 'Accept-Encoding: identity' \
		-s "$ROOT/bench/report.lua" "$BASE$path" | grep '^BENCH ') || die "wrk failed on $1"
	case $line in *" status_errors=0 "*) ;; *) die "$1 answered errors: $line" ;; esac
	echo "$size $(echo "$line" | grep -o 'rps=[0-9.]*' | cut -d= -f2) $(echo "$line" | grep -o 'p50_us=[0-9]*' | cut -d= -f2)"
}

# ttfb <accept-encoding>: time to first byte and total of one llms-full.txt.
ttfb() {
	curl -sS -o /dev/null -H "Accept-Encoding: $1" -w '%{time_starttransfer} %{time_total} %{size_download}' "$BASE/llms-full.txt" |
		awk '{ printf "%.1f ms / %.1f ms, %.1f MB", $1 * 1000, $2 * 1000, $3 / 1e6 }'
}

human() { awk -v b="$1" 'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else if (b >= 1e3) printf "%.1f KB", b / 1e3; else printf "%d B", b }'; }

main() {
	[ -x "$CADDY" ] || die "$CADDY is missing: run 'make build' first (make growth does)"
	command -v wrk >/dev/null || die "wrk is missing (bench/run.sh installs it)"
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/caddy-discovery-growth.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	local n mid docs=() labels=() bodies=() i r rows=() loads=() full=()
	for n in $SIZES; do
		echo "growth: $n insights" >&2
		generate "$n" "$TMP/content-$n"
		mid=$(printf 'insight-%05d' $((n / 2)))
		labels=(
			"/api/v1" "/api/v1/profile" "/api/v1/insights" "/api/v1/insights/{slug}" "/openapi.json" "/llms.txt"
			"/llms-full.txt" "/developers" "/sitemap-discovery.xml" "/index.md" "/insights.md" "/insights/{slug}.md"
			"/robots.txt" "/.well-known/mcp/server-card.json" "/.well-known/agent-skills/index.json"
			"MCP tools/list" "MCP tools/call get_insight" "MCP resources/read" "MCP resources/list"
			"MCP tools/call search_insights"
		)
		docs=(
			/api/v1 /api/v1/profile /api/v1/insights "/api/v1/insights/$mid" /openapi.json /llms.txt
			/llms-full.txt /developers /sitemap-discovery.xml /index.md /insights.md "/insights/$mid.md"
			/robots.txt /.well-known/mcp/server-card.json /.well-known/agent-skills/index.json
			/mcp /mcp /mcp /mcp /mcp
		)
		bodies=("" "" "" "" "" "" "" "" "" "" "" "" "" "" ""
			'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"'"$mid"'"}}}'
			'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"'"$BASE/insights/$mid"'"}}'
			'{"jsonrpc":"2.0","id":1,"method":"resources/list"}'
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"warehouse cost"}}}'
		)
		start "$n"
		loads+=("$n|$LOAD_MS|$(mib "$(rss_kb "$PID" VmRSS)")")
		for i in "${!docs[@]}"; do
			r=$(measure "${labels[$i]}" "${docs[$i]}" "${bodies[$i]}")
			rows[i]="${rows[i]:-}|$r"
			echo "growth:   ${labels[$i]}: $r" >&2
		done
		full+=("$n|$(ttfb identity)|$(ttfb zstd)|$(ttfb zstd)")
		loads[${#loads[@]} - 1]+="|$(mib "$(rss_kb "$PID" VmRSS)")|$(mib "$(rss_kb "$PID" VmHWM)")"
		stop_caddy
		rm -rf "$TMP/content-$n"
	done

	echo
	echo "| insights | load (start to first answer) | RSS after load | RSS after serving everything | peak RSS |"
	echo "|---|---|---|---|---|"
	for r in "${loads[@]}"; do
		IFS='|' read -r n a b c d <<<"$r"
		echo "| $n | $a ms | $b MiB | $c MiB | $d MiB |"
	done
	echo
	local header="| document |" rule="|---|"
	for n in $SIZES; do header+=" $n: size, req/s, p50 |"; rule+="---|"; done
	echo "$header"
	echo "$rule"
	for i in "${!labels[@]}"; do
		local line="| ${labels[$i]} |" cell size rps p50
		IFS='|' read -r -a cells <<<"${rows[i]#|}"
		for cell in "${cells[@]}"; do
			read -r size rps p50 <<<"$cell"
			line+=" $(human "$size"), $(printf '%.0f' "$rps"), $(awk -v u="$p50" 'BEGIN { printf "%.2f ms", u / 1000 }') |"
		done
		echo "$line"
	done
	echo
	echo "| insights | llms-full.txt, identity: first byte / whole | first zstd request | second zstd request |"
	echo "|---|---|---|---|"
	for r in "${full[@]}"; do
		IFS='|' read -r n a b c <<<"$r"
		echo "| $n | $a | $b | $c |"
	done
	echo
	echo "wrk -t2 -c16, ${DURATION} s per document, Accept-Encoding: identity; $(nproc) CPUs shared by wrk and Caddy; load average $(cut -d' ' -f1-3 /proc/loadavg)."
}

main "$@"
