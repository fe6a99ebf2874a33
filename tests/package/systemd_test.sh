#!/usr/bin/env bash
# `systemd-analyze verify` on the shipped timer and service (packaging/systemd),
# with ExecStart pointed at the built binary (verify requires an executable).
# Any warning fails the test too: verify only exits non-zero for some errors.
#   tests/package/systemd_test.sh SOURCE_DIR EXITBENCH_BINARY
set -euo pipefail
src=$1 bin=$2
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze (Debian package systemd) is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "systemd_test: FAIL: $*" >&2; exit 1; }

verify() {  # verify DIR: rc 0 and not a word said
    local said
    said=$(systemd-analyze verify --man=no "$1"/exitbench-fleet.service "$1"/exitbench-fleet.timer 2>&1) || { echo "$said"; return 1; }
    [ -z "$said" ] || { echo "$said"; return 1; }
}

mkdir "$tmp/units" "$tmp/broken"
sed "s|/usr/bin/exitbench|$bin|" "$src/packaging/systemd/exitbench-fleet.service" > "$tmp/units/exitbench-fleet.service"
cp "$src/packaging/systemd/exitbench-fleet.timer" "$tmp/units/"
grep -q "^ExecStart=$bin run " "$tmp/units/exitbench-fleet.service" || fail "ExecStart does not run /usr/bin/exitbench run"
verify "$tmp/units" || fail "systemd-analyze verify rejects the units"
echo "systemd-analyze verify: exitbench-fleet.service and exitbench-fleet.timer accepted"

# The check can fail: a misspelt key and a bad calendar are caught.
sed 's/^Nice=/Nicee=/' "$tmp/units/exitbench-fleet.service" > "$tmp/broken/exitbench-fleet.service"
cp "$tmp/units/exitbench-fleet.timer" "$tmp/broken/"
! verify "$tmp/broken" >/dev/null || fail "verify accepted an unknown key"
cp "$tmp/units/exitbench-fleet.service" "$tmp/broken/"
sed 's/^OnCalendar=daily/OnCalendar=dayly/' "$tmp/units/exitbench-fleet.timer" > "$tmp/broken/exitbench-fleet.timer"
! verify "$tmp/broken" >/dev/null || fail "verify accepted a bad calendar"

# The service publishes atomically into the collector's directory, and
# saves to the history.
grep -q -- '--export-openmetrics ${EXITBENCH_TEXTFILE}' "$tmp/units/exitbench-fleet.service" || fail "no textfile export"
grep -q -- '--db /var/lib/exitbench/history.db' "$tmp/units/exitbench-fleet.service" || fail "no history"

# The sandbox: systemd-analyze security's exposure at most 4.5 (--threshold
# is in tenths), keeping what a run needs.
said=$(systemd-analyze security --offline=true --threshold=45 "$tmp/units/exitbench-fleet.service" 2>&1) ||
    { echo "$said"; fail "systemd-analyze security rates the service above 4.5"; }
echo "systemd-analyze security: $(tail -1 <<<"$said")"
svc=$tmp/units/exitbench-fleet.service
for need in '^DeviceAllow=/dev/kvm rw$' '^SystemCallFilter=@system-service perf_event_open$' \
            '^CapabilityBoundingSet=.*CAP_PERFMON' '^StateDirectory=exitbench$' \
            '^ReadWritePaths=-/var/lib/prometheus/node-exporter$' '^TimeoutStartSec=' '^SuccessExitStatus=1$'; do
    grep -q -- "$need" "$svc" || fail "the service lacks $need"
done
! grep -q '^PrivateDevices=yes' "$svc" || fail "PrivateDevices would hide /dev/kvm"
! grep -q '^ProtectKernelTunables=yes' "$svc" || fail "ProtectKernelTunables would make tracefs read-only"
# The check can fail: without its sandbox the service is rated above 4.5.
grep -v -e '^Protect' -e '^Private' -e '^Restrict' -e '^SystemCall' -e '^Capability' -e '^Device' "$svc" \
    > "$tmp/broken/exitbench-fleet.service"
! systemd-analyze security --offline=true --threshold=45 "$tmp/broken/exitbench-fleet.service" >/dev/null 2>&1 ||
    fail "security accepted the service without its sandbox"
echo "systemd_test: ok"
