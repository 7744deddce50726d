#!/usr/bin/env bash
# fabricd preflight over a fleet of real agents on this machine: starts AGENTS agents (`fabricd run`
# on a snapshot, loopback, no peers: the gate alone, as a preflight-only site runs it), waits until
# every one is ready, then runs `fabricd preflight --bandwidth none` RUNS times back to back, the
# first right after the fleet became ready. One line per run: exit code, verdict, nodes and links by
# verdict, how many attempts the probe round needed, the command's own elapsed_seconds and the wall
# time with the JVM's start; then the fleet's start time and memory.
#
#   bench/preflight-fleet.sh [AGENTS] [RUNS] [OUT_DIR]      (defaults 100 5, a new temporary folder)
#
# Each agent takes ~100 MiB of memory: check `free -g` first (other work on the machine counts) and
# give as many agents as fit. TIMEOUT (60s) is the gate's --timeout; PREFLIGHT_ARGS more options
# (`--host-floor 1s`: agents sharing a few cores are starved hosts by construction). Every run's JSON and stderr stay
# in OUT_DIR. Needs curl, python3 and the fabricd jar (built if missing). Record the result in
# docs/benchmarks.md ("Preflight over real agents").
set -euo pipefail
cd "$(dirname "$0")/.."
agents=${1:-100}; runs=${2:-5}; out=${3:-$(mktemp -d)}
mkdir -p "$out"; chmod 700 "$out"
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
printf '%s\n' "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$out/key"; chmod 600 "$out/key"
# node names of this run's own: agents hold a host-wide lock on their node name
prefix=bf$$n
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
: > "$out/nodes.txt"
t0=$(date +%s%N)
for i in $(seq 1 "$agents"); do
  n=$(printf '%s%03d' "$prefix" "$i")
  printf 'probe:\n  key_file: %s\n  udp_port: 0\n  node_name: %s\n  peers: []\n' "$out/key" "$n" > "$out/$n.yaml"
  # a port of its own choosing (one picked here could be taken before it binds): its log says which
  bin/fabricd run --root collectors/src/test/fixtures/host-a-ib --config "$out/$n.yaml" --listen 127.0.0.1:0 > "$out/$n.log" 2>&1 &
  pids+=($!)
done
for i in $(seq 1 "$agents"); do
  n=$(printf '%s%03d' "$prefix" "$i")
  port=
  until [ -n "$port" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do
    kill -0 "${pids[$((i - 1))]}" 2>/dev/null || { echo "agent $n ended: $(tail -n 3 "$out/$n.log")" >&2; exit 1; }
    sleep 0.2
    port=$(sed -n 's|.*fabricd serving .* on http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$out/$n.log" | head -n 1)
  done
  echo "$n=127.0.0.1:$port" >> "$out/nodes.txt"
done
ready_s=$(( ($(date +%s%N) - t0) / 1000000000 ))
rev=$(git rev-parse --short HEAD 2>/dev/null || echo fabricd)
echo "fabricd $rev, $(nproc) cores, $(date -u +%FT%TZ): $agents agents ready in $ready_s s; load $(cut -d' ' -f1-3 /proc/loadavg); logs in $out"
for r in $(seq 1 "$runs"); do
  s=$(date +%s%N)
  set +e
  # shellcheck disable=SC2086 # PREFLIGHT_ARGS is words
  bin/fabricd preflight --nodes "@$out/nodes.txt" --key-file "$out/key" --bandwidth none --timeout "${TIMEOUT:-60s}" \
    ${PREFLIGHT_ARGS:-} --format json > "$out/run$r.json" 2> "$out/run$r.err"
  rc=$?
  set -e
  wall=$(( ($(date +%s%N) - s) / 1000000 ))
  python3 - "$out/run$r.json" "$r" "$rc" "$wall" <<'PY'
import json, sys
from collections import Counter
path, run, rc, wall = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    j = json.load(open(path))
except ValueError:
    print(f"run {run}: exit {rc}, no JSON (see {path[:-4]}err)")
    sys.exit(0)
nodes = dict(Counter(n["verdict"] for n in j["nodes"]))
links = dict(Counter(l["verdict"] for l in j["links"]))
rounds = {p["phase"]: p for p in j.get("phases", [])}
ring = rounds.get("probe_round", {})
print(f"run {run}: exit {rc} ({j.get('exit_code')}), {j['verdict']}; nodes {nodes}; links {links}; probe round "
      f"{ring.get('done')}/{ring.get('planned')} pairs in {ring.get('attempts')} attempts"
      f"{', repair round ' + rounds['repair_round']['status'] if 'repair_round' in rounds else ''}; "
      f"{j['elapsed_seconds']} s ({wall / 1000:.1f} s with the JVM's start)")
for p in j.get("phases", []):
    if p["problems"]:
        print(f"    {p['phase']}: {p['summary']}")
PY
done
rss=0
for p in "${pids[@]}"; do
  kb=$(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
  rss=$(( rss + ${kb:-0} ))
done
echo "agents' RSS: $(( rss / 1024 )) MiB in all, $(( rss / 1024 / agents )) MiB each; load $(cut -d' ' -f1-3 /proc/loadavg)"
