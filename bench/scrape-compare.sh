#!/usr/bin/env bash
# Serves one snapshot through fabricd and through node_exporter's infiniband collector (Debian's
# prometheus-node-exporter, --path.sysfs) on this machine and compares scrape latency (new
# connection and keep-alive: median, p90, p99), response size, series count and RSS. The targets'
# scrapes alternate (one, then the other, and again), so that both meet the same load on a shared
# machine.
#
#   bench/scrape-compare.sh [SNAPSHOT_DIR] [SCRAPES]
#
# Default snapshot: collectors/src/test/fixtures/host-a-ib; default 500 scrapes per mode.
# GZIP=1 adds a kept-alive mode asking for gzip (Accept-Encoding: gzip), as Prometheus asks.
# BEFORE=LAUNCHER also serves the snapshot with another bin/fabricd (an older build's copy, with its
# jar beside it: git worktree add, or a copy of bin/, packaging/ and agent/target/), as "before".
# BACK_TO_BACK=N adds, per target on its own (the others idle), N kept-alive scrapes after N warm-up
# ones, with the CPU the target spent per scrape (/proc/PID/stat): a warm JIT and warm caches.
# LONE=N adds N lone scrapes per mode, LONE_GAP seconds apart (default 1.1; bench/lone-scrape.py),
# plain and gzip-compressed: what a Prometheus scrape every 15 s finds. FABRICD_INTERVAL_MS sets fabricd's collection interval
# (default 10000, fabricd's own); FABRICD_INTERVAL_MS=1000 LONE=30 LONE_GAP=1.5 has each lone scrape
# meet a new collection, as a 10 s interval and a 15 s scrape do, in a tenth of the time.
# Needs: curl, prometheus-node-exporter, the fabricd jar (built if missing). Results: stdout;
# record them in docs/benchmarks.md with the machine, the command and the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
snap=$(realpath "${1:-collectors/src/test/fixtures/host-a-ib}")
n=${2:-500}
fport=19530; nport=19100
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
command -v prometheus-node-exporter >/dev/null || { echo "apt-get install prometheus-node-exporter" >&2; exit 2; }

cfg=$(mktemp)
printf 'collection:\n  interval: %dms\n' "${FABRICD_INTERVAL_MS:-10000}" > "$cfg"
bin/fabricd run --root "$snap" --config "$cfg" --listen 127.0.0.1:$fport > /tmp/bench-fabricd.log 2>&1 &
fpid=$!
bpid=
if [ -n "${BEFORE:-}" ]; then
  "$BEFORE" run --root "$snap" --config "$cfg" --listen 127.0.0.1:$((fport + 1)) > /tmp/bench-before.log 2>&1 &
  bpid=$!
fi
prometheus-node-exporter --path.sysfs="$snap/sys" --collector.disable-defaults --collector.infiniband \
  --web.listen-address=127.0.0.1:$nport > /tmp/bench-ne.log 2>&1 &
npid=$!
trap 'kill $fpid $npid $bpid 2>/dev/null || true; rm -f "$cfg" /tmp/bench-curl.cfg /tmp/bench-times.txt' EXIT

t0=$(date +%s%N)
until curl -sf -o /dev/null http://127.0.0.1:$fport/readyz; do sleep 0.02; done
ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
until curl -sf -o /dev/null http://127.0.0.1:$nport/metrics; do sleep 0.02; done
[ -z "$bpid" ] || until curl -sf -o /dev/null http://127.0.0.1:$((fport + 1))/readyz; do sleep 0.02; done

stats() { sort -n | awk '{a[NR]=$1} END {printf "median %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms", a[int(NR*0.5)+1]*1000, a[int(NR*0.9)+1]*1000, a[int(NR*0.99)]*1000, a[NR]*1000}'; }
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/"$1"/status; }
# bin/fabricd execs java: the launcher's pid is the JVM's
targets="fabricd node_exporter"; declare -A url pid
url[fabricd]=http://127.0.0.1:$fport/metrics; pid[fabricd]=$fpid
url[node_exporter]=http://127.0.0.1:$nport/metrics; pid[node_exporter]=$npid
if [ -n "$bpid" ]; then targets="fabricd before node_exporter"; url[before]=http://127.0.0.1:$((fport + 1))/metrics; pid[before]=$bpid; fi

