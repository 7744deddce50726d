#!/usr/bin/env bash
# Steady RSS of the agent with bin/fabricd's default flags (<= 96 MiB, 64 MiB the goal):
# collections every second and a gzip-compressed OpenMetrics scrape every 1.5 s, as Prometheus asks,
# for DURATION seconds; then VmRSS, the code cache in use and the CPU per collection (scrapes
# included). A 1 s interval with a 1.5 s scrape makes the same calls per collection as fabricd's
# default 10 s interval with a 15 s scrape, in a tenth of the time.
#
#   bench/rss-steady.sh [SNAPSHOT_DIR] [DURATION]      (defaults host-f-big 180)
#
# PROBE=N: with probing on, as a DaemonSet agent runs: N more agents (host-a-ib, node names
# peer-1 ... peer-N) on loopback addresses of their own (127.0.0.2 ...) are its peers; it probes
# them over UDP every second with the default sizes (64, 1024), and they probe it. The RSS and CPU
# printed are the first agent's. PROBE=50 starts 50 JVMs (~80 MiB each; a minute or two).
# NMT=1: the agent runs with -XX:NativeMemoryTracking=summary, and its summary (heap, class
# metadata, code, threads...) and its class-data sharing mappings are printed at the end.
# EVERY=S: the RSS also every S seconds on the way.
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
peers=""
if [ "${PROBE:-0}" -gt 0 ]; then
  (umask 077 && head -c 48 /dev/urandom | base64 > "$work/probe.key")
  list=""
  for k in $(seq "$PROBE"); do
    ip=127.0.0.$((k + 1))
    printf 'probe:\n  key_file: %s\n  udp_host: %s\n  udp_port: 19563\n  node_name: peer-%d\n  interval: 1s\n  peers: ["127.0.0.1:%d"]\n' \
      "$work/probe.key" "$ip" "$k" "$port" > "$work/peer-$k.yaml"
    bin/fabricd run --root collectors/src/test/fixtures/host-a-ib --config "$work/peer-$k.yaml" --listen $ip:19562 \
      > "$work/peer-$k.log" 2>&1 &
    peers="$peers $!"; list="$list\"$ip:19562\","
    if [ $((k % 5)) = 0 ]; then   # five at a time: fifty JVMs starting at once would take minutes
      until curl -sf -o /dev/null http://$ip:19562/readyz; do sleep 0.2; done
    fi
  done
  for k in $(seq "$PROBE"); do until curl -sf -o /dev/null http://127.0.0.$((k + 1)):19562/readyz; do sleep 0.2; done; done
  printf 'probe:\n  key_file: %s\n  udp_port: 19561\n  interval: 1s\n  peers: [%s]\n' "$work/probe.key" "${list%,}" >> "$work/fabricd.yaml"
fi
# FABRICD_LAUNCHER: another bin/fabricd (an older commit's flags, with FABRICD_JAR its jar)
FABRICD_EXTRA_JAVA_OPTS="${FABRICD_EXTRA_JAVA_OPTS:-}$([ "${NMT:-0}" = 1 ] && echo ' -XX:NativeMemoryTracking=summary')" \
  "${FABRICD_LAUNCHER:-bin/fabricd}" run --root "$snap" --config "$work/fabricd.yaml" --listen 127.0.0.1:$port > "$work/fabricd.log" 2>&1 &
pid=$!
trap 'kill $pid $peers 2>/dev/null || true; rm -rf "$work"' EXIT
until curl -sf -o /dev/null http://127.0.0.1:$port/readyz; do
  kill -0 $pid 2>/dev/null || { cat "$work/fabricd.log" >&2; exit 1; }
  sleep 0.05
done
# bin/fabricd execs java: the launcher's pid is the JVM's
start=$(date +%s); end=$(( start + dur )); next=$(( start + ${EVERY:-0} ))
while [ "$(date +%s)" -lt "$end" ]; do
  if [ "${EVERY:-0}" -gt 0 ] && [ "$(date +%s)" -ge "$next" ]; then
    awk -v t=$(( $(date +%s) - start )) '/VmRSS/ {printf "RSS after %d s: %.1f MiB\n", t, $2 / 1024}' /proc/$pid/status
    next=$(( next + EVERY ))
  fi
  curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -H 'Accept-Encoding: gzip' -o /dev/null \
    http://127.0.0.1:$port/metrics
  sleep 1.5
done
cpu=$(awk '{print $14 + $15}' /proc/$pid/stat)
n=$(curl -s "http://127.0.0.1:$port/metrics?name[]=fabric_agent_collection_seconds" \
  | awk '/^fabric_agent_collection_seconds_count/ {print int($2)}')
code=$(jcmd $pid Compiler.codecache 2>/dev/null | grep -o 'used=[0-9]*Kb' | head -1 | tr -dc 0-9)
awk -v c="$cpu" -v t="$(getconf CLK_TCK)" -v n="$n" -v code="${code:-0}" -v s="$(basename "$snap")" -v d="$dur" -v p="$([ "${PROBE:-0}" -gt 0 ] && echo ", probing $PROBE peers" || true)" '
  /VmRSS/ { printf "fabricd RSS after %d s (%s%s, %d collections): %.1f MiB; code cache %.1f MiB; %.2f ms CPU per collection, scrapes included\n", d, s, p, n, $2 / 1024, code / 1024, c * 1000 / t / n }' \
  /proc/$pid/status
if [ "${NMT:-0}" = 1 ]; then
  jcmd $pid VM.native_memory summary | grep -E '^(Total|-)' | sed 's/^-  *//'
  pmap -x $pid | awk '$NF ~ /\.jsa$/ {printf "CDS %s: %.1f MiB resident\n", $NF, $3 / 1024}'
fi
