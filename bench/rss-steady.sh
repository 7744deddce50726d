#!/usr/bin/env bash
# Steady RSS of the agent with bin/fabricd's default flags (<= 96 MiB, 64 MiB the goal):
# collections every second and a gzip-compressed OpenMetrics scrape every 1.5 s, as Prometheus asks,
# for DURATION seconds; then VmRSS, the code cache in use and the CPU per collection (scrapes
# included). A 1 s interval with a 1.5 s scrape makes the same calls per collection as fabricd's
# default 10 s interval with a 15 s scrape, in a tenth of the time.
#
#   bench/rss-steady.sh [SNAPSHOT_DIR] [DURATION]      (defaults host-f-big 180)
#
# PROBE=1: with probing on, as a DaemonSet agent runs: a second agent (the demo) on loopback is
# the peer, both probe each other over UDP every second with the default sizes (64, 1024); the
# RSS and CPU printed are the first agent's.
#
# Needs: curl, jcmd (the JDK), the fabricd jar (built if missing). Results: stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
snap=$(realpath "${1:-collectors/src/test/fixtures/host-f-big}")
dur=${2:-180}
port=19560
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
work=$(mktemp -d)
printf 'collection:\n  interval: 1000ms\n' > "$work/fabricd.yaml"
if [ "${PROBE:-0}" = 1 ]; then
  (umask 077 && head -c 48 /dev/urandom | base64 > "$work/probe.key")
  for side in a b; do
    other=$([ $side = a ] && echo 19562 || echo $port)
    udp=$([ $side = a ] && echo 19561 || echo 19563)
    printf 'probe:\n  key_file: %s\n  udp_port: %d\n  interval: 1s\n  peers: ["127.0.0.1:%d"]\n' \
      "$work/probe.key" "$udp" "$other" > "$work/probe-$side.yaml"
  done
  cat "$work/probe-a.yaml" >> "$work/fabricd.yaml"
  bin/fabricd run --demo --config "$work/probe-b.yaml" --listen 127.0.0.1:19562 > "$work/peer.log" 2>&1 &
  peer=$!
fi
# FABRICD_LAUNCHER: another bin/fabricd (an older commit's flags, with FABRICD_JAR its jar)
"${FABRICD_LAUNCHER:-bin/fabricd}" run --root "$snap" --config "$work/fabricd.yaml" --listen 127.0.0.1:$port > "$work/fabricd.log" 2>&1 &
pid=$!
trap 'kill $pid ${peer:-} 2>/dev/null || true; rm -rf "$work"' EXIT
until curl -sf -o /dev/null http://127.0.0.1:$port/readyz; do
  kill -0 $pid 2>/dev/null || { cat "$work/fabricd.log" >&2; exit 1; }
  sleep 0.05
done
# bin/fabricd execs java: the launcher's pid is the JVM's
end=$(( $(date +%s) + dur ))
while [ "$(date +%s)" -lt "$end" ]; do
  curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -H 'Accept-Encoding: gzip' -o /dev/null \
    http://127.0.0.1:$port/metrics
  sleep 1.5
done
cpu=$(awk '{print $14 + $15}' /proc/$pid/stat)
n=$(curl -s "http://127.0.0.1:$port/metrics?name[]=fabric_agent_collection_seconds" \
  | awk '/^fabric_agent_collection_seconds_count/ {print int($2)}')
code=$(jcmd $pid Compiler.codecache 2>/dev/null | grep -o 'used=[0-9]*Kb' | head -1 | tr -dc 0-9)
awk -v c="$cpu" -v t="$(getconf CLK_TCK)" -v n="$n" -v code="${code:-0}" -v s="$(basename "$snap")" -v d="$dur" -v p="$([ "${PROBE:-0}" = 1 ] && echo ', probing' || true)" '
  /VmRSS/ { printf "fabricd RSS after %d s (%s%s, %d collections): %.1f MiB; code cache %.1f MiB; %.2f ms CPU per collection, scrapes included\n", d, s, p, n, $2 / 1024, code / 1024, c * 1000 / t / n }' \
  /proc/$pid/status
