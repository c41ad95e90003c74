#!/usr/bin/env bash
# Compares the collect rate of one node on PostgreSQL with the embedded
# store's, with the load generator's collect mix (80:2 views to purchases),
# in alternating runs minutes apart, so both meet the same machine. Prints
# each run and the ratio of the medians.
# Usage: bench/stores.sh [ROUNDS] [DURATION] (default 3 rounds of 8s). Needs
# psql and a PostgreSQL at 127.0.0.1:5432 where the current user may create
# databases.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
D=${2:-8s}
DB=svcstores_$$
STORE="postgres://$(id -un)@127.0.0.1:5432/$DB?sslmode=disable"
TMP=$(mktemp -d)
go build -o "$TMP/svc" ./cmd/svc
go build -o "$TMP/loadgen" ./bench/loadgen
psql -q -h 127.0.0.1 -d postgres -c "CREATE DATABASE $DB"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q -h 127.0.0.1 -d postgres -c "DROP DATABASE IF EXISTS $DB" || true
  rm -rf "$TMP"
}
trap cleanup EXIT

start() { # start ADDR STORE-FLAGS...
  local addr=$1; shift
  "$TMP/svc" serve --addr "$addr" --rate-limit 0 "$@" >"$TMP/$addr.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do curl -fs "http://$addr/readyz" >/dev/null && return; sleep 0.1; done
  echo "svc at $addr did not start" >&2; cat "$TMP/$addr.log" >&2; exit 1
}
collect() { # collect ADDR BRANDS STORE-FLAG VALUE: prints the collect req/s of one run
  "$TMP/loadgen" -target "http://$1" -svc "$TMP/svc" "$3" "$4" -brands-file "$2" \
    -phases collect -no-baseline -prefill=false -duration "$D" -warmup 2s |
    awk '$1 == "svc" && $2 == "collect" && $3 == "all" { gsub(",", "", $5); print $5 }'
}

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
start 127.0.0.1:18490 --data "$TMP/data"
start 127.0.0.1:18491 --store "$STORE"
emb=() pg=()
for i in $(seq 1 "$ROUNDS"); do
  e=$(collect 127.0.0.1:18490 "$TMP/embedded.json" -data "$TMP/data")
  p=$(collect 127.0.0.1:18491 "$TMP/postgres.json" -store "$STORE")
  echo "round $i: embedded $e req/s, postgres $p req/s"
  emb+=("$e") pg+=("$p")
done
python3 - "${emb[*]}" "${pg[*]}" <<'PY'
import statistics, sys
e = [float(x) for x in sys.argv[1].split()]
p = [float(x) for x in sys.argv[2].split()]
me, mp = statistics.median(e), statistics.median(p)
print(f"median: embedded {me:.0f} req/s, postgres {mp:.0f} req/s: postgres at {100*mp/me:.0f}% of embedded "
      f"(per round {min(b/a for a, b in zip(e, p))*100:.0f} to {max(b/a for a, b in zip(e, p))*100:.0f}%)")
PY
