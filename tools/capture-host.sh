#!/usr/bin/env bash
# capture-host.sh OUT_DIR — copies what fabricd's collectors read from this host into a snapshot
# folder (docs/spec/host-snapshot.md), so a host without Java becomes a test fixture or a
# bug-report attachment that fabricd diagnoses as it would the live host:
#   - /sys/class/infiniband and the device trees behind it (counters/, counters_ext/, hw_counters/,
#     the populated GID slots and two empty ones), the PCI functions (config space and IOMMU group
#     included) and netdevs of the RDMA devices, /sys/class/iommu, /proc/cmdline, and
#     fabricd/unreadable.txt for files that exist but fail to read;
#   - what is not a file, as the tools print it: `ethtool -S` (fabricd/ethtool/NETDEV.txt),
#     `ethtool -a` (NETDEV.pause.json), DCB from iproute2's `dcb -j` (fabricd/dcb/NETDEV.json:
#     {"pfc": <dcb -j -s pfc show>, "app": <dcb -j -N app show>}, or {"supported": false} when the
#     netdev has no DCB ops), `ibv_devinfo -v -d DEV` (fabricd/verbs/DEV.ibv_devinfo.txt) and
#     `rdma -j resource show qp` (fabricd/rdma/qp.json).
# A tool that is not installed, or that fails for another reason, leaves its side-car out: fabricd
# then treats that state as unknown (no claim), never as "off". Links are kept relative (as sysfs
# has them); nothing outside the RDMA subset is copied; every read is bounded by `timeout`.
#
# It needs only bash and coreutils (ethtool, iproute2's dcb and rdma, ibverbs-utils optional).
# Run as any user; root reads a few more files. `fabricd snapshot` does the same where Java runs.
set -uo pipefail
out=${1:?usage: capture-host.sh OUT_DIR}
mkdir -p "$out/fabricd/ethtool" "$out/fabricd/dcb" "$out/fabricd/verbs" "$out/fabricd/rdma"
unreadable="$out/fabricd/unreadable.txt"
[ "${2:-}" = "--device" ] || : > "$unreadable"

