#!/usr/bin/env bash
# Figures for svc backup and for the recount after svc forget: fills a store
# with the load generator's collect mix, then, while the load generator keeps
# sending, backs the store up and erases one session, which makes the server
# recount. Prints the fill rate, the backup's time and size, the load's rate
# and latency during both, and the recount's time from the server's log.
# Usage: bench/data.sh [FILL_SECONDS] (default 30; run from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
fill=${1:-30}
addr=127.0.0.1:18390
dir=$(mktemp -d)
go build -o "$dir/svc" ./cmd/svc
go build -C bench -o "$dir/loadgen" ./loadgen # bench/ is a module of its own
"$dir/svc" serve --data "$dir/data" --addr "$addr" --rate-limit 0 >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 300); do curl -fs "http://$addr/readyz" >/dev/null && break; sleep 0.1; done
load() { # load LOADGEN-FLAGS...: collect phases against the server; prints svc's rows
  "$dir/loadgen" -target "http://$addr" -svc "$dir/svc" -data "$dir/data" -brands-file "$dir/brands.json" \
    -no-baseline -prefill=false -phases collect -warmup 0s "$@" |
    awk '$1 == "phase" || ($1 == "svc" && $2 == "collect")'
}

load -duration 1s >/dev/null # creates the brands; the server sees them within a second
sleep 1
echo "== fill: ${fill} s of the collect mix, 64 connections"
load -duration "${fill}s"

echo "== backup and forget while the load generator sends (32 connections, 20 s)"
load -conns 32 -duration 20s >"$dir/load" &
w=$!
sleep 4
/usr/bin/time -f "backup took %e s" "$dir/svc" backup --data "$dir/data" --to "$dir/copy.db"
ls -l "$dir/copy.db" | awk '{print "copy: " $5 " bytes"}'
sleep 4
# a session that has events: the first one in the first brand's export
brand=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["brand_id"])' "$dir/brands.json")
"$dir/svc" export --data "$dir/data" --brand "$brand" --out "$dir/export.jsonl"
session=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["context"]["session_id"])' "$dir/export.jsonl")
"$dir/svc" forget --data "$dir/data" --brand "$brand" --session "$session"
wait $w
cat "$dir/load"
grep -E 'recounted after an erasure' "$dir/log" || echo "no recount logged" >&2
