#!/usr/bin/env bash
# run-in-svm.sh: run a command inside a Linux guest whose /dev/kvm is a real
# kvm_amd (AMD SVM), for testing exitbench against real SVM exit handling.
#
# Why: CI hosts (and this one) often have no usable hardware KVM, or one that
# is not SVM. QEMU's TCG emulates an AMD EPYC with SVM+NPT, so the stock Debian
# kernel booted under it loads kvm_amd. Everything is emulated (roughly 60-200
# us per exit), so use it to check behaviour and exit reasons, not timings.
#
# How: build an initramfs (busybox, the newest installed kernel's irqbypass,
# ccp, kvm and kvm-amd modules, every --add file plus its shared libraries),
# boot it with QEMU, load the modules from /init, run COMMAND as root with
# /proc, /sys, /dev and /sys/kernel/tracing mounted, then power off.
# COMMAND's stdout comes back on the serial console between markers, its
# stderr on a second serial port (guest /dev/ttyS1); both are printed once
# the guest has powered off.
#
# Usage: run-in-svm.sh [--smp N] [--mem MB] [--timeout SECONDS] [--add PATH]...
#                      -- COMMAND [ARG...]
#   --add PATH  copy a file or directory into the guest at the same path
#   defaults: --smp 1 --mem 2048 --timeout 300 (QEMU's run time only)
# Exit status: COMMAND's own; 124 if QEMU timed out (default 300 s); 125 if
# the guest could not run COMMAND (no kernel or modules, boot failure, kernel
# panic, insmod failure, no /dev/kvm); 2 on a usage error.
# Missing qemu-system-x86, linux-image-amd64, busybox-static, cpio or xz-utils
# are installed with apt-get when run as root.
set -euo pipefail

me=run-in-svm
die() { echo "$me: $2" >&2; exit "$1"; }

smp=1 mem=2048 timeout_s=300 adds=()
while [ $# -gt 0 ]; do
  case $1 in
    --smp|--mem|--timeout|--add)
      [ $# -ge 2 ] || die 2 "$1 needs a value"
      case $1 in
        --smp) smp=$2 ;;
        --mem) mem=$2 ;;
        --timeout) timeout_s=$2 ;;
        --add) [ -e "$2" ] || die 2 "--add $2: no such file"; adds+=("$(realpath -s "$2")") ;;
      esac
      shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) die 2 "unknown option '$1' (see --help)" ;;
  esac
done
[ $# -gt 0 ] || die 2 "no COMMAND given (usage: $0 [options] -- COMMAND [ARG...])"
for n in "$smp" "$mem" "$timeout_s"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die 2 "'$n' is not a positive integer"
done

# --- host prerequisites -------------------------------------------------------
newest_kernel() { # newest version that has both a kernel image and modules
  local v
  for v in /lib/modules/*; do echo "${v##*/}"; done | sort -rV | while read -r v; do
    if [ -f "/boot/vmlinuz-$v" ]; then echo "$v"; break; fi
  done
}
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -n "$(newest_kernel)" ] || need+=(linux-image-amd64)
command -v busybox >/dev/null || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v xz >/dev/null || need+=(xz-utils)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die 125 "missing ${need[*]}; run as root to install them"
  echo "$me: installing ${need[*]}" >&2
  apt-get update -q >/dev/null || die 125 "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${need[@]}" >/dev/null || die 125 "apt-get install ${need[*]} failed"
fi
kver=$(newest_kernel)
[ -n "$kver" ] || die 125 "no kernel image: no /boot/vmlinuz-V with /lib/modules/V"
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || die 125 "cannot read $kernel"

# --- initramfs ------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/run-in-svm.XXXXXX")
qpid=
# shellcheck disable=SC2317 # reached through the EXIT trap
cleanup() {
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,modules}

# copy_in PATH: copy a file or directory to the same path in the guest, with
# the shared libraries (and dynamic loader) of every executable file in it.
copy_in() {
  local f lib
  mkdir -p "$root$(dirname "$1")"
  cp -a -H "$1" "$root$1" # -H: an --add symlink arrives as its target
  while IFS= read -r f; do
    { ldd "$f" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } |
      while IFS= read -r lib; do
        [ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
      done
  done < <(find "$1" -type f -perm -u+x)
}
copy_in "$(command -v busybox)"
[ -e "$root/bin/busybox" ] || cp "$root$(command -v busybox)" "$root/bin/busybox"

mods=(irqbypass ccp kvm kvm-amd) # in load order
for m in "${mods[@]}"; do
  f=$(find "/lib/modules/$kver" \( -name "$m.ko" -o -name "$m.ko.[xgz]*" \) -print -quit 2>/dev/null || true)
  out=$root/modules/$m.ko
  case $f in
    "") die 125 "no $m module in /lib/modules/$kver" ;;
    *.xz) xz -dc "$f" >"$out" ;;
    *.zst) zstd -qdc "$f" >"$out" ;;
    *.gz) gzip -dc "$f" >"$out" ;;
    *) cp "$f" "$out" ;;
  esac || die 125 "cannot decompress $f"
