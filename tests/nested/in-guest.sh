#!/bin/sh
# Runs inside the nested kvm_amd guest (busybox sh): every exitbench command the
# nested test checks, one section each, so one boot serves them all.
# Usage: in-guest.sh PATH-TO-EXITBENCH
eb=$1
section() { echo "@@section $1"; }
done_rc() { echo "@@rc $1"; }

section list
"$eb" list --all; done_rc $?

section run
"$eb" run -n 64 -r 3 --allow-invd --watchdog 2s --format json; done_rc $?

section hang
"$eb" run selftest_hang -n 10 -r 1 --no-baseline --watchdog 2s --format json; done_rc $?

# kvm_exit per exit reason while cpuid runs: a hist trigger in our own instance.
section trace
inst=/sys/kernel/tracing/instances/exitbench-nested
trig='hist:keys=exit_reason.hex:vals=hitcount:sort=exit_reason'
mkdir "$inst" && echo "$trig" > "$inst/events/kvm/kvm_exit/trigger"
"$eb" run cpuid -n 64 -r 3 --sessions 1 --no-baseline --format json > /dev/null
rc=$?
cat "$inst/events/kvm/kvm_exit/hist"
echo "!$trig" > "$inst/events/kvm/kvm_exit/trigger"
rmdir "$inst"
done_rc $rc

# The profiler on real kvm_exit/kvm_entry pairs: in-process (run --profile),
# and record -a around a separate run, reported as perf kvm stat would.
section profile_run
"$eb" run cpuid rd_tsc_adjust_msr -n 64 -r 3 --no-baseline --profile --format json; done_rc $?

section profile_record
# Setting up the instance takes a few seconds under TCG; give it time first.
"$eb" profile record -a --duration 12 -o /tmp/exits.trace > /dev/null &
rec=$!
sleep 5
"$eb" run cpuid -n 64 -r 3 --sessions 1 --no-baseline --format kut > /dev/null
wait $rec
"$eb" profile report -i /tmp/exits.trace --perf; done_rc $?

# Host sampling with call chains (perf_event_open): the table, then the folded stacks.
section host_profile
"$eb" run cpuid --sessions 1 -r 6 --time-goal 100ms --no-baseline --no-save --no-trace-verify \
    --host-profile=4000 --host-profile-folded /tmp/host.folded
rc=$?
echo "@@folded"
cat /tmp/host.folded
done_rc $rc

# compare --host-profile: what moved between the x2APIC and the xAPIC IPI, per round.
section compare_host_profile
"$eb" recipe run ipi-fastpath --host-profile=4000 --no-baseline --rounds 12 --repeats 2 --iterations 400 --no-save
done_rc $?

# Ctrl-C (and SIGTERM) during run --host-profile. The sampler lives per test
# (its reader thread from the test's start, its perf events from its first
# sampled batch, both gone at the test's end), so the signal goes once the
# second test samples: the first has finished by then. Printed: what was
# open before, the perf events left open in any process afterwards, the
# folded file's tests and the JSON.
perf_fds() { for f in "$@"; do readlink "$f"; done 2>/dev/null | grep -c 'perf_event'; }
for sig in INT TERM; do
  section "host_profile_sig$sig"
  "$eb" run cpuid rd_tsc_adjust_msr --sessions 1 -r 8 --time-goal 100ms --no-baseline --no-save \
      --no-trace-verify --host-profile --host-profile-folded /tmp/sig.folded --format json > /tmp/sig.json &
  pid=$!
  phase=0 polls=0  # 1: the first test samples, 2: it ended, 3: the second samples
  while [ $phase -lt 3 ] && [ $polls -lt 3000 ] && [ -d /proc/$pid ]; do
    n=$(perf_fds /proc/$pid/fd/*)
    case $phase in
      0|2) [ "$n" -gt 0 ] && phase=$((phase + 1)) && fds=$n && threads=$(ls /proc/$pid/task | wc -l) ;;
      1) [ "$n" -eq 0 ] && phase=2 ;;
    esac
    polls=$((polls + 1))
    [ $phase -lt 3 ] && sleep 0.05
  done
  echo "phase=$phase"
  # Read in the poll that saw the second test's events open, not after it.
  echo "perf_fds_before=${fds:-0}"
  echo "threads_before=${threads:-0}"
  kill -$sig $pid
  wait $pid
  rc=$?
  echo "perf_fds_after=$(perf_fds /proc/[0-9]*/fd/*)"
  echo "folded_tests=$(cut -d';' -f1 /tmp/sig.folded | sort -u | tr '\n' ' ')"
  echo "@@json"
  cat /tmp/sig.json
  done_rc $rc
done
