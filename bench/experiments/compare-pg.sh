#!/bin/bash
# compare-pg.sh ROUNDS NAME=BINARY... : svc binaries on PostgreSQL against each other, in the same
# minutes. Each binary serves one node on a database of its own; each round runs the load
# generator's collect phase (64 connections, 8 s) against each node in turn. Prints per run the load
# average, req/s, p99, svc's CPU per request and PostgreSQL's CPU over the run. Needs what
# bench/postgres.sh needs (a PostgreSQL at 127.0.0.1:5432, its processes run by the user postgres).
set -eu
rounds=$1; shift
LOADGEN=${LOADGEN:-loadgen} D=${D:-8s}
port=18390; declare -A pids ports dbs bins
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in "${dbs[@]}"; do psql -q -h 127.0.0.1 -d postgres -c "DROP DATABASE IF EXISTS $db" || true; done
}
trap cleanup EXIT
pg_cpu() { local t=0; for p in $(pgrep -u postgres); do [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo "$t"; }
store() { echo "postgres://$(id -un)@127.0.0.1:5432/$1?sslmode=disable"; }
collect() { # NAME DURATION WARMUP [PREFILL]
  "$LOADGEN" -target "http://127.0.0.1:${ports[$1]}" -svc "${bins[$1]}" -store "$(store "${dbs[$1]}")" -brands-file "/tmp/compare-pg-$1.json" \
    -conns 64 -phases collect -no-baseline -prefill="${4:-false}" -duration "$2" -warmup "$3"
}
for nb in "$@"; do
  name=${nb%%=*} bin=${nb#*=} db=svccmp_${nb%%=*}_$$
  rm -f "/tmp/compare-pg-$name.json" # its brands were those of a database gone
  psql -q -h 127.0.0.1 -d postgres -c "CREATE DATABASE $db"
  "$bin" serve --addr 127.0.0.1:$port --rate-limit 0 --store "$(store "$db")" >"/tmp/compare-pg-$name.log" 2>&1 &
  pids[$name]=$! ports[$name]=$port dbs[$name]=$db bins[$name]=$bin; port=$((port+1))
  for _ in $(seq 300); do curl -sf "127.0.0.1:${ports[$name]}/readyz" >/dev/null && break; sleep 0.1; done
  collect "$name" 1s 0s >/dev/null # creates the brands, which the node sees within a second
  sleep 1.5
  collect "$name" 1s 0s true >/dev/null # a keyed view of every product: anonymous views create none
done
sleep 1
for r in $(seq "$rounds"); do
  for nb in "$@"; do
    name=${nb%%=*} pid=${pids[${nb%%=*}]}
    t0=$(awk '{print $14+$15}' /proc/$pid/stat) c0=$(pg_cpu) s0=$(date +%s.%N)
    out=$(collect "$name" "$D" 2s)
    t1=$(awk '{print $14+$15}' /proc/$pid/stat) c1=$(pg_cpu) s1=$(date +%s.%N)
    echo "$out" | awk -v n="$name" -v r="$r" -v la="$(cut -d' ' -f1 /proc/loadavg)" -v cpu=$((t1 - t0)) -v pg=$((c1 - c0)) -v s="$(echo "$s1 - $s0" | bc)" \
      '$1 == "svc" && $2 == "collect" && $3 == "all" { gsub(",", "", $5); req = $5 * s;
        printf "round %d %s: load %s, %s req/s, p99 %s ms, errors %s, svc %.0f CPU-µs a request, PostgreSQL %.2f CPU\n", r, n, la, $5, $8, $14, cpu * 1e4 / req, pg / 100 / s }'
  done
done
