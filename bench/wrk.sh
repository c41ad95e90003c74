#!/usr/bin/env bash
# Measures svc against the baselines with wrk, as an outside measurement
# would: alternating rounds of the durable baseline's and svc's single views,
# their batches of 100 views, and the read baseline's and svc's proof reads,
# each with wrk -t2 -c64. It prints each run's rate and the medians of the
# rounds' ratios (bench/RESULTS.md). wrk is Debian's package (apt-get install wrk);
# its requests come from pools drawn once per thread (bench/wrk/*.lua).
#
# Usage: bench/wrk.sh SVC_URL LOADGEN_BINARY DATA_FOLDER BRANDS_FILE [ROUNDS] [DURATION]
# SVC_URL serves DATA_FOLDER; BRANDS_FILE is loadgen's (-brands-file), after a
# loadgen run on the same folder created the brands and a view of each product.
set -euo pipefail
svc=$1 loadgen=$2 data=$3 brands=$4 rounds=${5:-3} duration=${6:-8s}
here=$(cd "$(dirname "$0")" && pwd)
export WRK_DIR=$here/wrk WRK_BRANDS=$brands

# The baselines, in their own process, on svc's disk; they stop when their
# standard input closes.
log=$data/wrk-durable.log
: >"$log"
coproc BASELINE { "$loadgen" -serve-baseline "$log"; }
trap 'exec {BASELINE[1]}>&-; wait; rm -f "$log"' EXIT
read -r _ read_baseline durable_baseline <&"${BASELINE[0]}"

# rate URL SCRIPT prints the requests a second wrk reached, and fails on
# any answer that is not 2xx (an error is no rate).
rate() {
	local out
	out=$(wrk -t2 -c64 -d"$duration" -s "$here/wrk/$2.lua" "$1")
	if grep -q 'Non-2xx' <<<"$out"; then
		echo "$1 $2: $(grep 'Non-2xx' <<<"$out")" >&2
		return 1
	fi
	awk '/^Requests\/sec/ {print $2}' <<<"$out"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: >"$data/wrk-ratios"
for ((i = 1; i <= rounds; i++)); do
	dv=$(rate "http://$durable_baseline" view)
	sv=$(rate "$svc" view)
	db=$(rate "http://$durable_baseline" batch)
	sb=$(rate "$svc" batch)
	rb=$(rate "http://$read_baseline" proof)
	sp=$(rate "$svc" proof)
	printf 'round %d: views %s (durable baseline %s); batches %s (%s); proofs %s (read baseline %s) a second\n' \
		"$i" "$sv" "$dv" "$sb" "$db" "$sp" "$rb"
	echo "$sv $dv $sb $db $sp $rb" >>"$data/wrk-ratios"
done
echo "over $rounds rounds, medians:"
printf '  collect / durable baseline:          %.3f (target >= 0.90)\n' "$(awk '{print $1 / $2}' "$data/wrk-ratios" | median)"
printf '  batch events / svc single views:     %.2fx (target >= 10x)\n' "$(awk '{print $3 * 100 / $1}' "$data/wrk-ratios" | median)"
printf '  the durable baseline'"'"'s own, likewise: %.2fx\n' "$(awk '{print $4 * 100 / $2}' "$data/wrk-ratios" | median)"
printf '  proof / read baseline:               %.3f (target >= 0.85)\n' "$(awk '{print $5 / $6}' "$data/wrk-ratios" | median)"
rm -f "$data/wrk-ratios"
