#!/bin/sh
# perf-vs-exitbench.sh: `perf kvm stat report` against `exitbench profile
# report` on the same events, inside the nested kvm_amd (tests/nested/
# in-svm.sh: exitbench boot --exec), one boot: record a workload of at least MIN_EXITS exits with
# `perf kvm stat record`, convert the perf.data with `exitbench profile
# import`, then time both reports per --event and print the ratio. The
# perf.data stays in the guest's RAM (nothing is written on the host).
#
# On the host:  tests/nested/perf-vs-exitbench.sh [EXITBENCH] [MIN_EXITS]
#               (defaults build/exitbench, 200000); needs the perf tool
#               (Debian's linux-perf) for the guest's kernel.
# Exit status: 0 when every step ran; the step's own status otherwise.
set -u
if [ "${1:-}" != --in-guest ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  eb=$(realpath "${1:-build/exitbench}")
  perf=$(command -v perf) || { echo "perf-vs-exitbench: no perf tool here (Debian: linux-perf)" >&2; exit 2; }
  perf=$(realpath "$perf")
  exec bash "$here/in-svm.sh" "$eb" --cpus 2 --memory 3072 --boot-timeout 1500s --add "$eb" --add "$perf" \
    --add "$here/perf-vs-exitbench.sh" -- sh "$here/perf-vs-exitbench.sh" --in-guest "$eb" "$perf" "${2:-200000}"
fi

# --- in the guest (busybox sh, as root) ------------------------------------------
eb=$2 perf=$3 min=$4
centis() { read -r up _ < /proc/uptime; echo "${up%.*}${up#*.}"; }
step() { echo "perf-vs-exitbench: $*"; }
cd /tmp
"$perf" --version || { step "the perf tool does not start here"; exit 3; }

# cpuid exits: about min of them in 40 measured batches, plus warm-up; the
# watchdog wide, as recording slows every exit further under TCG.
iters=$(( (min + 39) / 40 ))
t0=$(centis)
"$perf" kvm stat record -o /tmp/perf.data -- \
  "$eb" run cpuid -n "$iters" -r 40 --watchdog 60s --sessions 1 --no-baseline --no-save --no-trace-verify --format kut
rc=$?
step "perf kvm stat record: status $rc, $(( ($(centis) - t0) / 100 )) s, $(wc -c < /tmp/perf.data) bytes"
[ $rc = 0 ] || exit $rc

t0=$(centis)
"$eb" profile import /tmp/perf.data -o /tmp/perf.trace || exit $?
step "exitbench profile import: $(( ($(centis) - t0) * 10 )) ms"

# Each report three times, the best kept: the first run warms the page cache.
best() {
  b=
  for _ in 1 2 3; do
    t0=$(centis)
    "$@" > /tmp/report.out 2>&1 || { cat /tmp/report.out >&2; return 1; }
    t=$(( ($(centis) - t0) * 10 ))
    [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
  done
  echo "$b"
}
status=0
events="vmexit mmio ioport"  # perf 6.1's; msr came later
"$perf" kvm stat report -h 2>&1 | grep -q 'msr' && events="$events msr"
for ev in $events; do
  p=$(best "$perf" kvm -i /tmp/perf.data stat report --event="$ev") || { step "perf kvm stat report --event=$ev failed"; status=1; continue; }
  [ "$ev" = vmexit ] && { step "perf kvm stat report --event=vmexit:"; cat /tmp/report.out; }
  e=$(best "$eb" profile report -i /tmp/perf.trace --event "$ev" --perf) || { step "exitbench profile report --event $ev failed"; status=1; continue; }
  [ "$ev" = vmexit ] && { step "exitbench profile report --event vmexit --perf:"; cat /tmp/report.out; }
  [ "$e" -gt 0 ] || e=10  # below the clock's 10 ms
  step "--event $ev: perf kvm stat report $p ms, exitbench profile report $e ms (best of 3): perf/exitbench $(( p * 10 / e / 10 )).$(( p * 10 / e % 10 ))x"
done
exit $status