for t in $targets; do for i in $(seq 50); do curl -s -o /dev/null "${url[$t]}"; done; done   # warm-up
# new connections: a curl per scrape, the targets in turn
for i in $(seq "$n"); do
  for t in $targets; do curl -s -o /dev/null -w "$t %{time_total}\n" "${url[$t]}"; done
done > /tmp/bench-times.txt
# kept alive: one curl over all scrapes, the targets in turn (a connection each, reused)
keepalive() {
  for i in $(seq "$n"); do for t in $targets; do printf 'url = "%s"\noutput = "/dev/null"\n' "${url[$t]}"; done; done > /tmp/bench-curl.cfg
  curl -s "$@" -K /tmp/bench-curl.cfg -w '%{url_effective} %{time_total}\n'
}
keepalive | sed "s|^${url[fabricd]} |fabricd-ka |; s|^${url[node_exporter]} |node_exporter-ka |; s|^${url[before]:-none} |before-ka |" >> /tmp/bench-times.txt
if [ "${GZIP:-0}" = 1 ]; then
  keepalive -H 'Accept-Encoding: gzip' | sed "s|^${url[fabricd]} |fabricd-gz |; s|^${url[node_exporter]} |node_exporter-gz |; s|^${url[before]:-none} |before-gz |" >> /tmp/bench-times.txt
fi
for t in $targets; do
  body=$(curl -s "${url[$t]}")
  printf '%-14s new connection: %s\n' $t "$(awk -v t=$t '$1 == t {print $2}' /tmp/bench-times.txt | stats)"
  printf '%-14s keep-alive:     %s\n' $t "$(awk -v t=$t-ka '$1 == t {print $2}' /tmp/bench-times.txt | stats)"
  [ "${GZIP:-0}" != 1 ] || printf '%-14s keep-alive gzip: %s\n' $t "$(awk -v t=$t-gz '$1 == t {print $2}' /tmp/bench-times.txt | stats)"
  printf '%-14s response %s bytes, %s samples, RSS %s\n' $t "$(printf %s "$body" | wc -c)" \
    "$(printf %s "$body" | grep -vc '^#')" "$(rss "${pid[$t]}")"
done
for t in $targets; do
  url=${url[$t]}
  if [ "${LONE:-0}" -gt 0 ]; then   # lone scrapes, as Prometheus makes them (bench/lone-scrape.py)
    for gz in 0 1; do   # plain, then gzip-compressed as Prometheus asks
      GZIP=$gz python3 bench/lone-scrape.py "$url" "$LONE" "${LONE_GAP:-1.1}" 20 \
        | sed "s/^/$(printf '%-14s' $t) lone$([ $gz = 1 ] && echo ' gzip'), /"
    done
  fi
done
if [ "${BACK_TO_BACK:-0}" -gt 0 ]; then
  for t in $targets; do
    for i in $(seq "$BACK_TO_BACK"); do printf 'url = "%s"\noutput = "/dev/null"\n' "${url[$t]}"; done > /tmp/bench-curl.cfg
    curl -s -K /tmp/bench-curl.cfg -o /dev/null   # warm-up
    c0=$(awk '{print $14 + $15}' /proc/"${pid[$t]}"/stat)
    times=$(curl -s -K /tmp/bench-curl.cfg -w '%{time_total}\n' | stats)
    c1=$(awk '{print $14 + $15}' /proc/"${pid[$t]}"/stat)
    printf '%-14s back to back:   %s  CPU %.0f us a scrape\n' $t "$times" \
      "$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$BACK_TO_BACK" 'BEGIN {print c / hz / n * 1e6}')"
  done
fi
echo "fabricd start to /readyz: ${ready_ms} ms (includes JVM start)"
