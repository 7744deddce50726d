#!/usr/bin/env bash
# CPU per collection (fabricd) against CPU per scrape (node_exporter's infiniband collector) on the
# same snapshot. fabricd collects every INTERVAL on its own and is not scraped; node_exporter
# reads sysfs on every scrape and is scraped every INTERVAL. Both run for DURATION seconds; the CPU
# time (utime+stime of /proc/<pid>/stat) spent after a warm-up, divided by the number of
# collections or scrapes, is what one costs. Also: RSS at the end, and fabricd's idle CPU share.
#
#   bench/cpu-compare.sh [SNAPSHOT_DIR] [DURATION] [INTERVAL_MS]     (defaults host-a-ib 60 250)
#
# WARMUP=seconds before the window (default 10). The JIT (C1 only) compiles a method called once
# per collection after several hundred calls: at 250 ms a 30 s warm-up leaves part of the window
# interpreted and compiling ("early"); WARMUP=300 (1 200 collections) measures the steady state a
# long-running agent is in (docs/benchmarks.md). DISABLED=comma-separated collectors fabricd does
# not run. SCRAPE_FABRICD=1 scrapes fabricd's /metrics too, once per INTERVAL, as Prometheus would: with fabricd's default 10 s interval and a 15 s scrape
# that gives its CPU share in a real deployment (Pingmesh's budget: 0.26 % of a core):
#   FABRICD_INTERVAL_MS=10000 SCRAPE_FABRICD=1 bench/cpu-compare.sh SNAPSHOT 300 15000
#
# The demo host (8 NICs, 8 GPUs) as a folder: `bin/fabricd snapshot --demo --out /tmp/demo-snap`.
# With strace and a C compiler it also counts the files each reads per collection or scrape (5 s
# attached, after the CPU window; fabricd's kept-open files from /proc/PID/fd) and times
# bench/read-floor.c opening, reading and closing those same files (re-reading the kept ones
# through open descriptors): what the reads alone cost on this machine, in C, with nothing else.
# Needs: curl, prometheus-node-exporter, the fabricd jar (built if missing). Results: stdout; record
# them in docs/benchmarks.md with the machine, the command and the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
snap=$(realpath "${1:-collectors/src/test/fixtures/host-a-ib}")
dur=${2:-60}; ms=${3:-250}
fport=19550; nport=19150
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
command -v prometheus-node-exporter >/dev/null || { echo "apt-get install prometheus-node-exporter" >&2; exit 2; }
work=$(mktemp -d)
printf 'collection:\n  interval: %dms\n' "${FABRICD_INTERVAL_MS:-$ms}" > "$work/fabricd.yaml"
# DISABLED=host,netdev,... : collectors fabricd does not run (collection.disabled_collectors); with
# every one but rdma it reads what node_exporter's infiniband collector reads (and hw_counters)
[ -n "${DISABLED:-}" ] && printf '  disabled_collectors: [%s]\n' "$DISABLED" >> "$work/fabricd.yaml"
# IDENTITY_REFRESH=0s: nothing kept between collections (StableReads off), to weigh what it saves
[ -n "${IDENTITY_REFRESH:-}" ] && printf '  identity_refresh: %s\n' "$IDENTITY_REFRESH" >> "$work/fabricd.yaml"
# FABRICD_LAUNCHER: another bin/fabricd (an older commit's flags, with FABRICD_JAR its jar)
"${FABRICD_LAUNCHER:-bin/fabricd}" run --root "$snap" --config "$work/fabricd.yaml" --listen 127.0.0.1:$fport > "$work/fabricd.log" 2>&1 &
fpid=$!
prometheus-node-exporter --path.sysfs="$snap/sys" --collector.disable-defaults --collector.infiniband \
  --web.listen-address=127.0.0.1:$nport > "$work/ne.log" 2>&1 &
