#!/usr/bin/env bash
# The layering check (layering.sh) on a small tree of its own: an include
# that points down passes, one that points up fails and names the file.
# Usage: layering_test.sh LAYERING_SH
set -euo pipefail
tree=$(mktemp -d "${TMPDIR:-/tmp}/eb_layering.XXXXXX")
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{sys,kvm,vmm}
printf '#include "sys/io.h"\n' >"$tree/kvm/vm.cpp"
bash "$1" "$tree" || { echo "FAIL: kvm/ including sys/ was refused" >&2; exit 1; }
printf '#include <cstdio>\n#include "vmm/machine.h"\n' >"$tree/kvm/vcpu.h"
if out=$(bash "$1" "$tree" 2>&1); then
    echo "FAIL: kvm/ including vmm/ passed" >&2
    exit 1
fi
grep -q 'kvm/vcpu.h:2 includes vmm/' <<<"$out" || { echo "FAIL: the error does not name the file: $out" >&2; exit 1; }
echo "ok: down passes, up fails with: $out"
