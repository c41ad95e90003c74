#!/usr/bin/env bash
# Measures svc on PostgreSQL with one and two nodes, beside the embedded
# store, in the same minutes; prints one line per run.
# Usage: bench/postgres.sh [DURATION] (default 10s). Needs wrk, psql and a
# PostgreSQL at 127.0.0.1:5432 where the current user may create databases.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${1:-10s}
DB=svcbench_$$
STORE="postgres://$(id -un)@127.0.0.1:5432/$DB?sslmode=disable"
BIN=$(mktemp -d)/svc
DATA=$(mktemp -d)
go build -o "$BIN" ./cmd/svc
psql -q -h 127.0.0.1 -d postgres -c "CREATE DATABASE $DB"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q -h 127.0.0.1 -d postgres -c "DROP DATABASE IF EXISTS $DB" || true
  rm -rf "$DATA" "$(dirname "$BIN")"
}
trap cleanup EXIT

brand() { "$BIN" brands add "$@" --name Bench --json | python3 -c 'import sys,json;print(json.load(sys.stdin)["brand_id"])'; }
start() { # start ADDR STORE-FLAGS...: a node, in the background
  local addr=$1; shift
  "$BIN" serve --addr "$addr" --rate-limit 0 "$@" >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do curl -fs "http://$addr/healthz" >/dev/null && return; sleep 0.1; done
  echo "node $addr did not start" >&2; exit 1
}
# CPU seconds used so far by the processes of a user (PostgreSQL's) or a pid list.
cpu_of() { local t=0; for p in "$@"; do [ -r /proc/$p/stat ] && t=$((t + $(awk '{print $14+$15}' /proc/$p/stat))); done; echo "$t"; }
pg_cpu() { cpu_of $(pgrep -u postgres); }
pg_stats() { psql -h 127.0.0.1 -d "$DB" -Atc "SELECT xact_commit, tup_inserted, tup_updated, pg_current_wal_lsn() - '0/0' FROM pg_stat_database WHERE datname = '$DB'"; }
# wrk SCRIPT BRAND URL...: one wrk per node at once, 64 connections in all; prints the summed req/s and the worst p99.
load() {
  local script=$1 brand=$2; shift 2
  local c=$((64 / $#)) outs=() w=()
  for u in "$@"; do
    local o; o=$(mktemp); outs+=("$o")
    wrk -t1 -c"$c" -d"$D" --latency -s "bench/$script" "$u" -- "$brand" >"$o" &
    w+=($!)
  done
  wait "${w[@]}"
  python3 - "${outs[@]}" <<'PY'
import sys,re
rps=0; p99=0
for f in sys.argv[1:]:
    t=open(f).read()
    rps+=float(re.search(r'Requests/sec:\s+([\d.]+)',t).group(1))
    m=re.search(r'99%\s+([\d.]+)(us|ms|s)',t); v=float(m.group(1))*{'us':0.001,'ms':1,'s':1000}[m.group(2)]
    p99=max(p99,v)
    if 'Non-2xx' in t: print('non-2xx answers in',f,file=sys.stderr)
print(f"{rps:.0f} req/s, p99 {p99:.1f} ms")
PY
  rm -f "${outs[@]}"
}
secs() { echo "${D%s}"; }

run_pg() { # run_pg LABEL SCRIPT URL...: a view run, with the database's load
  local label=$1 script=$2; shift 2
  local c0 s0 n0 c1 s1 n1
  c0=$(pg_cpu); s0=$(pg_stats); n0=$(cpu_of "${pids[@]}")
  local r; r=$(load "$script" "$B" "$@")
  c1=$(pg_cpu); s1=$(pg_stats); n1=$(cpu_of "${pids[@]}")
  python3 - "$label" "$r" "$(secs)" "$c0" "$c1" "$s0" "$s1" "$n0" "$n1" "$#" <<'PY'
import sys
label,r,d,c0,c1,s0,s1,n0,n1,nodes=sys.argv[1:]
d=float(d); a=[int(x) for x in s0.split('|')]; b=[int(x) for x in s1.split('|')]
print(f"{label}: {r}; PostgreSQL {(int(c1)-int(c0))/100/d:.2f} CPU, {(b[0]-a[0])/d:.0f} commits/s, "
      f"{(b[1]-a[1])/d:.0f} rows inserted/s, {(b[2]-a[2])/d:.0f} updated/s, WAL {(b[3]-a[3])/d/1e6:.1f} MB/s; "
      f"svc {(int(n1)-int(n0))/100/d:.2f} CPU over {nodes} node(s)")
PY
}

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The embedded store, for comparison.
E=$(brand --data "$DATA")
start 127.0.0.1:18290 --data "$DATA"
echo "embedded, 1 node, views (view.lua): $(load view.lua "$E" http://127.0.0.1:18290)"
echo "embedded, 1 node, views (view-steady.lua): $(load view-steady.lua "$E" http://127.0.0.1:18290)"
echo "embedded, 1 node, proofs: $(load proof.lua "$E" http://127.0.0.1:18290)"
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()

B=$(brand --store "$STORE")
# What idle nodes cost the database: the change feed and the polls.
start 127.0.0.1:18291 --store "$STORE"
start 127.0.0.1:18292 --store "$STORE"
sleep 2; c0=$(pg_cpu); sleep 10; c1=$(pg_cpu)
echo "postgres, 2 idle nodes: PostgreSQL $(( c1 - c0 )) centiseconds of CPU in 10 s"
kill "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true; pids=("${pids[0]}")

for script in view.lua view-steady.lua; do
  run_pg "postgres, 1 node, views ($script)" "$script" http://127.0.0.1:18291
done
echo "postgres, 1 node, proofs: $(load proof.lua "$B" http://127.0.0.1:18291)"
echo "postgres, 1 node: $(psql -h 127.0.0.1 -d "$DB" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = '$DB'") connections open"
start 127.0.0.1:18292 --store "$STORE"
for script in view.lua view-steady.lua; do
  run_pg "postgres, 2 nodes, views ($script)" "$script" http://127.0.0.1:18291 http://127.0.0.1:18292
done
echo "postgres, 2 nodes, proofs: $(load proof.lua "$B" http://127.0.0.1:18291 http://127.0.0.1:18292)"
echo "postgres: $(psql -h 127.0.0.1 -d "$DB" -Atc "SELECT count(*) FROM view_events") views stored"
for u in http://127.0.0.1:18291 http://127.0.0.1:18292; do
  echo "$u: $(curl -s "$u/metrics" | grep -E '^svc_store_batch_events_(sum|count)' | tr '\n' ' ')"
done
