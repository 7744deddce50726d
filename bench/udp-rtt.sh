#!/usr/bin/env bash
# UDP probe RTT on loopback against the floor: a plain C ping-pong (bench/udp-floor.c) and fabricd
# (`fabricd probe` against an agent's responder) with the same count, size and pacing, one after
# the other in one run. The pingmesh's target: fabricd's p50 at most 1.2x, its p99 at most 2x the
# floor's (docs/benchmarks.md).
#
#   bench/udp-rtt.sh [COUNT] [SIZE] [GAP_US]      (defaults 2000 64 1000)
#
# fabricd's figures are the RTT it exports (fabric_probe_rtt_seconds: the responder's hold time
# taken out) and the host's share it reports apart. Needs: cc, curl, python3, the fabricd jar (built
# if missing). Record the result in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}; size=${2:-64}; gap=${3:-1000}
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
work=$(mktemp -d)
cc -O2 -o "$work/udp-floor" bench/udp-floor.c
fport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
uport=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/udp-floor" serve "$uport" &
floor_pid=$!
trap 'kill $floor_pid ${agent_pid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 0.2
echo "floor:   $("$work/udp-floor" ping 127.0.0.1 "$uport" "$count" "$size" "$gap")"
kill $floor_pid
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/key"
chmod 600 "$work/key"
printf 'probe:\n  key_file: %s\n  udp_port: 0\n  responder_rate: 100000\n  responder_burst: 10000\n' "$work/key" > "$work/agent.yaml"
bin/fabricd run --root collectors/src/test/fixtures/host-a-ib --config "$work/agent.yaml" \
  --listen 127.0.0.1:$fport > "$work/agent.log" 2>&1 &
agent_pid=$!
until curl -sf -o /dev/null http://127.0.0.1:$fport/readyz; do sleep 0.05; done
bin/fabricd probe 127.0.0.1:$fport --key-file "$work/key" --count "$count" --size "$size" \
  --interval "${gap}us" --format json > "$work/probe.json"
python3 - "$work/probe.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
rtt = r["rtt_seconds"]
host = r.get("host_seconds") or {}
line = (f"fabricd: sent {r['sent']} answered {r['received']} p50_us {rtt['p50'] * 1e6:.1f} p99_us {rtt['p99'] * 1e6:.1f}"
        f" min_us {rtt['min'] * 1e6:.1f}; responder hold p50_us {r['responder_seconds']['p50'] * 1e6:.1f}")
if host:
    line += f"; host p50_us {host['p50'] * 1e6:.1f}"
print(line)
PY
