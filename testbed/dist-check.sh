#!/usr/bin/env bash
# Tests what bin/dist wrote into dist/ as a user would meet it (bin/test runs it after bin/dist):
#   sums     SHA256SUMS matches every artifact
#   image    the OCI archive's layers unpacked into a root, its entry point run there under a
#            read-only root with a tmpfs /tmp (as the chart runs it): --version (the verbs shim
#            loads libibverbs), metrics --demo, diagnose --demo; the mlx5 and rxe providers present
#   chart    the packaged chart holds the committed chart's files, byte for byte
#   deb      installed into a clean Debian root (mmdebstrap, dependencies from Debian's archive):
#            systemd-analyze verify and security of the unit, the installed fabricd diagnose --demo
#            and metrics --demo, /etc/fabricd/fabricd.yaml a conffile; the Slurm prolog run as user
#            slurm (outside group fabricd: permission denied; inside: the gate runs); then the root
#            booted with its systemd as PID 1 in namespaces of its own: the service started at boot,
#            stopped (not failed), restarted, refused with a probe key others may read, its state
#            folder fabricd's alone, `fabricd inventory accept` as root writing it for the service
#            (which takes the new inventory), removed while running (not failed), installed again,
#            purged: nothing left but a file the user added
# Needs root with the right to make mount, PID and network namespaces (a CI container must be privileged) and
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
booted=""   # the PID of the booted root's systemd, while it runs
trap '[ -z "$booted" ] || kill -9 "$booted" 2>/dev/null; rm -rf "$work"' EXIT
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
     --customize-hook='mkdir -p "$1/var/cache/fabricd-test"' --customize-hook="copy-in $deb /var/cache/fabricd-test" \
     --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /var/cache/fabricd-test/$(basename "$deb")" \
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
# --- the Slurm prolog as the Slurm user, with the key as the guide makes it (docs/preflight.md) ---
in_root "$work/slurm-user.out" adduser --system --group slurm || { fail "adduser slurm"; cat "$work/slurm-user.out" >&2; }
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$root/etc/fabricd/probe.key"
chroot "$root" chown root:fabricd /etc/fabricd/probe.key && chmod 0640 "$root/etc/fabricd/probe.key"
as_slurm() { # as_slurm OUT ARGS...: ARGS as user slurm with its groups, in the installed root
  local out=$1; shift
  in_root "$out" setpriv --reuid=slurm --regid=slurm --init-groups env SCONTROL=true "$@"
}
prolog=/usr/share/fabricd/slurm/fabricd-prolog.sh
[ -x "$root$prolog" ] && ok "the prolog is installed at $prolog (slurm.conf's PrologSlurmctld)" || fail "no $prolog"
grep -qx /etc/fabricd/preflight.env "$root/var/lib/dpkg/info/fabricd.conffiles" && grep -q '^FABRICD_PREFLIGHT_ON_ERROR=run$' "$root/etc/fabricd/preflight.env" \
  && ok "/etc/fabricd/preflight.env is a conffile stating FABRICD_PREFLIGHT_ON_ERROR" || fail "no preflight.env conffile with FABRICD_PREFLIGHT_ON_ERROR"
rc=0; as_slurm "$work/check-out.out" "$prolog" --check || rc=$?
[ $rc = 1 ] && grep -q "FAIL: the probe key /etc/fabricd/probe.key is readable: cannot read the probe key /etc/fabricd/probe.key as user slurm: permission denied" "$work/check-out.out" \
  && grep -q "FAIL: the settings file /etc/fabricd/preflight.env is readable: cannot read the settings file /etc/fabricd/preflight.env as user slurm: permission denied" "$work/check-out.out" \
  && ok "prolog --check as slurm outside group fabricd: settings and key permission denied, exit 1" || { fail "prolog --check outside the group (exit $rc):"; cat "$work/check-out.out" >&2; }
# a job then: the settings are unknown, so it does not start (never ungated without a word)
rc=0; as_slurm "$work/prolog-out.out" env SLURM_JOB_ID=2 SLURM_JOB_NODELIST='localhost,ip6-localhost' SLURM_JOB_NUM_NODES=2 \
  FABRICD_PREFLIGHT_LOG_DIR=/tmp "$prolog" || rc=$?
[ $rc = 1 ] && grep -q "cannot read the settings file /etc/fabricd/preflight.env as user slurm: permission denied, so its settings are unknown" "$work/prolog-out.out" \
  && ok "the prolog as slurm outside group fabricd fails the job: its settings file cannot be read" || { fail "the prolog outside the group (exit $rc):"; cat "$work/prolog-out.out" >&2; }
in_root "$work/slurm-group.out" adduser slurm fabricd > /dev/null || fail "adduser slurm fabricd"
rc=0; as_slurm "$work/check-in.out" "$prolog" --check || rc=$?
[ $rc = 0 ] && grep -q "^ok: fabricd takes the probe key (its file's rule)" "$work/check-in.out" \
  && ok "prolog --check as slurm in group fabricd: settings, key (fabricd's own check), fabricd, log folder all ok" || { fail "prolog --check in the group (exit $rc):"; cat "$work/check-in.out" >&2; }
