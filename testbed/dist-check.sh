#!/usr/bin/env bash
# Tests what bin/dist wrote into dist/ as a user would meet it (bin/test runs it after bin/dist):
#   sums     SHA256SUMS matches every artifact
#   image    the OCI archive's layers unpacked into a root, its entry point run there under a
#            read-only root with a tmpfs /tmp (as the chart runs it): --version (the verbs shim
#            loads libibverbs), metrics --demo, diagnose --demo; the mlx5 and rxe providers present
#   chart    the packaged chart holds the committed chart's files, byte for byte
#   deb      installed into a clean Debian root (mmdebstrap, dependencies from Debian's archive):
#            systemd-analyze verify and security of the unit, the installed fabricd diagnose --demo
#            and metrics --demo, /etc/fabricd/fabricd.yaml a conffile, then purged: nothing left
#            but a file the user added
# Needs root with the right to make mount namespaces (a CI container must be privileged) and
# Debian's archive; installs with apt-get what it uses and lacks (mmdebstrap, systemd for
# systemd-analyze, prometheus for promtool).
#   testbed/dist-check.sh [DIST_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "dist-check: needs root (chroot, mount namespaces)" >&2; exit 2; }
[ -d "${1:-dist}" ] || { echo "dist-check: ${1:-dist} is missing: run bin/dist first" >&2; exit 2; }
dist=$(cd "${1:-dist}" && pwd)
need=""
for p in mmdebstrap systemd prometheus util-linux python3; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
  echo "[dist-check] installing:$need"
  apt-get update -qq
  env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $need
fi
unshare --mount true 2>/dev/null || { echo "dist-check: cannot make a mount namespace (unshare --mount): run it as root on the host or in a privileged container" >&2; exit 2; }
work=$(mktemp -d /tmp/fabricd-dist-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
ok() { echo "[dist-check] ok: $*"; }
fail() { echo "[dist-check] FAIL: $*" >&2; failures=$((failures + 1)); }
expect() { # expect DESCRIPTION PATTERN FILE
  if grep -Eq -- "$2" "$3"; then ok "$1"; else fail "$1: no '$2' in output:"; head -20 "$3" >&2; fi
}

version=$(sed -n 's/^version: *//p' deploy/helm/fabricd/Chart.yaml)
deb_version=${version//-/\~}
image="$dist/fabricd-image-$version.oci.tar"
chart="$dist/fabricd-$version.tgz"
deb="$dist/fabricd_${deb_version}_amd64.deb"

# --- sums ---
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) && ok "SHA256SUMS" || fail "SHA256SUMS does not match"
for f in "$image" "$chart" "$deb" "$dist/fabricd-$version.cdx.json" "$dist/fabricd-image-$version.cdx.json"; do
  [ -s "$f" ] && ok "$(basename "$f") present" || fail "$(basename "$f") missing"
done
python3 - "$dist/fabricd-image-$version.cdx.json" <<'EOF' && ok "image SBOM lists the JRE, libibverbs and the agent's libraries" || fail "image SBOM incomplete"
import json, sys
d = json.load(open(sys.argv[1]))
names = {c["name"] for c in d["components"]}
assert d["bomFormat"] == "CycloneDX", d["bomFormat"]
assert {"openjdk-17-jre-headless", "libibverbs1", "ibverbs-providers", "vertx-core", "jna"} <= names, names
EOF

# --- image: unpack the layers as a container runtime would, run the entry point ---
mkdir -p "$work/oci" "$work/root"
tar -xf "$image" -C "$work/oci"
python3 - "$work/oci" > "$work/image.env" <<'EOF'
import json, sys, os, shlex
oci = sys.argv[1]
def blob(d): return os.path.join(oci, "blobs", *d.split(":"))
index = json.load(open(os.path.join(oci, "index.json")))
m = json.load(open(blob(index["manifests"][0]["digest"])))
cfg = json.load(open(blob(m["config"]["digest"])))["config"]
print("layers=(%s)" % " ".join(shlex.quote(blob(l["digest"])) for l in m["layers"]))
print("entrypoint=(%s)" % " ".join(shlex.quote(a) for a in cfg["Entrypoint"]))
print("cmd=(%s)" % " ".join(shlex.quote(a) for a in cfg.get("Cmd", [])))
print("ref=%s" % shlex.quote(index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]))
EOF
# shellcheck disable=SC1091
. "$work/image.env"
[ "$ref" = "$version" ] && ok "image tag $ref" || fail "image tag '$ref', expected $version"
[ "${cmd[*]}" = "run" ] && ok "image command: run" || fail "image command '${cmd[*]}'"
for l in "${layers[@]}"; do tar -xzf "$l" -C "$work/root"; done
for p in usr/lib/x86_64-linux-gnu/libibverbs.so.1 usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so \
         usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so usr/share/fabricd/fabricd.jar usr/share/fabricd/jvm.options; do
  [ -e "$work/root/$p" ] && ok "image has /$p" || fail "image lacks /$p"
