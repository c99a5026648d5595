#!/usr/bin/env bash
# Figures of reading a site: a site of 1 000 posts as a static generator
# builds one (each post's page with its JSON-LD, list pages of 20 posts,
# an Atom feed of the newest ten, a sitemap), read by a bare `discovery`
# in front of it through file_server, and through reverse_proxy to another
# Caddy serving the same folder. For each:
#
#   read       the time to a complete catalog (the "site read" log line's
#              took), and the requests it made;
#   refresh    the requests a refresh makes when nothing changed (counted in
#              the site's access log over two refreshes of 5 s), and how
#              many of them were 304s;
#   memory     the Caddy process's RSS after the read, against before it;
#   p99        the latency of the site's own pages for visitors (wrk, 8
#              connections each sending about 100 requests a second:
#              bench/visitors.lua) while the read runs, against the same
#              once the read is over (idle); each the median of its
#              figures over the runs, and their ratio. A single run's
#              p99 on two shared cores moves by half, idle as much as
#              during the read, so the ratio of one run is printed
#              beside it but is not the figure.
#
# It prints a table and PASS/MISS against the target (p99 during the read at
# most 1.5 times idle), and exits 0 either way: these are measurements.
#
# Usage: bench/siteread.sh   (after `make build`; `make bench` runs it)
# Settings: CADDY (default bin/caddy), SITEREAD_POSTS (default 1000),
# SITEREAD_ROUNDS (default 5: the p99 figures are the median of as many runs),
# SITEREAD_KEEP=1 keeps the temp dir. Ports 8111-8113.
set -euo pipefail
set -E
trap 'echo "bench: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CADDY=${CADDY:-$ROOT/bin/caddy}
POSTS=${SITEREAD_POSTS:-1000}
ROUNDS=${SITEREAD_ROUNDS:-5}
command -v wrk >/dev/null || { echo "bench: wrk is needed (apt-get install wrk)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/caddy-discovery-siteread.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${SITEREAD_KEEP:-}" = 1 ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# The site.
SITE=$TMP/site
mkdir -p "$SITE/posts" "$SITE/about"
para=$(printf 'A sentence of the post that says something about the subject at hand. %.0s' $(seq 12))
head='<!doctype html><html lang="en"><head><meta charset="utf-8">'
{
	echo '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
	for i in $(seq 0 $((POSTS - 1))); do
		day=$(date -u -d "2020-01-01 +$i days" +%F)
		dir=$SITE/posts/post-$(printf %04d "$i")
		mkdir -p "$dir"
		cat >"$dir/index.html" <<-EOF
			$head<title>Post number $i | Grown</title><meta name="description" content="What post $i is about.">
			<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Post number $i","datePublished":"${day}T09:00:00Z","author":{"@type":"Person","name":"Ada Lovelace"}}</script>
			</head><body><nav><a href="/">Home</a><a href="/about/">About</a></nav><main><article><h1>Post number $i</h1>
			<p>$para</p><p>$para</p><pre><code>&lt;script&gt;go($i)&lt;/script&gt;</code></pre><p>$para</p></article></main></body></html>
		EOF
		echo "<url><loc>http://localhost/posts/post-$(printf %04d "$i")/</loc><lastmod>$day</lastmod></url>"
	done
	echo '</urlset>'
} >"$SITE/sitemap.xml"
{
	echo '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Grown</title><author><name>Ada Lovelace</name></author>'
	for i in $(seq $((POSTS - 10)) $((POSTS - 1))); do
		day=$(date -u -d "2020-01-01 +$i days" +%F)
		echo "<entry><title>Post number $i</title><link rel=\"alternate\" href=\"/posts/post-$(printf %04d "$i")/\"/><published>${day}T09:00:00Z</published><updated>${day}T09:00:00Z</updated><id>post-$i</id></entry>"
	done
	echo '</feed>'
} >"$SITE/feed.xml"
pages=$(((POSTS + 19) / 20))
for page in $(seq 1 "$pages"); do
	out=$SITE/index.html
	[ "$page" = 1 ] || { mkdir -p "$SITE/page/$page" && out=$SITE/page/$page/index.html; }
	{
		echo "$head<title>Grown</title><link rel=\"alternate\" type=\"application/atom+xml\" href=\"/feed.xml\">"
		echo '<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebSite","name":"Grown","publisher":{"@type":"Person","name":"Ada Lovelace"}}</script>'
		echo '</head><body><nav><a href="/about/">About</a></nav><main>'
		for i in $(seq $((POSTS - 1 - (page - 1) * 20)) -1 $((POSTS - page * 20 > 0 ? POSTS - page * 20 : 0))); do
			echo "<article><h2><a href=\"/posts/post-$(printf %04d "$i")/\">Post number $i</a></h2></article>"
		done
		[ "$page" -lt "$pages" ] && echo "<a rel=\"next\" href=\"/page/$((page + 1))/\">Older</a>"
		echo '</main></body></html>'
	} >"$out"
done
echo "$head<title>About</title></head><body><main><h1>About</h1><p>$para</p></main></body></html>" >"$SITE/about/index.html"
printf 'User-agent: *\nAllow: /\n\nSitemap: /sitemap.xml\n' >"$SITE/robots.txt"

start_caddy() { # start_caddy <name> <caddyfile>: starts Caddy, echoes its pid
	local name=$1
	printf '%s\n' "$2" >"$TMP/$name.caddyfile"
	XDG_DATA_HOME=$TMP/data-$name XDG_CONFIG_HOME=$TMP/config-$name \
		"$CADDY" run --config "$TMP/$name.caddyfile" --adapter caddyfile >"$TMP/$name.log" 2>&1 &
	echo $!
}
wait_for() { # wait_for <file> <pattern> <seconds>
	for _ in $(seq $((${3} * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench: '$2' not in $1 after $3 s" >&2
	tail -5 "$1" >&2
	return 1
}
wait_up() { # wait_up <port>
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://localhost:$1/robots.txt" --max-time 1 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
p99() { # p99 <port> <seconds>: wrk's p99 in ms of a post's page
	wrk -t2 -c8 -d"$2"s --latency -s "$ROOT/bench/visitors.lua" "http://localhost:$1/posts/post-0500/" 2>/dev/null |
		awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }'
}

upstream=$(start_caddy upstream "{
	admin off
	auto_https off
	persist_config off
}
http://localhost:8111 {
	root * $SITE
	file_server
	log {
		output file $TMP/upstream-access.log
	}
}")
PIDS+=("$upstream")
wait_up 8111

declare -A RESULT RATIOS
measure() { # measure <name> <port> <site lines>
	local name=$1 port=$2 lines=$3
	local access=$TMP/$name-access.log
	local caddyfile="{
	admin off
	auto_https off
	persist_config off
}
http://localhost:$port {
	discovery {
		refresh 5s
	}
	$lines
}"
	# A first run learns how long the read takes.
	local pid
	pid=$(start_caddy "$name-dry" "$caddyfile")
	PIDS+=("$pid")
	sleep 0.5
	curl -s -o /dev/null "http://localhost:$port/robots.txt"
	wait_for "$TMP/$name-dry.log" '"msg":"site read"' 300
	local took
	took=$(grep -o '"msg":"site read"[^}]*' "$TMP/$name-dry.log" | head -1 | grep -o '"took":[0-9.]*' | cut -d: -f2)
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	# The measured runs: wrk while the read runs, then idle; the first
	# run also gives the read's figures and the refreshes'. p99 over a few
	# seconds on two cores shared with wrk moves by half from run to run,
	# so the figure is the median of SITEREAD_ROUNDS runs.
	local during=$(((${took%.*} + 2)))
	local reads=() idles=() ratios=() line before after n0 n1 not_modified
	for round in $(seq "$ROUNDS"); do
		pid=$(start_caddy "$name-$round" "$caddyfile")
		PIDS+=("$pid")
		sleep 0.5
		before=$(rss "$pid")
		reads+=("$(p99 "$port" "$during")")
		wait_for "$TMP/$name-$round.log" '"msg":"site read"' 300
		sleep 1
		[ "$round" = 1 ] && after=$(rss "$pid")
		idles+=("$(p99 "$port" "$during")")
		ratios+=("$(awk -v a="${reads[-1]}" -v b="${idles[-1]}" 'BEGIN { printf "%.2f", a / b }')(${reads[-1]}/${idles[-1]})")
		if [ "$round" = 1 ]; then
			line=$(grep -o '"msg":"site read"[^}]*' "$TMP/$name-$round.log" | head -1)
			# Two refreshes with nothing changed, counted in the access
			# log of the site's server.
			n0=$(grep -c 'caddy-discovery' "$access" || true)
			sleep 10
			n1=$(grep -c 'caddy-discovery' "$access" || true)
			not_modified=$(tail -n $((n1 - n0)) "$access" | grep 'caddy-discovery' | grep -c '"status":304' || true)
		fi
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
	local p99_read p99_idle
	p99_read=$(median "${reads[@]}")
	p99_idle=$(median "${idles[@]}")
	RATIOS[$name]="${ratios[*]}"
	RESULT[$name]="$(echo "$line" | grep -o '"took":[0-9.]*' | cut -d: -f2) $(echo "$line" | grep -o '"posts":[0-9]*' | cut -d: -f2) $(echo "$line" | grep -o '"requests":[0-9]*' | cut -d: -f2) $(((n1 - n0) / 2)) $((not_modified / 2)) $(((after - before) / 1024)) $p99_read $p99_idle $(awk -v a="$p99_read" -v b="$p99_idle" 'BEGIN { printf "%.2f", a / b }')"
}

measure file_server 8112 "root * $SITE
	file_server
	log {
		output file $TMP/file_server-access.log
	}"
cp "$TMP/upstream-access.log" "$TMP/reverse_proxy-access.log.before" 2>/dev/null || true
: >"$TMP/upstream-access.log"
ln -sf "$TMP/upstream-access.log" "$TMP/reverse_proxy-access.log"
measure reverse_proxy 8113 "reverse_proxy localhost:8111"

printf '\nReading a site of %d posts (a bare discovery; 2 cores)\n\n' "$POSTS"
printf '| %-13s | %9s | %5s | %8s | %16s | %12s | %9s | %9s | %9s | %-17s |\n' "site behind" "read (s)" "posts" "requests" "refresh requests" "of them 304" "RSS +MiB" "p99 read" "p99 idle" "read ÷ idle"
printf '|%s|\n' "---------------|-----------|-------|----------|------------------|--------------|-----------|-----------|-----------|-------------------"
for name in file_server reverse_proxy; do
	read -r took posts requests refresh nm mem pr pi ratio <<<"${RESULT[$name]}"
	verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "PASS" : "MISS" }')
	printf '| %-13s | %9.2f | %5s | %8s | %16s | %12s | %9s | %6s ms | %6s ms | %.4s× %s |\n' "$name" "$took" "$posts" "$requests" "$refresh" "$nm" "$mem" "$pr" "$pi" "$ratio" "$verdict"
done
printf '\np99 figures: the median of %d runs; read ÷ idle (read/idle ms) of each run: file_server %s; reverse_proxy %s\n' "$ROUNDS" "${RATIOS[file_server]}" "${RATIOS[reverse_proxy]}"
