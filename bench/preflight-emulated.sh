#!/usr/bin/env bash
# fabricd preflight over an emulated fleet on this machine: for each size, one JVM serves that many
# agents (the fleet emulator, agent/src/test/java/io/fabricd/agent/fleet: each node its agent's real
# HTTP server, routes and UDP probe responder on an address of its own, 127.10.x.y) with faults
# planted (emu0003: a critical finding; the middle node: its responder loses 30 % of its answers;
# the last node: down), then `fabricd preflight --bandwidth none` runs RUNS times as a process of
# its own, the first right after the fleet serves. One line per run: the verdicts against what was
# planted, the gate's elapsed_seconds and phases (when each ended), its wall time with the JVM's
# start, its CPU and peak RSS (/usr/bin/time), its heap (the peak before a collection, from its GC
# log), and the emulator's CPU over the run (/proc/PID/stat) as a share of the machine's cores.
#
#   bench/preflight-emulated.sh [SIZES] [RUNS] [OUT_DIR]   (defaults "100 300 1000" 2, a new temporary folder)
#
# SILENT=1 plants one more fault, the node before the last silent (its agent accepts connections
# and never answers: a hung host, which holds the state phase to its least time, 10 s). The gate
# runs within GATE_NOFILE (1024) file descriptors, the usual limit; its --timeout is TIMEOUT (60s:
# the target is a verdict within it at 1 000 nodes); PREFLIGHT_ARGS are more options (default
# `--host-floor 1s`: agents sharing a few cores are starved hosts by construction). The emulator
# and the gate share the machine's cores with whatever else runs: the load average is printed with
# every run; rerun on a quiet machine for figures to compare. Needs python3, /usr/bin/time and the
# jar and test classes (built if missing). Record the result in docs/benchmarks.md ("Preflight over
# an emulated fleet").
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-100 300 1000}; runs=${2:-2}; out=${3:-$(mktemp -d)}
mkdir -p "$out"; chmod 700 "$out"
if [ ! -f agent/target/fabricd.jar ] || [ ! -f agent/target/test-classes/io/fabricd/agent/fleet/FleetMain.class ]; then
  mvn -B -q -o -pl agent -am -DskipTests package
fi
tck=$(getconf CLK_TCK); cores=$(nproc)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo fabricd)
echo "fabricd $rev, $cores cores, $(date -u +%FT%TZ); results in $out"
emu=
trap '[ -n "$emu" ] && kill "$emu" 2>/dev/null || true' EXIT
for n in $sizes; do
  d=$out/n$n; mkdir -p "$d"
  lossy=$(printf 'emu%04d' $(( (n + 1) / 2 ))); down=$(printf 'emu%04d' "$n")
  silent=; [ "${SILENT:-0}" = 1 ] && silent=$(printf 'emu%04d' $(( n - 1 )))
  java --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Xss256k -Xmx1g -Djava.util.logging.config.file="$PWD/test-logging.properties" \
    -cp agent/target/fabricd.jar:agent/target/test-classes io.fabricd.agent.fleet.FleetMain --fixtures collectors/src/test/fixtures \
    --out "$d" --nodes "$n" --fault emu0003=critical --fault "$lossy=lossy:0.3" --fault "$down=down" \
    ${silent:+--fault "$silent=silent"} > "$d/emulator.log" 2>&1 &
  emu=$!
  until grep -q '^fleet: ' "$d/emulator.log"; do
    kill -0 "$emu" 2>/dev/null || { echo "emulator ended: $(tail -n 5 "$d/emulator.log")" >&2; exit 1; }
    sleep 0.5
  done
  echo "$n nodes: $(grep '^fleet: ' "$d/emulator.log" | cut -d' ' -f2-)"
  for r in $(seq 1 "$runs"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    e0=$(awk '{print $14 + $15}' "/proc/$emu/stat")
    set +e
    # within GATE_NOFILE file descriptors (1024: the usual limit; the gate keeps its calls within it, FleetCalls)
    # shellcheck disable=SC2086 # PREFLIGHT_ARGS is words
    (ulimit -n "${GATE_NOFILE:-1024}"; FABRICD_EXTRA_JAVA_OPTS="-Xlog:gc:file=$d/gc$r.log" exec /usr/bin/time -f '%e %U %S %M' \
      -o "$d/time$r" bin/fabricd preflight --nodes "@$d/nodes.txt" --key-file "$d/key" --bandwidth none --timeout "${TIMEOUT:-60s}" \
      ${PREFLIGHT_ARGS:---host-floor 1s} --format json > "$d/run$r.json" 2> "$d/run$r.err")
    rc=$?
    set -e
    e1=$(awk '{print $14 + $15}' "/proc/$emu/stat")
    emu_rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$emu/status")
    python3 - "$d" "$r" "$rc" "$n" "$lossy" "$down" "$silent" "$(( e1 - e0 ))" "$tck" "$cores" "$emu_rss" "$load" <<'PY'
import json, re, sys
from collections import Counter
d, run, rc, n, lossy, down, silent, ticks, tck, cores, emu_rss, load = sys.argv[1:]
wall, user, sys_s, rss = open(f"{d}/time{run}").read().split()[-4:]
wall = float(wall)
emu_cpu = int(ticks) / int(tck)
heap = [tuple(map(int, m)) for m in re.findall(r"(\d+)M->\d+M\((\d+)M\)", open(f"{d}/gc{run}.log").read())]
peak = f"{max(h[0] for h in heap)} MiB peak of {max(h[1] for h in heap)} MiB" if heap else "no collection"
head = f"{n} nodes, run {run} (load {load}): exit {rc}"
try:
    j = json.load(open(f"{d}/run{run}.json"))
except ValueError:
    print(f"{head}, no JSON (see {d}/run{run}.err)")
    sys.exit(0)
verdict = {x["node"]: x["verdict"] for x in j["nodes"]}
planted = {"emu0003": "exclude", lossy: "exclude", down: "unknown", silent: "unknown"}
wrong = [f"{k} {v}" for k, v in verdict.items() if v != planted.get(k, "pass")]
phases = ", ".join(f"{p['phase']} {p['status']} at {p['elapsed_seconds']} s" for p in j.get("phases", []))
print(f"{head}, {j['verdict']}, {dict(Counter(verdict.values()))}, "
      f"{'as planted' if not wrong else 'NOT as planted: ' + ', '.join(wrong[:5])}; "
      f"{j['elapsed_seconds']} s ({wall:.1f} s with the JVM's start; {phases}); "
      f"gate: {float(user) + float(sys_s):.1f} s CPU, {int(rss) // 1024} MiB RSS, heap {peak}; "
      f"emulator: {emu_cpu:.1f} s CPU ({100 * emu_cpu / (wall * int(cores)):.0f} % of {cores} cores over the run), {emu_rss} MiB RSS")
PY
  done
  kill "$emu"; wait "$emu" 2>/dev/null || true; emu=
done
