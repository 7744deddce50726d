#!/bin/bash
# softroce-vm.sh - fabricd's Soft-RoCE test bed: run a command inside a throw-away qemu VM that
# boots Debian's stock kernel (whatever linux-image-amd64 currently depends on) with two Soft-RoCE devices (rxe0 on veth0 10.0.0.1,
# rxe1 on veth1 10.0.0.2) already created. The guest's root filesystem is this host's /
# (9p, read-only) under an overlayfs with a tmpfs upper layer, so host binaries (java,
# ibv_devinfo, perftest...) run unchanged; nothing the guest writes reaches the host, except
# files written to /mnt/out (= a per-run host directory, printed on stderr).
#
# How it is built and the pitfalls it avoids: docs/spec/softroce-pitfalls.md.
# usage:   softroce-vm.sh 'shell command line'      (runs with sh -c semantics, cwd = your cwd)
# env:     ACCEL=tcg|kvm (default tcg; kvm only with hardware virtualisation, see the pitfalls)
#          CPU=model (TCG's guest CPU; default Nehalem: x86-64-v2, no AVX, all of it emulated by TCG;
#          `-cpu max` advertised AVX/AVX2/FMA that qemu 7.2's TCG emulates imperfectly, see the pitfalls)
#          TIMEOUT=seconds (default 600)  SMP=2  MEM=2048 (MiB)  VERBOSE=1 (echo full console)
#          SOFTROCE_DIR=${TMPDIR:-/tmp}/softroce-vm (work dir: kernel, initramfs, runs)
# stderr:  [host] lines, and "[guest +Ns] NAME" when the guest prints a line =====NAME=====
# exit status: the guest command's exit status (124 on timeout, 125 if the guest never ran it or qemu
#          ended before it finished).
# crashes: every guest process a signal kills with a core dump (SIGABRT, SIGILL, SIGSEGV, ...) is
#          listed in /mnt/out/crashes.log (kernel.core_pattern pipes it to a hook that keeps one
#          line, no core); JVMs started through bin/fabricd write their fatal error report to
#          /mnt/out/hs_err_pid<pid>.log. Both are named on stderr as "[host] guest crash: ..." lines.
# one-time setup (done automatically): apt-get install qemu-system-x86 busybox-static cpio kmod
#          rdma-core ibverbs-utils ibverbs-providers perftest iproute2; apt-get download + dpkg -x
#          of the kernel package linux-image-amd64 points to; depmod; build initramfs.
#          `softroce-vm.sh --setup` does only the setup (CI runs it before the tests).
set -euo pipefail
B=${SOFTROCE_DIR:-${TMPDIR:-/tmp}/softroce-vm}
ACCEL=${ACCEL:-tcg}; CPU=${CPU:-Nehalem}; TIMEOUT=${TIMEOUT:-600}; SMP=${SMP:-2}; MEM=${MEM:-2048}
[ $# -ge 1 ] || { echo "usage: $0 'command to run in the guest' | --setup" >&2; exit 2; }
mkdir -p "$B"

# ---------- one-time setup ----------
need_pkgs=""
for p in qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-utils ibverbs-providers perftest iproute2; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs="$need_pkgs $p"
done
if [ -n "$need_pkgs" ]; then
  echo "[host] installing:$need_pkgs" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need_pkgs >&2
fi
if ! ls "$B"/kpkg/boot/vmlinuz-* >/dev/null 2>&1; then
  # The versioned kernel package name changes with every security update: ask the meta-package.
  resolve_kpkg() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1; }
  KPKG=${KPKG:-$(resolve_kpkg)}
  [ -n "$KPKG" ] || { apt-get update -qq >&2; KPKG=$(resolve_kpkg); }
  [ -n "$KPKG" ] || { echo "[host] cannot resolve linux-image-amd64 to a kernel package" >&2; exit 125; }
  echo "[host] fetching $KPKG" >&2
  (cd "$B" && apt-get download "$KPKG" >&2 2>/dev/null) || (apt-get update -qq && cd "$B" && apt-get download "$KPKG" >&2)
  rm -rf "$B/kpkg"; dpkg -x "$(ls "$B"/"$KPKG"_*.deb | head -1)" "$B/kpkg"
