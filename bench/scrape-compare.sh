#!/usr/bin/env bash
# Serves one snapshot through fabricd and through node_exporter's infiniband collector (Debian's
# prometheus-node-exporter, --path.sysfs) on this machine and compares scrape latency (new
# connection and keep-alive: median, p90, p99), response size, series count and RSS.
#
#   bench/scrape-compare.sh [SNAPSHOT_DIR] [SCRAPES]
#
# Default snapshot: collectors/src/test/fixtures/host-a-ib; default 500 scrapes per mode.
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
prometheus-node-exporter --path.sysfs="$snap/sys" --collector.disable-defaults --collector.infiniband \
  --web.listen-address=127.0.0.1:$nport > /tmp/bench-ne.log 2>&1 &
npid=$!
trap 'kill $fpid $npid 2>/dev/null || true; rm -f "$cfg"' EXIT

t0=$(date +%s%N)
until curl -sf -o /dev/null http://127.0.0.1:$fport/readyz; do sleep 0.02; done
ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
until curl -sf -o /dev/null http://127.0.0.1:$nport/metrics; do sleep 0.02; done

stats() { sort -n | awk '{a[NR]=$1} END {printf "median %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms", a[int(NR*0.5)+1]*1000, a[int(NR*0.9)+1]*1000, a[int(NR*0.99)]*1000, a[NR]*1000}'; }
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/"$1"/status; }

for target in fabricd node_exporter; do
  if [ $target = fabricd ]; then port=$fport; pid=$(pgrep -f "fabricd.jar run --root $snap --config" | head -1); else port=$nport; pid=$npid; fi
  url=http://127.0.0.1:$port/metrics
  for i in $(seq 50); do curl -s -o /dev/null $url; done   # warm-up
  newconn=$(for i in $(seq "$n"); do curl -s -o /dev/null -w '%{time_total}\n' $url; done | stats)
  for i in $(seq "$n"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done > /tmp/bench-curl.cfg
  keepalive=$(curl -s -K /tmp/bench-curl.cfg -w '%{time_total}\n' | stats)   # one connection, reused
  body=$(curl -s $url)
  printf '%-14s new connection: %s\n' $target "$newconn"
  printf '%-14s keep-alive:     %s\n' $target "$keepalive"
  printf '%-14s response %s bytes, %s samples, RSS %s\n' $target "$(printf %s "$body" | wc -c)" \
    "$(printf %s "$body" | grep -vc '^#')" "$(rss "$pid")"
  if [ "${LONE:-0}" -gt 0 ]; then   # lone scrapes, as Prometheus makes them (bench/lone-scrape.py)
    for gz in 0 1; do   # plain, then gzip-compressed as Prometheus asks
      GZIP=$gz python3 bench/lone-scrape.py "$url" "$LONE" "${LONE_GAP:-1.1}" 20 \
        | sed "s/^/$(printf '%-14s' $target) lone$([ $gz = 1 ] && echo ' gzip'), /"
    done
  fi
done
echo "fabricd start to /readyz: ${ready_ms} ms (includes JVM start)"
