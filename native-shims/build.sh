#!/bin/sh
# Builds libfabricd_verbs.so into the module's classes (JNA finds it on the classpath under
# linux-x86-64/ or linux-aarch64/). Without libibverbs-dev the shim is skipped with a warning:
# fabricd then runs without verbs (RoCE active MTU derived from the netdev MTU, no max_qp).
set -eu
out="$1/$(uname -m | sed 's/x86_64/linux-x86-64/; s/aarch64/linux-aarch64/')"
if [ ! -f /usr/include/infiniband/verbs.h ]; then
  echo "[native-shims] WARNING: libibverbs-dev not installed; building fabricd without the verbs shim" >&2
  exit 0
fi
mkdir -p "$out"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -o "$out/libfabricd_verbs.so" \
  "$(dirname "$0")/src/main/c/fabricd_verbs.c" "$(dirname "$0")/src/main/c/fabricd_ud.c" \
  "$(dirname "$0")/src/main/c/fabricd_rc.c" -libverbs
echo "[native-shims] built $out/libfabricd_verbs.so"
