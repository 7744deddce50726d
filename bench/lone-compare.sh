#!/usr/bin/env bash
# Lone scrapes of node_exporter and one or more fabricd builds at once (so that all meet the same
# machine hour), each through bench/lone-scrape.py, staggered across the gap so that no two scrape
# together.
#
#   bench/lone-compare.sh SNAPSHOT_DIR NAME=JAR[|LAUNCHER] ...
#
# JAR is a fabricd.jar (its .jsa beside it gives class-data sharing only at the path the build
# wrote it for: a copied jar starts without it, so compare copies with copies);
# LAUNCHER a bin/fabricd to start it with (default: this checkout's, so its JVM flags), e.g.
# `git show OLD:bin/fabricd > /tmp/old-fabricd` for an older commit's flags. fabricd collects every
# second (each lone scrape meets a new collection, as a 15 s scrape meets a 10 s collection).
# N (20) lone scrapes after WARM (20) warm-up ones, GAP (1.5) s apart; GZIP=1 asks for gzip;
# WARMUP_GAP=0.01 WARM=300: warm-up scrapes close together, so that the lone ones meet compiled code
# (an agent scraped for hours). Needs: curl, python3, prometheus-node-exporter.
set -euo pipefail
cd "$(dirname "$0")/.."
snap=$(realpath "$1"); shift
n=${N:-20}; warm=${WARM:-20}; gap=${GAP:-1.5}
command -v prometheus-node-exporter >/dev/null || { echo "apt-get install prometheus-node-exporter" >&2; exit 2; }
d=$(mktemp -d)
printf 'collection:\n  interval: 1000ms\n' > "$d/fabricd.yaml"
pids=""
trap 'kill $pids 2>/dev/null || true; rm -rf "$d"' EXIT
prometheus-node-exporter --path.sysfs="$snap/sys" --collector.disable-defaults --collector.infiniband \
  --web.listen-address=127.0.0.1:19159 > "$d/ne.log" 2>&1 &
pids="$!"
names="node_exporter"; declare -A url; url[node_exporter]=http://127.0.0.1:19159/metrics
port=19590
for v in "$@"; do
  name=${v%%=*}; rest=${v#*=}; jar=${rest%%|*}; launcher=bin/fabricd
  [ "$rest" != "$jar" ] && launcher=${rest#*|}
  FABRICD_JAR=$jar "$launcher" run --root "$snap" --config "$d/fabricd.yaml" --listen 127.0.0.1:$port > "$d/$name.log" 2>&1 &
  pids="$pids $!"; names="$names $name"; url[$name]=http://127.0.0.1:$port/metrics; port=$((port + 1))
done
for name in $names; do until curl -sf -o /dev/null "${url[$name]}"; do sleep 0.1; done; done
k=$(echo $names | wc -w); i=0; bg=""
for name in $names; do
  ( sleep "$(python3 -c "print($gap * $i / $k)")"
    python3 bench/lone-scrape.py "${url[$name]}" "$n" "$gap" "$warm" > "$d/$name.out" ) &
  bg="$bg $!"; i=$((i + 1))
done
wait $bg
for name in $names; do echo "$name: $(tr '\n' ' ' < "$d/$name.out")"; done
