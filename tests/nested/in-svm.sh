#!/usr/bin/env bash
# in-svm.sh EXITBENCH [BOOT-OPTIONS...] -- COMMAND [ARG...]
# Runs COMMAND inside a real kvm_amd: `exitbench boot --exec` of the newest
# installed Debian kernel (one with /lib/modules/V) under QEMU TCG with an
# SVM CPU. The boot is exitbench's own, the one way the project boots a
# kernel; this only picks the kernel. Exit status: COMMAND's, boot's own on
# a failed boot, 77 (a skip) when no kernel is installed.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 EXITBENCH [BOOT-OPTIONS...] -- COMMAND [ARG...]" >&2; exit 2; }
eb=$1
shift
kernel=
for v in $(for d in /lib/modules/*; do echo "${d##*/}"; done | sort -rV); do
    if [ -f "/boot/vmlinuz-$v" ]; then kernel=/boot/vmlinuz-$v; break; fi
done
if [ -z "$kernel" ]; then
    echo "SKIP: no /boot/vmlinuz-V with /lib/modules/V (install linux-image-amd64)"
    exit 77
fi
exec "$eb" boot --kernel "$kernel" --accel tcg --exec "$@"
