#!/usr/bin/env bash
# The performance targets (docs/benchmarks.md), every one measured side by side with node_exporter on this machine, and a
# table of the results at the end (docs/benchmarks.md, "Acceptance"). Steps:
#   scrape  scrape latency median, new connection and kept alive, SCRAPES back to back each
#           (bench/scrape-compare.sh), and start to /readyz;
#   lone    lone scrapes as Prometheus makes them, plain and gzip, one every 1.5 s with a
#           collection every second (bench/lone-compare.sh: LONE_SCRAPES, 40, after 20 warm-up;
#           20 left the median of a one-port host's new connections moving by +-10 % run to run);
#   cpu     CPU per collection against node_exporter's per scrape in the steady state
#           (WARMUP=300 bench/cpu-compare.sh SNAPSHOT 60 250), with the rdma collector alone (the
#           same ports node_exporter's infiniband collector reads) and with every collector;
#   rss     steady RSS with bin/fabricd's default flags on the big host (bench/rss-steady.sh, 180 s).
#
#   bench/acceptance.sh [OUT_DIR]
#
# HOSTS: space-separated host folders (default: host-a-ib, the demo written to a temporary folder
# by `bin/fabricd snapshot --demo`, host-f-big); STEPS (default "scrape lone cpu rss"); SCRAPES
# (300), WARMUP (300 s), CPU_SECONDS (each CPU window, 60), RSS_SECONDS (180): smaller for a quick
# try. About an hour with the defaults (41 minutes without the lone step here); run it on an otherwise idle machine. Each step's whole output
# stays in OUT_DIR (default: a new temporary folder); the table is made from every step's output
# found there, so a step can be run again into the same folder (STEPS=lone bench/acceptance.sh DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
steps=" ${STEPS:-scrape lone cpu rss} "
[ -f agent/target/fabricd.jar ] || mvn -B -q -DskipTests package
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
bin/fabricd snapshot --demo --out "$demo/demo" > "$out/demo-snapshot.txt" 2>&1
hosts=${HOSTS:-"collectors/src/test/fixtures/host-a-ib $demo/demo collectors/src/test/fixtures/host-f-big"}
rdma_only=host,netdev,ethtool,dcb,verbs,qp,topology,gpudirect
rev=$(git rev-parse --short HEAD 2>/dev/null || echo fabricd)
echo "fabricd $rev, $(nproc) cores, $(date -u +%FT%TZ), steps:$steps; logs in $out"

name() { case "$1" in "$demo/demo") echo demo ;; *) basename "$1" ;; esac; }
has() { case "$steps" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for h in $hosts; do
  n=$(name "$h")
  if has scrape; then
    echo "== $n: scrape latency, back to back" >&2
    bench/scrape-compare.sh "$h" "${SCRAPES:-300}" > "$out/scrape-$n.txt"
  fi
  if has lone; then
    echo "== $n: lone scrapes, plain and gzip" >&2
    N=${LONE_SCRAPES:-40} bench/lone-compare.sh "$h" "fabricd=$PWD/agent/target/fabricd.jar" > "$out/lone-$n.txt"
    N=${LONE_SCRAPES:-40} GZIP=1 bench/lone-compare.sh "$h" "fabricd=$PWD/agent/target/fabricd.jar" > "$out/lone-gzip-$n.txt"
  fi
  if has cpu; then
    echo "== $n: CPU per collection, the rdma collector alone (steady)" >&2
    DISABLED=$rdma_only WARMUP=${WARMUP:-300} bench/cpu-compare.sh "$h" "${CPU_SECONDS:-60}" 250 > "$out/cpu-rdma-$n.txt"
    echo "== $n: CPU per collection, every collector (steady)" >&2
    WARMUP=${WARMUP:-300} bench/cpu-compare.sh "$h" "${CPU_SECONDS:-60}" 250 > "$out/cpu-all-$n.txt"
  fi
done
if has rss; then
  echo "== steady RSS, big host" >&2
  bench/rss-steady.sh collectors/src/test/fixtures/host-f-big "${RSS_SECONDS:-180}" > "$out/rss-big.txt"
fi

# The table: fabricd's number, node_exporter's, and whether fabricd's is at most node_exporter's.
# median FILE WHO HOW: scrape-compare's line "WHO  HOW: median X ms ..."
median() { awk -v who="$2" -v how="$3" '$1 == who && index($0, how) { for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1) }' "$1"; }
# lone FILE WHO HOW: lone-compare's line "WHO: kept-alive: median X / ... new connection: median Y / ..."
lone() { awk -v who="$2:" -v how="$3:" '$1 == who { k = split(substr($0, index($0, how)), f, " "); for (i = 1; i < k; i++) if (f[i] == "median") { print f[i + 1]; exit } }' "$1"; }
cpu() { awk -v who="$2" '$1 == who":" { for (i = 1; i < NF; i++) if ($(i + 1) == "ms") { print $i; exit } }' "$1"; }
row() {
  [ -n "$2" ] && [ -n "$3" ] || return 0
  awk -v what="$1" -v f="$2" -v ne="$3" 'BEGIN { printf "| %s | %s | %s | %.2fx | %s |\n", what, f, ne, f / ne, (f <= ne ? "met" : "NOT met") }'
}
echo
echo "| $rev | fabricd | node_exporter | ratio | target |"
echo "|---|---|---|---|---|"
for h in $hosts; do
  n=$(name "$h")
  if [ -f "$out/scrape-$n.txt" ]; then
    for how in "new connection" keep-alive; do
      row "$n: scrape median, back to back, $how (ms)" "$(median "$out/scrape-$n.txt" fabricd "$how")" "$(median "$out/scrape-$n.txt" node_exporter "$how")"
    done
  fi
  for kind in lone lone-gzip; do
    [ -f "$out/$kind-$n.txt" ] || continue
    for how in "new connection" kept-alive; do
      row "$n: scrape median, $kind, $how (ms)" "$(lone "$out/$kind-$n.txt" fabricd "$how")" "$(lone "$out/$kind-$n.txt" node_exporter "$how")"
    done
  done
  [ -f "$out/cpu-rdma-$n.txt" ] && row "$n: CPU per collection, same ports: rdma collector (ms)" \
    "$(cpu "$out/cpu-rdma-$n.txt" fabricd)" "$(cpu "$out/cpu-rdma-$n.txt" node_exporter)"
  [ -f "$out/cpu-all-$n.txt" ] && row "$n: CPU per collection, every collector (ms)" \
    "$(cpu "$out/cpu-all-$n.txt" fabricd)" "$(cpu "$out/cpu-all-$n.txt" node_exporter)"
done
[ -f "$out/rss-big.txt" ] && row "host-f-big: steady RSS, default flags (MiB; target 96)" "$(grep -o '[0-9.]* MiB; code' "$out/rss-big.txt" | cut -d' ' -f1)" 96
[ -f "$out/scrape-demo.txt" ] && row "demo: start to /readyz (ms; target 1500)" "$(grep -o 'readyz: [0-9]*' "$out/scrape-demo.txt" | tr -dc 0-9)" 1500
exit 0