fi
VMLINUZ=$(ls "$B"/kpkg/boot/vmlinuz-* | head -1); KV=${VMLINUZ##*/vmlinuz-}
MD=$B/kpkg/lib/modules/$KV
[ -f "$MD/modules.dep" ] || depmod -b "$B/kpkg" "$KV"

if [ ! -f "$B/initramfs.cpio.gz" ] || [ "$0" -nt "$B/initramfs.cpio.gz" ]; then
  echo "[host] building initramfs" >&2
  S=$B/initramfs-src; rm -rf "$S"; mkdir -p "$S"/{bin,mods,proc,sys,dev,host,rw,newroot}
  cp /bin/busybox "$S/bin/busybox"
  for f in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
           drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs fs/fscache/fscache \
           net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay; do cp "$MD/kernel/$f.ko" "$S/mods/"; done
  # ---- stage 1: /init in the initramfs ----
  cat > "$S/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay; do
  insmod /mods/$m.ko || echo "[stage1] insmod $m failed"
done
die() { echo "[stage1] FATAL: $*"; dmesg | tail -20; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /host || die "9p mount of host root failed"
mount -t tmpfs -o size=75% tmpfs /rw; mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot || die "overlay mount failed"
mkdir -p /newroot/mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 outshare /newroot/mnt/out || die "out share mount failed"
cp /stage2.sh /newroot/.softroce-stage2.sh
mount --move /proc /newroot/proc; mount --move /sys /newroot/sys; mount --move /dev /newroot/dev
exec switch_root /newroot /bin/sh /.softroce-stage2.sh
EOF
  # ---- stage 2: PID 1 in the overlay root ----
  cat > "$S/stage2.sh" <<'EOF'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb
up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[stage2 $(up)s] $*"; }
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm
mkdir -p /lib/modules && mount --bind "$SOFTROCE_DIR/kpkg/lib/modules" /lib/modules
for m in rdma_rxe ib_uverbs rdma_ucm veth dummy; do modprobe $m || log "modprobe $m failed"; done
# a process killed by a core-dumping signal, foreground or background: one line in /mnt/out/crashes.log
# (the hook exits without reading the core, which ends the dump)
cat > /run/core-hook <<'HOOK'
#!/bin/sh
pid=$1 sig=$2 exe=$(echo "$3" | tr '!' /); shift 3
echo "$(cut -d' ' -f1 /proc/uptime)s: $exe (pid $pid, thread \"$*\") killed by SIG$(kill -l "$sig")" >> /mnt/out/crashes.log
HOOK
chmod 755 /run/core-hook
echo '|/run/core-hook %p %s %E %e' > /proc/sys/kernel/core_pattern
ip link set lo up
ip link add veth0 type veth peer name veth1
ip addr add 10.0.0.1/24 dev veth0
ip addr add 10.0.0.2/24 dev veth1
ip link set veth0 up; ip link set veth1 up
# Both ends live in one netns, so rxe1 receives packets whose source (10.0.0.1) is a local
# address: without accept_local=1 they are dropped as martians and verbs traffic hangs.
for i in all default veth0 veth1; do sysctl -qw net.ipv4.conf.$i.accept_local=1 net.ipv4.conf.$i.rp_filter=0; done
rdma link add rxe0 type rxe netdev veth0 || log "rdma link add rxe0 failed"
rdma link add rxe1 type rxe netdev veth1 || log "rdma link add rxe1 failed"
log "ready: kernel $(uname -r), rdma devices: $(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' ')"
echo "$(up)" > /mnt/out/boot_s
wd=$((${SOFTROCE_TIMEOUT:-600} - 30)); [ "$wd" -ge 10 ] || wd=10
( sleep $wd; echo "[stage2] guest watchdog: command still running after ${wd}s, powering off"; echo 124 > /mnt/out/rc; sync; /bin/busybox poweroff -f ) &
echo "=====BEGIN-GUEST-OUTPUT====="
( sh /mnt/out/cmd.sh; echo $? > /mnt/out/rc ) 2>&1 | tee /mnt/out/output.log
echo "=====END-GUEST-OUTPUT====="
log "command finished, rc=$(cat /mnt/out/rc)"
echo "$(up)" > /mnt/out/end_s
sync
/bin/busybox poweroff -f
EOF
  chmod 755 "$S/init" "$S/stage2.sh"
  (cd "$S" && find . | cpio -o -H newc --quiet | gzip -1) > "$B/initramfs.cpio.gz"
fi

[ "$1" = "--setup" ] && { echo "[host] set up in $B (kernel $KV)" >&2; exit 0; }

# ---------- run ----------
RUN=$(mktemp -d "$B/run.XXXXXX"); mkdir -p "$RUN/out"
# fabricd's JVMs (bin/fabricd adds FABRICD_EXTRA_JAVA_OPTS) write a crash report where the host finds it
{ printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
  printf 'export FABRICD_EXTRA_JAVA_OPTS="${FABRICD_EXTRA_JAVA_OPTS:+$FABRICD_EXTRA_JAVA_OPTS }%s"\n' \
    '-XX:ErrorFile=/mnt/out/hs_err_pid%p.log -XX:-CreateCoredumpOnCrash'
  printf '%s\n' "$*"; } > "$RUN/out/cmd.sh"
case "$ACCEL" in
  kvm) ACC=(-machine q35 -accel kvm -cpu host) ;;
  *)   ACC=(-machine q35 -accel tcg,thread=multi -cpu "$CPU") ;;
