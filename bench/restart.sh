#!/usr/bin/env bash
# Starts svc serve on a data folder, reports how long it took to be ready
# (/readyz answers 200, polled every 0.25 s) and its resident memory then,
# and stops it (SIGTERM: a clean stop, which saves the counts snapshot).
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
# user + system CPU so far, which another process on the machine slows less than the wall time
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$pid/stat")
printf 'ready in %.2f s, %s CPU-seconds; RSS %d MiB (peak %d MiB); load average %s\n' "$(echo "$ready - $start" | bc)" "$cpu" \
	$((rss / 1024)) $((hwm / 1024)) "$(cut -d' ' -f1-3 /proc/loadavg)"
grep -o 'msg="counts rebuilt".*\|msg="counts restored.*\|msg="snapshot ignored.*' "$data.serve.log" || true