# the real gate as slurm: two nodes nothing answers for are unknown (passed), the job runs; no error: the key was read
rc=0; as_slurm "$work/prolog.out" env SLURM_JOB_ID=1 SLURM_JOB_NODELIST='localhost,ip6-localhost' SLURM_JOB_NUM_NODES=2 \
  FABRICD_PREFLIGHT_PORT=1 FABRICD_PREFLIGHT_TIMEOUT=10s FABRICD_PREFLIGHT_ARGS='--bandwidth none --unknown pass' "$prolog" || rc=$?
if [ $rc = 0 ] && grep -Eq "job=1 pass: |nodes unknown, none excluded: the job runs" "$root/var/log/fabricd/preflight/preflight.log" && ! grep -q "error:" "$work/prolog.out"; then
  ok "the prolog as slurm reads the key and runs the gate (nodes nobody answers for: the job runs)"
else
  fail "the prolog as slurm (exit $rc):"; cat "$work/prolog.out" >&2
fi

# --- the unit under a real systemd: the installed root booted in namespaces of its own (PID 1 there,
# its own network), as a container would run it; then stop, restart, the key's rule, remove, purge ---
boot() {
  # the root a mount point of its own (a bind of itself): systemd sets up each sandboxed unit's mount
  # namespace from it, and fails them all (226/NAMESPACE) on a plain folder
  unshare --pid --fork --mount --uts --ipc --net --cgroup sh -c '
    r=$1
    mount --make-rprivate / && mount --bind "$r" "$r" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
    mount --rbind /dev "$r/dev" && mount -t tmpfs tmpfs "$r/run" && mount -t tmpfs tmpfs "$r/tmp" &&
    cd "$r" && exec chroot . env container=fabricd-dist-check /lib/systemd/systemd --system --log-target=console' sh "$root" \
    > "$work/systemd.log" 2>&1 &
  local unshare_pid=$! i
  for i in $(seq 1 50); do
    booted=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | awk '{ print $1 }') || true
    [ -n "$booted" ] && break
    sleep 0.2
  done
}
in_boot() { nsenter -t "$booted" -m -u -i -n -p -C -r -w "$@"; }
wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local end=$((SECONDS + $1)); shift
  until "$@" > /dev/null 2>&1; do [ $SECONDS -lt $end ] || return 1; sleep 1; done
}
healthz() { in_boot bash -c 'exec 3<>/dev/tcp/127.0.0.1/9530 && printf "GET /healthz HTTP/1.0\r\n\r\n" >&3 && grep -q "^ok" <&3'; }
not_failed() { ! in_boot systemctl is-failed --quiet fabricd.service; }
boot
if [ -n "$booted" ] && wait_for 90 sh -c "nsenter -t $booted -m -u -i -n -p -C -r -w systemctl is-system-running | grep -Eq '^(running|degraded)'"; then
  ok "systemd boots the installed root"
  wait_for 60 healthz && ok "fabricd.service enabled and started at boot, /healthz answers" \
    || { fail "fabricd.service not serving:"; in_boot systemctl status --no-pager fabricd >&2; }
  in_boot systemctl stop fabricd || true
  [ "$(in_boot systemctl show -P Result fabricd)" = success ] && not_failed && ok "systemctl stop: inactive, not failed (the JVM's 143 is a clean stop)" \
    || { fail "systemctl stop leaves fabricd failed:"; in_boot systemctl status --no-pager fabricd >&2; }
  in_boot systemctl restart fabricd && wait_for 60 healthz && ok "systemctl restart: serving again" || fail "restart"
  # the key's rule under the unit: root:fabricd 0640 runs probes, 0644 is refused and said so, 0640 again runs
  printf 'probe:\n  key_file: /etc/fabricd/probe.key\n' >> "$root/etc/fabricd/fabricd.yaml"
  in_boot systemctl restart fabricd && wait_for 60 healthz && ! in_boot journalctl -b -u fabricd | grep -q "probe key file" \
    && ok "a probe key root:fabricd 0640: the agent reads it without a word" || { fail "the agent with a 0640 key:"; in_boot journalctl -b -u fabricd --no-pager | tail -5 >&2; }
  chmod 0644 "$root/etc/fabricd/probe.key"
  in_boot systemctl restart fabricd || true
  if wait_for 30 in_boot systemctl is-failed --quiet fabricd && in_boot journalctl -b -u fabricd | grep -q "probe key file /etc/fabricd/probe.key has mode 0644: every user can read it"; then
    ok "a probe key others may read: the service stops, saying why"
  else
    fail "a 0644 probe key:"; in_boot journalctl -b -u fabricd --no-pager | tail -5 >&2
  fi
  chmod 0640 "$root/etc/fabricd/probe.key"
  in_boot systemctl reset-failed fabricd || true
  in_boot systemctl start fabricd && wait_for 60 healthz && ok "back to 0640: serving again" || fail "start after 0640"
  # the state folder is the service's alone; root accepts into it as the guide says (sudo fabricd
  # inventory accept), the file stays the service's, and the agent takes it at its next collection
  mode=$(in_boot stat -c %U:%G:%a /var/lib/fabricd)
  [ "$mode" = fabricd:fabricd:700 ] && ok "/var/lib/fabricd is fabricd:fabricd 0700" || fail "/var/lib/fabricd is $mode, not fabricd:fabricd:700"
  rc=0; in_boot fabricd inventory accept --config /etc/fabricd/fabricd.yaml > "$work/accept.out" 2>&1 || rc=$?
  mode=$(in_boot stat -c %U:%G:%a /var/lib/fabricd/inventory.json 2>&1) || true
  if [ $rc = 0 ] && grep -q "^accepted /var/lib/fabricd/inventory.json: " "$work/accept.out" && [ "$mode" = fabricd:fabricd:600 ]; then
    ok "fabricd inventory accept as root: /var/lib/fabricd/inventory.json written for the service (fabricd:fabricd 0600)"
  else
    fail "fabricd inventory accept as root (exit $rc, inventory.json $mode):"; cat "$work/accept.out" >&2
  fi
  if wait_for 40 sh -c "nsenter -t $booted -m -u -i -n -p -C -r -w journalctl -b -u fabricd | grep -q 'inventory /var/lib/fabricd/inventory.json was replaced (accepted '" \
     && ! in_boot journalctl -b -u fabricd | grep -Eq "cannot (use the state folder|write the inventory)|is held by another process|refused as the expected inventory"; then
    ok "the agent takes the accepted inventory at its next collection"
  else
    fail "the agent did not take the accepted inventory:"; in_boot journalctl -b -u fabricd --no-pager | tail -5 >&2
  fi
  # remove while it runs (prerm stops it): not failed, and nothing of it left failed
  rc=0; in_boot env DEBIAN_FRONTEND=noninteractive dpkg -r fabricd > "$work/remove.out" 2>&1 || rc=$?
  [ $rc = 0 ] && not_failed && ! in_boot systemctl --failed --no-legend | grep -q fabricd && ok "dpkg -r with the agent running: stopped, not failed" \
    || { fail "dpkg -r (exit $rc):"; cat "$work/remove.out" >&2; in_boot systemctl --failed --no-pager >&2; }
  in_boot dpkg -i "/var/cache/fabricd-test/$(basename "$deb")" > "$work/reinstall.out" 2>&1 && wait_for 60 healthz \
    && ok "installed again: enabled and started" || { fail "reinstall:"; cat "$work/reinstall.out" >&2; }
