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
echo "systemd_test: ok"
