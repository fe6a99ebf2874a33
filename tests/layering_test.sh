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
# cli/ parses and prints: lab/ is how it reaches the layers below, by
# include and by name.
mkdir -p "$tree"/{cli,lab,suite}
rm "$tree/kvm/vcpu.h"
printf '#include "lab/vocabulary.h"\nint n(const eb::lab::RunReport&);\n' >"$tree/cli/run.cpp"
bash "$1" "$tree" || { echo "FAIL: cli/ using lab/ was refused" >&2; exit 1; }
printf '#include "suite/registry.h"\n' >"$tree/cli/list.cpp"
if cli=$(bash "$1" "$tree" 2>&1); then
    echo "FAIL: cli/ including suite/ passed" >&2
    exit 1
fi
grep -q 'cli/list.cpp:1 includes suite/' <<<"$cli" || { echo "FAIL: the error does not name the file: $cli" >&2; exit 1; }
printf '#include "lab/catalog.h"\nauto& r = eb::suite::registry();\n' >"$tree/cli/list.cpp"
if cli2=$(bash "$1" "$tree" 2>&1); then
    echo "FAIL: cli/ naming suite:: passed" >&2
    exit 1
fi
grep -q 'cli/list.cpp:2 names a layer below lab/' <<<"$cli2" || { echo "FAIL: the error does not name the line: $cli2" >&2; exit 1; }
echo "ok: down passes, up fails with: $out; cli/ past lab/ fails with: $cli; $cli2"
