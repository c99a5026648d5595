#!/usr/bin/env bash
# Compares the load benchmark of two commits side by side: the module as
# built from REV (default: the commit before HEAD) and as built from the
# working tree. Both binaries run the same scenarios, those of this
# checkout's bench/run.sh, one after the other on this machine; the table
# puts each target's figure for REV beside the figure now, with their
# ratio (now/REV), so that a change that costs throughput shows as a ratio
# under 1 on the lines it touches (over 1 on a p99 latency line).
#
# Usage: bench/compare.sh [REV]      (make bench-compare REV=... does the same)
#
# Environment: every BENCH_* variable of bench/run.sh applies to both runs.
# BENCH_COMPARE_KEEP=1 keeps the two full reports (paths printed at the end).
#
# The runs are sequential, so a machine whose speed drifts between them (a
# shared VM) moves every ratio alike: read the ratios against each other,
# and against the spread (+-) that each report gives, rather than against 1
# alone.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REV=${1:-HEAD~1}
GO=${GO:-go}

die() {
	echo "bench/compare: $*" >&2
	exit 1
}

base_commit=$(git -C "$ROOT" rev-parse --verify --quiet "$REV^{commit}") || die "$REV is not a commit of this repository"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/caddy-discovery-compare.XXXXXX")
cleanup() {
	git -C "$ROOT" worktree remove --force "$TMP/base" >/dev/null 2>&1 || true
	if [ "${BENCH_COMPARE_KEEP:-0}" = 1 ]; then
		rm -rf "$TMP/base"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "Building $REV ($(git -C "$ROOT" log -1 --format='%h %s' "$base_commit" | cut -c1-80))"
git -C "$ROOT" worktree add --detach --quiet "$TMP/base" "$base_commit"
(cd "$TMP/base" && "$GO" build -o "$TMP/caddy-base" ./cmd/caddy)
echo "Building the working tree ($(git -C "$ROOT" log -1 --format='%h' HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ', with changes'))"
(cd "$ROOT" && "$GO" build -o "$TMP/caddy-now" ./cmd/caddy)

echo "Measuring $REV (bench/run.sh, the log in $TMP/base.log)"
CADDY="$TMP/caddy-base" "$ROOT/bench/run.sh" >"$TMP/base.txt" 2>"$TMP/base.log" || die "the run of $REV failed: see $TMP/base.log (BENCH_COMPARE_KEEP=1 keeps it)"
echo "Measuring the working tree (the log in $TMP/now.log)"
CADDY="$TMP/caddy-now" "$ROOT/bench/run.sh" >"$TMP/now.txt" 2>"$TMP/now.log" || die "the run of the working tree failed: see $TMP/now.log"

# targets <report>: the lines of its Targets section, as
# "label<TAB>measure<TAB>value" (run.sh's target() prints fixed columns).
targets() {
	awk '/^Targets /{on=1; next} on && /^$/{exit} on {
		label=substr($0, 3, 52); measure=substr($0, 56, 22); value=substr($0, 79, 6)
		gsub(/ +$/, "", label); gsub(/ +$/, "", measure); gsub(/ /, "", value)
		print label "\t" measure "\t" value }' "$1"
}

echo
echo "Load benchmark, $REV ($(git -C "$ROOT" log -1 --format=%h "$base_commit")) beside the working tree, same scenarios (bench/run.sh):"
printf '  %-52s %-22s %8s %8s %7s\n' "" "" "$REV" "now" "now/rev"
paste <(targets "$TMP/base.txt") <(targets "$TMP/now.txt") | awk -F'\t' '{
	if ($1 != $4 || $2 != $5) { printf "  the reports differ at %s %s / %s %s\n", $1, $2, $4, $5; next }
	r = ($3 + 0 > 0) ? sprintf("%.2f", $6 / $3) : "-"
	printf "  %-52s %-22s %8s %8s %7s\n", $1, $2, $3, $6, r }'
echo "  (a ratio of two rates under 1, or of two p99 latencies over 1, is the working tree doing worse)"
if [ "${BENCH_COMPARE_KEEP:-0}" = 1 ]; then
	echo "The full reports: $TMP/base.txt and $TMP/now.txt"
fi