else
  fail "systemd did not boot the installed root:"; tail -20 "$work/systemd.log" >&2
fi

# the user's own changes, then purge: the package's files, the unit's state and /var/lib/fabricd go
chroot "$root" dpkg -L fabricd | sort > "$work/files.txt"
echo "collection: {interval: 30s}" >> "$root/etc/fabricd/fabricd.yaml"
mkdir -p "$root/var/lib/fabricd" && echo '{}' > "$root/var/lib/fabricd/inventory.json"
if [ -n "$booted" ]; then
  rc=0; in_boot dpkg --purge fabricd > "$work/purge.out" 2>&1 || rc=$?
  [ $rc = 0 ] && not_failed && ok "dpkg --purge fabricd with systemd running: not failed" || { fail "purge failed (exit $rc)"; cat "$work/purge.out" >&2; }
  in_boot systemctl poweroff > /dev/null 2>&1 || true
  wait_for 30 sh -c "! kill -0 $booted" || kill -9 "$booted" 2>/dev/null || true
  wait || true
  booted=""
else
  in_root "$work/purge.out" dpkg --purge fabricd && ok "dpkg --purge fabricd" || { fail "purge failed"; cat "$work/purge.out" >&2; }
fi
left=""
while read -r f; do
  [ -z "$f" ] && continue
  if [ -e "$root$f" ] && ! [ -d "$root$f" ]; then left="$left $f"; fi
done < "$work/files.txt"
[ -z "$left" ] && ok "no file of the package is left" || fail "left after purge:$left"
[ ! -e "$root/var/lib/fabricd" ] && ok "/var/lib/fabricd removed on purge" || fail "/var/lib/fabricd left after purge"
[ ! -e "$root/var/log/fabricd" ] && ok "/var/log/fabricd removed on purge" || fail "/var/log/fabricd left after purge"
[ -f "$root/etc/fabricd/probe.key" ] && ok "the user's own /etc/fabricd/probe.key is kept" || fail "the user's probe.key was removed"
[ ! -e "$root/etc/fabricd/fabricd.yaml" ] && ok "the conffile is gone on purge (dpkg removes conffiles, changed or not)" || fail "fabricd.yaml left after purge"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/fabricd.service" ] && ok "no unit link left" || fail "unit link left"

if [ "$failures" -gt 0 ]; then echo "[dist-check] $failures failure(s)" >&2; exit 1; fi
echo "[dist-check] all passed"