done
# the entry point under a read-only root with a tmpfs /tmp, /proc and /sys: what the chart gives it
in_image() { # in_image OUT ARGS...: runs the image's entry point with ARGS, output in OUT, returns its exit code
  local out=$1; shift
  unshare --mount --pid --fork sh -c '
    r=$1; shift
    mount --bind "$r" "$r" && mount -o remount,bind,ro "$r" "$r"
    mount -t tmpfs tmpfs "$r/tmp" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys"
    exec chroot "$r" "$@"' sh "$work/root" "${entrypoint[@]}" "$@" > "$out" 2>&1
}
rc=0; in_image "$work/version.out" --version || rc=$?
[ $rc = 0 ] && ok "image --version exits 0" || fail "image --version exited $rc"
expect "image --version names $version" "^fabricd $version\$" "$work/version.out"
expect "image: the verbs shim loads libibverbs" "^verbs: the shim and libibverbs load" "$work/version.out"
rc=0; in_image "$work/metrics.out" metrics --demo || rc=$?
[ $rc = 0 ] && ok "image metrics --demo exits 0" || fail "image metrics --demo exited $rc"
expect "image metrics --demo serves port metrics" '^fabric_port_up\{' "$work/metrics.out"
rc=0; in_image "$work/diagnose.out" diagnose --demo || rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } && ok "image diagnose --demo exits $rc (0 healthy, 1 findings)" || fail "image diagnose --demo exited $rc"
expect "image diagnose --demo prints findings" 'CRITICAL|WARNING|[Nn]o findings' "$work/diagnose.out"
du -sm "$work/root" | awk '{ print "[dist-check] image root file system: " $1 " MB" }'

# --- chart: the package is the committed chart ---
mkdir -p "$work/chart"
tar -xzf "$chart" -C "$work/chart"
# helm package writes Chart.yaml back in its own form: the rest byte for byte, Chart.yaml's version
if diff -r -x Chart.yaml "$work/chart/fabricd" deploy/helm/fabricd > "$work/chart.diff"; then ok "packaged chart = deploy/helm/fabricd"; else fail "packaged chart differs:"; head "$work/chart.diff" >&2; fi
grep -qx "version: $version" "$work/chart/fabricd/Chart.yaml" && ok "packaged chart version $version" || fail "packaged Chart.yaml version"

# --- the Prometheus example of the bare-metal guide, with the shipped rules ---
if command -v promtool > /dev/null; then
  mkdir -p "$work/prom"
  sed "s|/etc/prometheus/fabricd/\*.rules.yaml|$PWD/alerts/*.rules.yaml|; s|/etc/prometheus/fabricd-targets.yaml|$PWD/deploy/prometheus/fabricd-targets.yaml|" \
    deploy/prometheus/prometheus.yml > "$work/prom/prometheus.yml"
  promtool check config "$work/prom/prometheus.yml" > "$work/promtool.out" 2>&1 && ok "promtool check config deploy/prometheus/prometheus.yml" \
    || { fail "promtool check config:"; cat "$work/promtool.out" >&2; }
else
  fail "promtool missing (apt-get install prometheus)"
fi

# --- deb: a clean Debian root, the package installed with its dependencies from the archive ---
root="$work/debroot"
# systemd too: the unit is verified against the units and binaries of the root it is installed in
if mmdebstrap --variant=apt --mode=root --format=directory --include=systemd \
     --customize-hook="copy-in $deb /tmp" \
     --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/$(basename "$deb")" \
     --customize-hook='rm -f "$1"/tmp/*.deb' \
     bookworm "$root" \
     "deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian-security bookworm-security main" \
     > "$work/mmdebstrap.log" 2>&1; then
  ok "the .deb installs into a clean bookworm root with its dependencies"
else
  tail -30 "$work/mmdebstrap.log" >&2; fail "the .deb does not install"; echo "[dist-check] $failures failure(s)"; exit 1
