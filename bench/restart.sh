#!/usr/bin/env bash
# Starts svc serve on a data folder, reports how long it took to be ready
# (/readyz answers 200, polled every 0.25 s) and its resident memory then,
# and stops it.
# Usage: bench/restart.sh SVC_BINARY DATA_FOLDER [PORT]
set -euo pipefail
bin=$1 data=$2 port=${3:-18095}
start=$(date +%s.%N)
"$bin" serve --data "$data" --addr "127.0.0.1:$port" --rate-limit 0 >"$data.serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
until curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do
	kill -0 "$pid" || { cat "$data.serve.log"; exit 1; }
	sleep 0.25 # a curl every 20 ms cost a third of a core and slowed the rebuild it timed
done
ready=$(date +%s.%N)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
printf 'ready in %.2f s; RSS %d MiB (peak %d MiB)\n' "$(echo "$ready - $start" | bc)" $((rss / 1024)) $((hwm / 1024))
grep -o 'msg="counts rebuilt".*' "$data.serve.log" || true
