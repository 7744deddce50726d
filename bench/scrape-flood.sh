#!/usr/bin/env bash
# Many scrapers at once, each over a new connection per scrape (no keep-alive), against fabricd and
# node_exporter's infiniband collector (Debian's prometheus-node-exporter, its default
# --web.max-requests 40) serving the same snapshot, one after the other, ROUNDS times in turn;
# prints per round and target how many scrapes got 200 and how many 503, and the median time of a
# 200. A scrape that waits for a request slot holds it: the faster a scrape, the fewer get 503.
#
#   bench/scrape-flood.sh [SNAPSHOT_DIR] [CLIENTS] [SCRAPES_EACH]    (defaults: the demo, 50, 20)
#
# ROUNDS (3); MAX_REQUESTS: fabricd's http.max_requests (default: its own default);
# NE_MAX_REQUESTS: node_exporter's --web.max-requests (default: its own, 40).
# Needs: curl, python3, prometheus-node-exporter, the fabricd jar (built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
snap=${1:-}
clients=${2:-50}; each=${3:-20}; rounds=${ROUNDS:-3}
fport=19531; nport=19101
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
command -v prometheus-node-exporter >/dev/null || { echo "apt-get install prometheus-node-exporter" >&2; exit 2; }
work=$(mktemp -d)
pids=""
trap 'kill $pids 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$snap" ]; then
  snap=$work/demo
  bin/fabricd snapshot --demo --out "$snap" > /dev/null 2>&1
fi
snap=$(realpath "$snap")
if [ -n "${MAX_REQUESTS:-}" ]; then printf 'http:\n  max_requests: %s\n' "$MAX_REQUESTS"; fi > "$work/fabricd.yaml"
bin/fabricd run --root "$snap" --config "$work/fabricd.yaml" --listen 127.0.0.1:$fport > "$work/fabricd.log" 2>&1 &
pids="$!"
prometheus-node-exporter --path.sysfs="$snap/sys" --collector.disable-defaults --collector.infiniband \
  ${NE_MAX_REQUESTS:+--web.max-requests=$NE_MAX_REQUESTS} --web.listen-address=127.0.0.1:$nport > "$work/ne.log" 2>&1 &
pids="$pids $!"
until curl -sf -o /dev/null http://127.0.0.1:$fport/readyz; do sleep 0.05; done
until curl -sf -o /dev/null http://127.0.0.1:$nport/metrics; do sleep 0.05; done
for port in $fport $nport; do for i in $(seq 200); do curl -s -o /dev/null http://127.0.0.1:$port/metrics; done; done   # warm-up

cat > "$work/flood.py" <<'EOF'
import http.client, statistics, sys, threading, time
port, clients, each = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
codes, times, lock = {}, [], threading.Lock()
go = threading.Event()
def scraper():
    go.wait()
    for _ in range(each):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        t0 = time.perf_counter()
        try:
            c.request("GET", "/metrics", headers={"Connection": "close"})
            r = c.getresponse(); r.read(); code = r.status
        except OSError as e:
            code = type(e).__name__
        t = time.perf_counter() - t0
        c.close()
        with lock:
            codes[code] = codes.get(code, 0) + 1
            if code == 200:
                times.append(t)
threads = [threading.Thread(target=scraper) for _ in range(clients)]
for t in threads: t.start()
t0 = time.perf_counter(); go.set()
for t in threads: t.join()
wall = time.perf_counter() - t0
med = statistics.median(times) * 1000 if times else 0
print(f"200: {codes.pop(200, 0)}  503: {codes.pop(503, 0)}  other: {codes or 0}  median 200 {med:.1f} ms  wall {wall:.1f} s")
EOF
for r in $(seq "$rounds"); do
  printf 'round %d fabricd        %s\n' "$r" "$(python3 "$work/flood.py" $fport "$clients" "$each")"
  printf 'round %d node_exporter  %s\n' "$r" "$(python3 "$work/flood.py" $nport "$clients" "$each")"
done