fi
chroot "$root" dpkg -s fabricd | grep -q "^Status: install ok installed" && ok "dpkg: fabricd installed" || fail "dpkg status"
grep -qx /etc/fabricd/fabricd.yaml "$root/var/lib/dpkg/info/fabricd.conffiles" && ok "/etc/fabricd/fabricd.yaml is a conffile" || fail "no conffile"
chroot "$root" getent passwd fabricd > /dev/null && ok "system user fabricd" || fail "no fabricd user"
ls "$root"/usr/share/fabricd/alerts/*.rules.yaml "$root"/usr/share/fabricd/dashboards/*.json > /dev/null && ok "rules and dashboards in /usr/share/fabricd" || fail "no rules or dashboards"
if systemd-analyze verify --root="$root" /lib/systemd/system/fabricd.service > "$work/verify.out" 2>&1 && ! grep -q "fabricd.service" "$work/verify.out"; then
  ok "systemd-analyze verify fabricd.service"
else
  fail "systemd-analyze verify:"; cat "$work/verify.out" >&2
fi
systemd-analyze security --offline=true --root="$root" fabricd.service > "$work/security.out" 2>&1 || true
score=$(sed -n 's/.*Overall exposure level for fabricd.service: \([0-9.]*\).*/\1/p' "$work/security.out")
echo "[dist-check] systemd-analyze security: ${score:-?} (0 = most locked down, 10 = least)"
awk -v s="${score:-99}" 'BEGIN { exit !(s <= 3.5) }' && ok "exposure ${score} <= 3.5" || { fail "exposure '${score}' above 3.5:"; tail -5 "$work/security.out" >&2; }
in_root() { # in_root OUT ARGS...: ARGS run in the installed root with /proc, /sys and a tmpfs /tmp
  local out=$1; shift
  unshare --mount --pid --fork sh -c '
    r=$1; shift
    mount -t tmpfs tmpfs "$r/tmp" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys"
    exec chroot "$r" "$@"' sh "$root" "$@" > "$out" 2>&1
}
rc=0; in_root "$work/deb-version.out" fabricd --version || rc=$?
expect "installed fabricd --version" "^fabricd $version\$" "$work/deb-version.out"
expect "installed fabricd: the verbs shim loads libibverbs" "^verbs: the shim and libibverbs load" "$work/deb-version.out"
rc=0; in_root "$work/deb-diag.out" fabricd diagnose --demo || rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } && ok "installed fabricd diagnose --demo exits $rc" || { fail "installed diagnose --demo exited $rc"; head "$work/deb-diag.out" >&2; }
expect "installed diagnose --demo prints findings" 'CRITICAL|WARNING|[Nn]o findings' "$work/deb-diag.out"
rc=0; in_root "$work/deb-metrics.out" fabricd metrics --demo || rc=$?
[ $rc = 0 ] && ok "installed fabricd metrics --demo exits 0" || fail "installed metrics --demo exited $rc"
expect "installed metrics --demo serves port metrics" '^fabric_port_up\{' "$work/deb-metrics.out"
# the user's own changes, then purge: the package's files, the unit's state and /var/lib/fabricd go
chroot "$root" dpkg -L fabricd | sort > "$work/files.txt"
echo "collection: {interval: 30s}" >> "$root/etc/fabricd/fabricd.yaml"
echo "0123456789abcdef0123456789abcdef" > "$root/etc/fabricd/probe.key"
mkdir -p "$root/var/lib/fabricd" && echo '{}' > "$root/var/lib/fabricd/inventory.json"
in_root "$work/purge.out" dpkg --purge fabricd && ok "dpkg --purge fabricd" || { fail "purge failed"; cat "$work/purge.out" >&2; }
left=""
while read -r f; do
  [ -z "$f" ] && continue
  if [ -e "$root$f" ] && ! [ -d "$root$f" ]; then left="$left $f"; fi
done < "$work/files.txt"
[ -z "$left" ] && ok "no file of the package is left" || fail "left after purge:$left"
[ ! -e "$root/var/lib/fabricd" ] && ok "/var/lib/fabricd removed on purge" || fail "/var/lib/fabricd left after purge"
[ -f "$root/etc/fabricd/probe.key" ] && ok "the user's own /etc/fabricd/probe.key is kept" || fail "the user's probe.key was removed"
[ ! -e "$root/etc/fabricd/fabricd.yaml" ] && ok "the conffile is gone on purge (dpkg removes conffiles, changed or not)" || fail "fabricd.yaml left after purge"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/fabricd.service" ] && ok "no unit link left" || fail "unit link left"

if [ "$failures" -gt 0 ]; then echo "[dist-check] $failures failure(s)" >&2; exit 1; fi
echo "[dist-check] all passed"
