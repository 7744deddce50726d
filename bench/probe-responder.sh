#!/usr/bin/env bash
# CPU of an agent's UDP probe responder at a given probe rate (responder CPU at 1 000
# probes/s). Starts `fabricd run` on a snapshot with a probe key, measures the agent's CPU time
# (utime+stime from /proc/<pid>/stat) over DURATION seconds idle, then over DURATION seconds while
# `fabricd probe` sends RATE probes/s of SIZE bytes at it, and prints the difference as a share of
# one core, with the loss the probe saw.
#
#   bench/probe-responder.sh [RATE] [DURATION] [SIZE]      (defaults 1000 30 64)
#
# Needs: curl, the fabricd jar (built if missing). Record the result in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-1000}; dur=${2:-30}; size=${3:-64}
port=19540
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
work=$(mktemp -d)
openssl rand -hex 32 > "$work/key" 2>/dev/null || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/key"
chmod 600 "$work/key"
printf 'probe:\n  key_file: %s\n  udp_port: 0\n  responder_rate: %d\n  responder_burst: %d\n' \
  "$work/key" $((rate * 2)) "$rate" > "$work/agent.yaml"
bin/fabricd run --root collectors/src/test/fixtures/host-a-ib --config "$work/agent.yaml" \
  --listen 127.0.0.1:$port > "$work/agent.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
until curl -sf -o /dev/null http://127.0.0.1:$port/readyz; do sleep 0.05; done
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
sleep 2
c0=$(cpu); sleep "$dur"; c1=$(cpu)
idle=$(( c1 - c0 ))
interval_us=$(( 1000000 / rate ))
c2=$(cpu); t2=$(date +%s%N)
bin/fabricd probe 127.0.0.1:$port --key-file "$work/key" --count $(( rate * dur )) --size "$size" \
  --interval "$(awk -v u=$interval_us 'BEGIN{printf "%.3fms", u/1000}')" --format json > "$work/probe.json"
c3=$(cpu); t3=$(date +%s%N)
busy=$(( c3 - c2 )); wall_ms=$(( (t3 - t2) / 1000000 ))
python3 - "$work/probe.json" "$idle" "$busy" "$tick" "$dur" "$rate" "$size" "$wall_ms" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
idle, busy, tick, dur, rate, size, wall_ms = (int(x) for x in sys.argv[2:9])
wall = wall_ms / 1000
idle_share = idle / tick / dur
busy_share = busy / tick / wall
print(f"rate {rate}/s x {dur} s, {size} B: sent {r['sent']}, received {r['received']}, late {r['late']}, lost {r['lost']}")
print(f"agent CPU idle {idle_share * 100:.2f} % of a core; while answering {busy_share * 100:.2f} % (over {wall:.1f} s);"
      f" responder ~{(busy_share - idle_share) * 100:.2f} % of a core")
print(f"RTT p50 {r['rtt_seconds']['p50'] * 1e6:.0f} us, p99 {r['rtt_seconds']['p99'] * 1e6:.0f} us;"
      f" responder time p50 {r['responder_seconds']['p50'] * 1e6:.1f} us")
PY