npid=$!
trap 'kill $fpid $npid 2>/dev/null || true; rm -rf "$work"' EXIT
until curl -sf -o /dev/null http://127.0.0.1:$fport/readyz; do sleep 0.05; done
until curl -sf -o /dev/null http://127.0.0.1:$nport/metrics; do sleep 0.05; done
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
count() { curl -s "http://127.0.0.1:$fport/metrics?name[]=fabric_agent_collection_seconds" | awk '/^fabric_agent_collection_seconds_count/ {print int($2)}'; }
sleep "${WARMUP:-10}"   # warm-up: JIT, first collections (WARMUP seconds)

f0=$(cpu $fpid); n0=$(cpu $npid); c0=$(count)
end=$(( $(date +%s) + dur )); scrapes=0
while [ "$(date +%s)" -lt "$end" ]; do
  curl -s -o /dev/null http://127.0.0.1:$nport/metrics; scrapes=$((scrapes + 1))
  [ "${SCRAPE_FABRICD:-0}" = 1 ] && curl -s -o /dev/null http://127.0.0.1:$fport/metrics
  sleep "$(awk -v m="$ms" 'BEGIN {print m / 1000}')"
done
f1=$(cpu $fpid); n1=$(cpu $npid); c1=$(count)
collections=$(( c1 - c0 - 1 ))   # the count scrape itself is not a collection; -1 for the boundary
awk -v f=$((f1 - f0)) -v n=$((n1 - n0)) -v c="$collections" -v s="$scrapes" -v t="$tick" -v d="$dur" 'BEGIN {
  printf "fabricd:       %d collections, %.2f ms CPU per collection (%.2f %% of a core at this rate)\n", c, f * 1000 / t / c, f * 100 / t / d
  printf "node_exporter: %d scrapes,     %.2f ms CPU per scrape     (%.2f %% of a core at this rate)\n", s, n * 1000 / t / s, n * 100 / t / d
}'
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/"$1"/status; }
echo "RSS: fabricd $(rss $fpid), node_exporter $(rss $npid)"
command -v strace >/dev/null && command -v cc >/dev/null || { echo "(strace or cc missing: no file counts)"; exit 0; }
cc -O2 -o "$work/read-floor" bench/read-floor.c
opened() { grep -o "\"$snap/[^\"]*\"" "$1" | tr -d '"' | grep -v -e '/$' > "$2" || true; }
strace -f -qq -e trace=openat -o "$work/f.strace" -p $fpid & spid=$!
sleep 1; c0=$(count); sleep 5; c1=$(count); kill $spid; wait $spid 2>/dev/null || true
fc=$(( c1 - c0 - 1 ))
strace -f -qq -e trace=openat -o "$work/n.strace" -p $npid & spid=$!
sleep 1; for i in 1 2 3 4 5; do curl -s -o /dev/null http://127.0.0.1:$nport/metrics; done; sleep 0.5; kill $spid; wait $spid 2>/dev/null || true
opened "$work/f.strace" "$work/f.list"; opened "$work/n.strace" "$work/n.list"
# one collection's (one scrape's) files: each file a collection reads is opened once per collection
# (checked: every path the same number of times in the window), so the distinct paths are one's
one() { sort -u "$1" > "$2"; wc -l < "$2"; }
fn=$(one "$work/f.list" "$work/f.one"); nn=$(one "$work/n.list" "$work/n.one")
# files fabricd keeps open between collections (collection.max_open_files): read again with
# lseek + read, so strace's openat does not see them; /proc/PID/fd names them
for fd in /proc/$fpid/fd/*; do readlink "$fd"; done 2>/dev/null | grep "^$snap/" | sort -u > "$work/f.kept" || true
comm -23 "$work/f.one" "$work/f.kept" > "$work/f.opened"
fk=$(wc -l < "$work/f.kept"); fo=$(wc -l < "$work/f.opened")
echo "files read: fabricd $((fo + fk)) per collection ($fo opened, $fk kept open), node_exporter $nn opened per scrape (strace, 5 s)"
echo "those reads alone, in C (bench/read-floor.c): fabricd $("$work/read-floor" "$work/f.opened" 50) + $("$work/read-floor" "$work/f.kept" 50 kept), node_exporter $("$work/read-floor" "$work/n.one" 50)"