done
for p in ${adds[@]+"${adds[@]}"}; do copy_in "$p"; done

# Markers on the console delimit COMMAND's output and carry its status.
mark=@@run-in-svm
{
  cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
EOF
  echo "mark=$mark"
  echo "mods='${mods[*]}'"
  cat <<'EOF'
fail() { echo "$mark-error: $*@@"; exec >/dev/null 2>&1; poweroff -f; }
for m in $mods; do
  err=$(insmod /modules/$m.ko 2>&1) || fail "insmod $m.ko failed:" $err
done
[ -c /dev/kvm ] || fail "kvm_amd loaded but there is no /dev/kvm in the guest"
dmesg -n 1  # keep kernel messages (but not panics) out of COMMAND's output
mkdir -p /root
cd /tmp
echo "$mark-start@@"
EOF
  printf '%q ' "$@"
  echo '</dev/null 2>/dev/ttyS1'
  cat <<'EOF'
echo "$mark-status=$?@@"
exec >/dev/null 2>&1 </dev/null  # last close of the console waits for it to drain
poweroff -f
EOF
} >"$root/init"
chmod 755 "$root/init"
# Uncompressed: unpacking gzip under TCG costs more than loading the bytes.
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initramfs"

# TCG needs ~5 s to decompress an xz bzImage; if the kernel has a PVH entry,
# boot its ELF vmlinux instead (extracted on the host in ~1 s).
if grep -qx 'CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null; then
  off=$(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$kernel" | head -1 | cut -d: -f1) || true
  if [ -n "$off" ] && xz -dc --single-stream \
      <(tail -c +"$((off + 1))" "$kernel") >"$work/vmlinux" 2>/dev/null; then
    kernel=$work/vmlinux
  fi
fi

# --- boot -------------------------------------------------------------------------
accel=tcg
[ "$smp" -gt 1 ] && accel=tcg,thread=single # multi-threaded TCG hangs now and then
timeout -k 5 "$timeout_s" qemu-system-x86_64 -accel "$accel" -cpu EPYC,+svm,+npt \
  -m "$mem" -smp "$smp" -kernel "$kernel" -initrd "$work/initramfs" \
  -append 'console=ttyS0 rdinit=/init panic=-1 quiet' \
  -nographic -nodefaults -no-reboot -serial stdio -serial "file:$work/stderr" \
  </dev/null >"$work/console" 2>"$work/qemu.log" &
qpid=$!
qrc=0
wait "$qpid" || qrc=$?
qpid=
tr -d '\r' <"$work/console" >"$work/log"

[ "$qrc" = 124 ] && die 124 "timed out after $timeout_s s (QEMU killed)"
status=$(sed -n "s/.*$mark-status=\([0-9]*\)@@.*/\1/p" "$work/log" | tail -1)
if [ -z "$status" ]; then
  err=$(sed -n "s/.*$mark-error: \(.*\)@@.*/\1/p" "$work/log" | head -1)
  [ -n "$err" ] && die 125 "$err"
  panic=$(grep -m1 'Kernel panic' "$work/log" || true)
  [ -n "$panic" ] && die 125 "guest kernel panic: ${panic#*] }"
  if grep -q "$mark-start@@" "$work/log"; then
    echo "$me: the guest stopped before COMMAND finished (QEMU status $qrc); last 30 lines:" >&2
  else
    echo "$me: the guest never reached COMMAND (QEMU status $qrc); last 30 lines of boot log:" >&2
  fi
  tail -n 30 "$work/log" >&2
  grep -v "TCG doesn't support" "$work/qemu.log" >&2 || true
  exit 125
fi
# COMMAND's stdout: from after the start marker to before the status marker
# (which may share a line with output that did not end in a newline).
awk -v s="$mark-start@@" -v e="$mark-status=" '
  on && index($0, e) { printf "%s", substr($0, 1, index($0, e) - 1); exit }
  on { print }
  index($0, s) { on = 1 }' "$work/log"
tr -d '\r' <"$work/stderr" >&2
exit "$status"