errno_of() {  # strerror text -> errno name
  case "$1" in
    *"Invalid argument"*) echo EINVAL ;; *"No such device"*) echo ENODEV ;;
    *"not supported"*) echo EOPNOTSUPP ;; *"Input/output"*) echo EIO ;;
    *"busy"*|*"Busy"*) echo EBUSY ;; *"Permission denied"*) echo EACCES ;; *"timed out"*|*"Terminated"*) echo ETIMEDOUT ;;
    *) echo EIO ;;
  esac
}
copy_file() {  # $1 = absolute real path of a file. Fork-free (bash builtins only): a capture
  # reads thousands of files, and forks are slow on small VMs. A hung read is bounded by the
  # per-device `timeout` around the whole copy (see the end of this script).
  local rel=${1#/} v err
  [ -d "$out/${rel%/*}" ] || mkdir -p "$out/${rel%/*}"
  IFS= read -r -d '' v < "$1" 2> "$out/.err"
  read -r err < "$out/.err" 2>/dev/null || err=""
  if [ -n "$err" ]; then
    echo "$rel $(errno_of "$err")" >> "$unreadable"
  else
    printf '%s' "$v" > "$out/$rel"
  fi
}
copy_link() {  # $1 = absolute path of a symlink: recreated as the same relative link
  local rel=${1#/}
  [ -d "$out/${rel%/*}" ] || mkdir -p "$out/${rel%/*}"
  ln -sfn "$(readlink "$1")" "$out/$rel"
}
copy_dir() {  # $1 = absolute real dir, $2 = max depth: files and links, never following links
  find "$1" -maxdepth "$2" \( -name power -o -name subsystem -o -name uevent -o -name msi_irqs \
        -o -name gids -o -name gid_attrs -o -name pkeys \) -prune -o -print |
  while read -r p; do
    if [ -L "$p" ]; then copy_link "$p"
    elif [ -f "$p" ] && [ -r "$p" ]; then copy_file "$p"
    elif [ -f "$p" ]; then echo "${p#/} EACCES" >> "$unreadable"
    elif [ -d "$p" ]; then mkdir -p "$out/${p#/}"
    fi
  done
}
ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000
copy_gids() {  # $1 = real port dir. GID tables have up to 1024 slots, nearly all empty: keep the
  # populated ones and two empty ones (whose gid_attrs fail with EINVAL, as the kernel does).
  local port=$1 zeros=0 g i
  for f in "$port"/pkeys/0 "$port"/pkeys/1; do [ -f "$f" ] && copy_file "$f"; done
  for f in "$port"/gids/*; do
    [ -f "$f" ] || continue
    i=${f##*/}
    read -r g < "$f" 2>/dev/null || continue   # builtin: a GID read never blocks, and 1024 forks are slow
    if [ "$g" = "$ZERO_GID" ]; then
      zeros=$((zeros + 1)); [ $zeros -le 2 ] || continue
    fi
    copy_file "$f"
    for a in types ndevs; do [ -f "$port/gid_attrs/$a/$i" ] && copy_file "$port/gid_attrs/$a/$i"; done
  done
}
copy_pci() {  # $1 = real path of a PCI function: its attributes, and the bus/pci/devices link
  [ -d "$1" ] || return 0
  find "$1" -maxdepth 1 -type f | while read -r f; do
    case "${f##*/}" in config|rom|resource*|remove|rescan|reset*|vpd|driver_override) continue ;; esac
    [ -r "$f" ] && copy_file "$f"
  done
  for l in driver device; do [ -L "$1/$l" ] && copy_link "$1/$l"; done
  # the config space, byte for byte: 64 bytes unless run as root (CAP_SYS_ADMIN), which fabricd then knows
  [ -r "$1/config" ] && timeout 5 cat "$1/config" > "$out/${1#/}/config" 2>/dev/null || rm -f "$out/${1#/}/config"
  if [ -L "$1/iommu_group" ]; then
    copy_link "$1/iommu_group"
    local g; g=$(realpath "$1/iommu_group")
    [ -f "$g/type" ] && copy_file "$g/type"
  fi
  local bdf=${1##*/}
  [ -L "/sys/bus/pci/devices/$bdf" ] && copy_link "/sys/bus/pci/devices/$bdf"
}

if [ "${2:-}" = "--device" ]; then  # internal: copy one device, run under `timeout` below
  dev=$3
  copy_link "$dev"
  real=$(realpath "$dev")
  copy_dir "$real" 6
  for port in "$real"/ports/*; do copy_gids "$port"; done
  pci=$(realpath "$dev/device" 2>/dev/null) && copy_pci "$pci"
  exit 0
fi

netdevs=""
for dev in /sys/class/infiniband/*; do
  [ -e "$dev" ] || continue
  timeout 300 bash "$0" "$out" --device "$dev" ||
    echo "capture-host: $dev not copied completely (a read hung or failed)" >&2
  for n in "$dev"/ports/*/gid_attrs/ndevs/* ; do
    read -r v < "$n" 2>/dev/null && netdevs="$netdevs $v"  # builtin: up to 1024 slots
  done
  [ -f "$dev/parent" ] && read -r v < "$dev/parent" && netdevs="$netdevs $v"
  [ -d "$dev/device/net" ] && netdevs="$netdevs $(ls "$dev/device/net")"
done
pause_json() {  # `ethtool -a` text on stdin -> {"autoneg": .., "rx": .., "tx": ..}; fails without all three
  awk -F: 'function b(v) { gsub(/[ \t]/, "", v); return v == "on" ? "true" : v == "off" ? "false" : "" }
    /^Autonegotiate/ { a = b($2) } /^RX:/ { r = b($2) } /^TX:/ { t = b($2) }
    END { if (a == "" || r == "" || t == "") exit 1; printf "{\"autoneg\": %s, \"rx\": %s, \"tx\": %s}\n", a, r, t }'
}
for nd in $(printf '%s\n' $netdevs | sort -u); do
  [ -e "/sys/class/net/$nd" ] || continue
  copy_link "/sys/class/net/$nd"
  copy_dir "$(realpath "/sys/class/net/$nd")" 1
  if command -v ethtool >/dev/null; then
    timeout 5 ethtool -S "$nd" > "$out/fabricd/ethtool/$nd.txt" 2>/dev/null || rm -f "$out/fabricd/ethtool/$nd.txt"
    timeout 5 ethtool -a "$nd" 2>/dev/null | pause_json > "$out/fabricd/ethtool/$nd.pause.json" ||
      rm -f "$out/fabricd/ethtool/$nd.pause.json"
  fi
  if command -v dcb >/dev/null; then
    if pfc=$(timeout 5 dcb -j -s pfc show dev "$nd" 2>"$out/.err"); then
      app=$(timeout 5 dcb -j -N app show dev "$nd" 2>/dev/null) || app='{}'
      printf '{"pfc": %s, "app": %s}\n' "${pfc:-{\}}" "${app:-{\}}" > "$out/fabricd/dcb/$nd.json"
    elif grep -q "not supported" "$out/.err"; then
      echo '{"supported": false}' > "$out/fabricd/dcb/$nd.json"   # no DCB ops on this netdev (veth, virtio)
    fi
  fi
done
for dev in /sys/class/infiniband/*; do
  [ -e "$dev" ] || continue
  command -v ibv_devinfo >/dev/null && timeout 10 ibv_devinfo -v -d "${dev##*/}" > "$out/fabricd/verbs/${dev##*/}.ibv_devinfo.txt" 2>/dev/null ||
    rm -f "$out/fabricd/verbs/${dev##*/}.ibv_devinfo.txt"
done
command -v rdma >/dev/null && timeout 10 rdma -j resource show qp > "$out/fabricd/rdma/qp.json" 2>/dev/null ||
  rm -f "$out/fabricd/rdma/qp.json"
rm -f "$out/.err"
[ -r /proc/modules ] && mkdir -p "$out/proc" && cp /proc/modules "$out/proc/modules"
[ -r /proc/cmdline ] && mkdir -p "$out/proc" && cp /proc/cmdline "$out/proc/cmdline"
if [ -d /sys/class/iommu ]; then  # the IOMMU units: an empty folder when there are none
  mkdir -p "$out/sys/class/iommu"
  for u in /sys/class/iommu/*; do [ -L "$u" ] && copy_link "$u"; done
fi
printf '{"format": 1, "hostname": "%s", "kernel": "%s", "captured_at": "%s", "fabricd_version": "capture-host.sh", "labels": {}}\n' \
  "$(hostname)" "$(uname -r)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$out/fabricd-snapshot.json"
echo "snapshot of $(ls /sys/class/infiniband 2>/dev/null | wc -l) RDMA device(s) written to $out" >&2
