#!/usr/bin/env bash
# Figures for svc backup and for the recount after svc forget, on a store filled
# with anonymous views by wrk, while wrk keeps sending.
# Usage: bench/data.sh [FILL_SECONDS]   (needs wrk and python3; run from the repository)
set -euo pipefail
fill=${1:-30}
dir=$(mktemp -d)
go build -o "$dir/svc" ./cmd/svc
mkdir "$dir/data" # admin commands use only a folder that exists
brand=$("$dir/svc" brands add --data "$dir/data" --name Bench --json | python3 -c 'import sys,json;print(json.load(sys.stdin)["brand_id"])')
"$dir/svc" serve --data "$dir/data" --addr 127.0.0.1:0 --rate-limit 0 2>"$dir/log" >"$dir/out" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
until grep -q "listening on" "$dir/out"; do kill -0 $pid; sleep 0.1; done
url=$(sed -n 's/^svc listening on //p' "$dir/out")

echo "== fill: ${fill}s of views"
wrk -t2 -c64 -d${fill}s -s bench/view.lua $url -- "$brand" | grep -E "Requests/sec|requests in"

echo "== backup and forget while wrk sends (32 connections, 20 s)"
wrk -t2 -c32 -d20s --latency -s bench/view.lua $url -- "$brand" >"$dir/wrk" &
w=$!
sleep 4
/usr/bin/time -f "backup took %e s" "$dir/svc" backup --data "$dir/data" --to "$dir/copy.db"
ls -l "$dir/copy.db" | awk '{print "copy: " $5 " bytes"}'
sleep 4
"$dir/svc" forget --data "$dir/data" --brand "$brand" --session s42
wait $w
grep -E "Requests/sec|Latency|99%|Max" "$dir/wrk" || true
grep -E "counts rebuilt|recounted" "$dir/log"