esac
echo "[host] run dir $RUN, accel=$ACCEL$([ "$ACCEL" = kvm ] || echo " cpu=$CPU"), kernel $KV" >&2
t0=$(date +%s.%N); rc=0
# the guest script's =====NAME===== markers as they reach the serial console, on stderr as
# "[guest +Ns] NAME" (seconds since qemu started): which stage of a run takes the time; the
# markers themselves come with the output at the end. Ends once this script has.
( tail -n +1 -F --pid=$$ "$RUN/console.log" 2>/dev/null | sed -u 's/\r$//' \
    | grep --line-buffered -E '^=====[A-Za-z0-9_-]+=====$' | while read -r m; do
      m=${m#=====}; printf '[guest +%ds] %s\n' "$(( $(date +%s) - ${t0%.*} ))" "${m%=====}" >&2; done ) &
timeout "$TIMEOUT" qemu-system-x86_64 "${ACC[@]}" -smp "$SMP" -m "$MEM" \
  -kernel "$VMLINUZ" -initrd "$B/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 loglevel=4 SOFTROCE_DIR=$B SOFTROCE_TIMEOUT=$TIMEOUT" \
  -nographic -no-reboot -nic none \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$RUN/out,mount_tag=outshare,security_model=none" \
  < /dev/null > "$RUN/console.log" 2>&1 || rc=$?
t1=$(date +%s.%N)
[ "${VERBOSE:-0}" = 1 ] && sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$RUN/console.log" >&2
[ -f "$RUN/out/output.log" ] && cat "$RUN/out/output.log"
printf '[host] qemu exit %s; guest ready at %ss uptime; wall time %.1fs; console log %s\n' \
  "$rc" "$(cat "$RUN/out/boot_s" 2>/dev/null || echo '?')" "$(echo "$t1 - $t0" | bc)" "$RUN/console.log" >&2
# what crashed in the guest, named before the exit status so that a timeout caused by it says so
[ -f "$RUN/out/crashes.log" ] && sed 's/^/[host] guest crash: /' "$RUN/out/crashes.log" >&2
for f in "$RUN"/out/hs_err_pid*.log; do
  [ -f "$f" ] || continue
  printf '[host] guest crash: JVM fatal error, %s: %s\n' "$f" \
    "$(grep -m1 -E '^# +(SIG[A-Z]+ |Internal Error|Out of Memory|There is insufficient memory)' "$f" | sed 's/^# *//')" >&2
done
if [ "$rc" = 124 ]; then echo "[host] TIMEOUT after ${TIMEOUT}s" >&2; exit 124; fi
if [ ! -f "$RUN/out/rc" ]; then
  if [ -f "$RUN/out/output.log" ]; then
    echo "[host] the guest command did not finish: qemu ended first (exit $rc); see $RUN/console.log" >&2
  else
    echo "[host] guest did not run the command; see $RUN/console.log" >&2
  fi
  tail -20 "$RUN/console.log" >&2; exit 125
fi
exit "$(cat "$RUN/out/rc")"
