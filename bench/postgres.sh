#!/usr/bin/env bash
# The PostgreSQL figures of bench/RESULTS.md, with the load generator's collect
# mix (80:2 views to purchases, 64 connections):
#   1. one node on PostgreSQL against the embedded store, in alternating rounds,
#      so that both meet the same machine; the ratio of the medians;
#   2. what two idle nodes cost the database (the change feed and the polls);
#   3. two nodes on one database, each driven by its own load generator with
#      half the connections: the summed rate.
# Beside each PostgreSQL run: the database's CPU, commits, rows and WAL per second.
# Usage: bench/postgres.sh [ROUNDS] [DURATION] (default 3 rounds of 8s). Needs
# psql and a PostgreSQL at 127.0.0.1:5432 where the current user may create
# databases; the database server's processes must run as the user postgres.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
D=${2:-8s}
DB=svcbench_$$
STORE="postgres://$(id -un)@127.0.0.1:5432/$DB?sslmode=disable"
TMP=$(mktemp -d)
go build -o "$TMP/svc" ./cmd/svc
go build -C bench -o "$TMP/loadgen" ./loadgen # bench/ is a module of its own
psql -q -h 127.0.0.1 -d postgres -c "CREATE DATABASE $DB"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q -h 127.0.0.1 -d postgres -c "DROP DATABASE IF EXISTS $DB" || true
  rm -rf "$TMP"
}
trap cleanup EXIT

start() { # start ADDR STORE-FLAGS...: a node, in the background
  local addr=$1; shift
  "$TMP/svc" serve --addr "$addr" --rate-limit 0 "$@" >"$TMP/$addr.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do curl -fs "http://$addr/readyz" >/dev/null && return; sleep 0.1; done
  echo "svc at $addr did not start" >&2; cat "$TMP/$addr.log" >&2; exit 1
}
# collect ADDR BRANDS CONNS STORE-FLAG VALUE: one collect phase; prints "N req/s, p99 X ms, E errors".
# PREFILL=true sends a keyed view of every product first: anonymous views may not create
# products past --anon-new-products-per-address, and the 429s would count as answers.
collect() {
  "$TMP/loadgen" -target "http://$1" -svc "$TMP/svc" "$4" "$5" -brands-file "$2" -conns "$3" \
    -phases collect -no-baseline -prefill="${PREFILL:-false}" -duration "$D" -warmup 2s |
    awk '$1 == "svc" && $2 == "collect" && $3 == "all" { gsub(",", "", $5); print $5 " req/s, p99 " $8 " ms, " $14 " errors" }'
}
# CPU centiseconds used so far by PostgreSQL's processes.
pg_cpu() { local t=0; for p in $(pgrep -u postgres); do [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo "$t"; }
pg_stats() { psql -h 127.0.0.1 -d "$DB" -Atc "SELECT xact_commit, tup_inserted, tup_updated, pg_current_wal_lsn() - '0/0' FROM pg_stat_database WHERE datname = '$DB'"; }
# with_db CMD...: runs CMD and prints its output, then the database's work per second meanwhile.
with_db() {
  local c0 s0 t0 c1 s1 t1 out
  c0=$(pg_cpu); s0=$(pg_stats); t0=$(date +%s.%N)
  out=$("$@")
  c1=$(pg_cpu); s1=$(pg_stats); t1=$(date +%s.%N)
  python3 - "$out" "$c0" "$c1" "$s0" "$s1" "$t0" "$t1" <<'PY'
import sys
out, c0, c1, s0, s1, t0, t1 = sys.argv[1:]
d = float(t1) - float(t0)
a = [int(x) for x in s0.split('|')]; b = [int(x) for x in s1.split('|')]
print(f"{out}; PostgreSQL {(int(c1)-int(c0))/100/d:.2f} CPU, {(b[0]-a[0])/d:.0f} commits/s, "
      f"{(b[1]-a[1])/d:.0f} rows inserted/s, {(b[2]-a[2])/d:.0f} updated/s, WAL {(b[3]-a[3])/d/1e6:.1f} MB/s "
      f"(averaged over the run, warm-up included)")
PY
}

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
start 127.0.0.1:18490 --data "$TMP/data"
start 127.0.0.1:18491 --store "$STORE"
# The first runs create the brands, which the servers see within a second.
D=1s collect 127.0.0.1:18490 "$TMP/embedded.json" 64 -data "$TMP/data" >/dev/null
D=1s collect 127.0.0.1:18491 "$TMP/postgres.json" 64 -store "$STORE" >/dev/null
sleep 1.5
D=1s PREFILL=true collect 127.0.0.1:18490 "$TMP/embedded.json" 64 -data "$TMP/data" >/dev/null
D=1s PREFILL=true collect 127.0.0.1:18491 "$TMP/postgres.json" 64 -store "$STORE" >/dev/null
emb=() pg=()
for i in $(seq 1 "$ROUNDS"); do
  e=$(collect 127.0.0.1:18490 "$TMP/embedded.json" 64 -data "$TMP/data")
  p=$(with_db collect 127.0.0.1:18491 "$TMP/postgres.json" 64 -store "$STORE")
  echo "round $i: embedded $e; postgres, 1 node: $p"
  emb+=("${e%% *}") pg+=("${p%% *}")
done
python3 - "${emb[*]}" "${pg[*]}" <<'PY'
import statistics, sys
e = [float(x) for x in sys.argv[1].split()]
p = [float(x) for x in sys.argv[2].split()]
me, mp = statistics.median(e), statistics.median(p)
print(f"median: embedded {me:.0f} req/s, postgres {mp:.0f} req/s: postgres at {100*mp/me:.0f}% of embedded "
      f"(per round {min(b/a for a, b in zip(e, p))*100:.0f} to {max(b/a for a, b in zip(e, p))*100:.0f}%)")
PY
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=("${pids[1]}")

start 127.0.0.1:18492 --store "$STORE"
sleep 2; c0=$(pg_cpu); sleep 10; c1=$(pg_cpu)
echo "postgres, 2 idle nodes: PostgreSQL $((c1 - c0)) centiseconds of CPU in 10 s"

two_nodes() {
  collect 127.0.0.1:18491 "$TMP/postgres.json" 32 -store "$STORE" >"$TMP/n1" &
  local a=$!
  collect 127.0.0.1:18492 "$TMP/postgres.json" 32 -store "$STORE" >"$TMP/n2"
  wait "$a"
  awk '{ r += $1; if ($4 + 0 > p + 0) p = $4 } END { printf "%.0f req/s, worst p99 %s ms", r, p }' "$TMP/n1" "$TMP/n2"
}
for i in $(seq 1 "$ROUNDS"); do
  echo "round $i: postgres, 2 nodes: $(with_db two_nodes)"
done
for u in 127.0.0.1:18491 127.0.0.1:18492; do
  echo "$u: $(curl -s "http://$u/metrics" | grep -E '^svc_store_batch_events_(sum|count)' | tr '\n' ' ')"
done
