#!/bin/bash
# compare.sh ROUNDS NAME=BINARY... : measures svc binaries against each other in the same minutes.
# Starts one server per binary, each on its own copy of SEED (a data folder the load generator has
# prefilled, with its BRANDS file), warms each with one collect phase (the writer's product cache),
# then runs PHASES (default collect,proof,half) with their baselines (the durable one's log in OUT,
# beside the servers' data) against each binary in turn,
# ROUNDS times. Prints per run the load average, svc's CPU per request over the run (from /proc,
# user + system, over every svc phase's requests) and the ratio lines; the full output goes to
# OUT/NAME.txt.
# Pinned (bench/RESULTS.md, Method): SVC_CPUS=1 GEN_CPUS=0 runs the servers with taskset -c 1, the
# generator with taskset -c 0, and the baselines on SVC_CPUS.
set -eu
rounds=$1; shift
: "${SEED:?a prefilled data folder}" "${BRANDS:?its brands file}"
LOADGEN=${LOADGEN:-loadgen} PHASES=${PHASES:-collect,proof,half} OUT=${OUT:-/tmp/compare}
svc_pin=() gen_pin=() base_pin=()
if [ -n "${SVC_CPUS:-}" ]; then svc_pin=(taskset -c "$SVC_CPUS"); base_pin=(-baseline-cpus "$SVC_CPUS"); fi
if [ -n "${GEN_CPUS:-}" ]; then gen_pin=(taskset -c "$GEN_CPUS"); fi
mkdir -p "$OUT"
port=18290; declare -A pids ports
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
for nb in "$@"; do
  name=${nb%%=*} bin=${nb#*=}
  rm -rf "$OUT/data-$name"; cp -r "$SEED" "$OUT/data-$name"; rm -f "$OUT/data-$name/serve.lock"
  "${svc_pin[@]}" "$bin" serve --data "$OUT/data-$name" --addr 127.0.0.1:$port --rate-limit 0 >"$OUT/$name.log" 2>&1 &
  pids[$name]=$!; ports[$name]=$port; port=$((port+1))
done
for nb in "$@"; do
  name=${nb%%=*}
  for _ in $(seq 150); do curl -sf "127.0.0.1:${ports[$name]}/readyz" >/dev/null && break; sleep 0.2; done
  "$LOADGEN" -target "http://127.0.0.1:${ports[$name]}" -brands-file "$BRANDS" -prefill=false -no-baseline \
    -duration 8s -warmup 0s -phases collect >/dev/null
done
for r in $(seq "$rounds"); do
  for nb in "$@"; do
    name=${nb%%=*} pid=${pids[${nb%%=*}]}
    t0=$(awk '{print $14+$15}' /proc/$pid/stat)
    out=$("${gen_pin[@]}" "$LOADGEN" -target "http://127.0.0.1:${ports[$name]}" -brands-file "$BRANDS" -prefill=false \
      "${base_pin[@]}" -durable-dir "$OUT" -duration 8s -warmup 2s -phases "$PHASES")
    t1=$(awk '{print $14+$15}' /proc/$pid/stat)
    echo "$out" >>"$OUT/$name.txt"
    reqs=$(echo "$out" | awk '$1=="svc" {for (i=2; i<NF; i++) if ($i=="all" || $i=="product-proof") {gsub(",","",$(i+1)); n+=$(i+1)}} END {print n+0}')
    echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) round $r $name: svc CPU $(( (t1-t0)*1000000/$(getconf CLK_TCK)/(reqs>0?reqs:1) )) µs/request"
    echo "$out" | grep -E '% of baseline|highest rate|/s +at ' | sed 's/^/    /'
  done
done
