#!/usr/bin/env python3
"""Count what the test stages of `./dev test` did, from ctest's JUnit files.

Usage: tally.py [--kvm-list FILE] STAGE=FILE.xml...
       tally.py --failed FILE.xml
       tally.py --why STAGE=FILE.xml...

Prints one line per stage (tests, passed, skipped, failed), a total, and the
skipped tests grouped by the reason the test itself gave, so a run in which
most tests skipped says so in its last lines. Exits 1 if no test passed.
With --kvm-list (integration_tests --eb-kvm-list's output): where the tests
that need /dev/kvm ran, the skips for its lack against the nested runs.
With --failed: one line naming the stage's failed tests (a whole gtest
binary's entry, the nested guest's, by its own failed tests).
With --why: the lines each failed test printed after its gtest failures.
"""
import collections
import re
import sys
import xml.etree.ElementTree as ET

# gtest prints "file:line: Skipped" and then the reason on the next line; the
# scripts ctest runs (SKIP_RETURN_CODE 77) print "SKIP: reason".
SKIP_REASON = re.compile(r":\d+: Skipped\n(.+)|^SKIP: (.+)", re.M)
# A ctest entry that runs a whole gtest binary (the nested guest's) ends with
# gtest's own summary: those tests are counted as its inner tests.
INNER = {kind: re.compile(rf"^\[ *{kind} *\] (\d+) tests?[.,]", re.M) for kind in ("PASSED", "SKIPPED", "FAILED")}


def inner_counts(out):
    found = {kind: sum(int(n) for n in rx.findall(out)) for kind, rx in INNER.items()}
    return found if sum(found.values()) > 1 else None


def stage_counts(path, inner):
    counts = collections.Counter()
    reasons = collections.Counter()
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None, reasons
    for case in root.iter("testcase"):
        counts["tests"] += 1
        found = inner_counts(case.findtext("system-out") or "")
        if found:
            inner.append((case.get("name"), found))
        status = case.get("status")
        if case.find("skipped") is not None or status == "notrun":
            counts["skipped"] += 1
            out = case.findtext("system-out") or ""
            m = SKIP_REASON.search(out)
            reasons[(m.group(1) or m.group(2)).strip() if m else "no reason printed"] += 1
        elif case.find("failure") is not None or status == "fail":
            counts["failed"] += 1
        else:
            counts["passed"] += 1
    return counts, reasons


# gtest's own line for each failed test, at the end of its summary.
INNER_FAILED = re.compile(r"^\[  FAILED  \] ([\w/.]+)(?:, where| \(|$)", re.M)


def failed_names(path, limit=12):
    """The failed tests of one stage's JUnit file, one line."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return "no ctest record"
    names = []
    for case in root.iter("testcase"):
        if not (case.find("failure") is not None or case.get("status") == "fail"):
            continue
        inner = sorted(set(INNER_FAILED.findall(case.findtext("system-out") or "")) - {case.get("name")})
        names.append(f"{case.get('name')} ({', '.join(inner)})" if inner else case.get("name"))
    if not names:
        return "no test failed: the stage itself did"
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def failure_lines(path, per_test=4, limit=24):
    """What each failed test of one stage said at its gtest failures (the
    lines after "Failure"), so that the tail of a CI log, which may be all
    that is kept, shows why and not only which."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    out = []
    for case in root.iter("testcase"):
        if not (case.find("failure") is not None or case.get("status") == "fail"):
            continue
        lines = (case.findtext("system-out") or "").splitlines()
        said = []
        for i, line in enumerate(lines):
            if line.endswith(": Failure") and len(said) < per_test:
                said += [l.strip()[:300] for l in lines[i + 1:i + 3] if l.strip() and l.strip() != "Failed"]
        out += [f"  {case.get('name')}: {l}" for l in (said[:per_test] or ["(no gtest failure line: see its log)"])]
    return out[:limit]


NO_KVM = "/dev/kvm is absent on this machine"  # tests/integration/kvm_test.h's skip


def kvm_account(kvm_list, stages):
    """Where the tests that need /dev/kvm ran: skipped on the host for its
    lack, run in the nested kvm_amd, or host only (with the reason, once)."""
    try:
        lines = [l.rstrip("\n") for l in open(kvm_list) if l.strip()]
    except OSError:
        return
    host_only = [l.split("\thost only: ", 1) for l in lines if "\thost only: " in l]
    nested_want = len(lines) - len(host_only)
    print(f"dev: tests that need /dev/kvm (integration_tests --eb-kvm-list): {len(lines)}, "
          f"{nested_want} for the nested kvm_amd, {len(host_only)} host only")
    for stage, path in stages:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue
        skipped = sum(1 for c in root.iter("testcase")
                      if c.find("skipped") is not None and NO_KVM in (c.findtext("system-out") or ""))
        nested = [c for c in root.iter("testcase") if (c.get("name") or "").startswith("nested_integration_")]
        if skipped:
            print(f"  {stage}: {skipped} skipped for lack of /dev/kvm")
        if nested:
            found = collections.Counter()
            for c in nested:
                found.update(inner_counts(c.findtext("system-out") or "") or {})
            ran = found["PASSED"] + found["FAILED"] + found["SKIPPED"]
            verdict = "as the registry says" if ran == nested_want else f"NOT the {nested_want} the registry names"
            print(f"  {stage}: {ran} run in the nested kvm_amd ({found['PASSED']} passed, {found['SKIPPED']} "
                  f"skipped, {found['FAILED']} failed): {verdict}")
    if host_only:
        print("  host only, and why:")
        for name, why in host_only:
            print(f"    {name}: {why}")


def main(args):
    if args[:1] == ["--failed"]:
        print(failed_names(args[1]) if len(args) > 1 else "no ctest record")
        return 0
    if args[:1] == ["--why"]:
        for stage, path in (a.split("=", 1) for a in args[1:]):
            lines = failure_lines(path)
            if lines:
                print(f"dev: why {stage} failed:")
                print("\n".join(lines))
        return 0
    kvm_list = None
    if args[:1] == ["--kvm-list"] and len(args) > 1:
        kvm_list, args = args[1], args[2:]
    total = collections.Counter()
    reasons = collections.Counter()
    inner = []
    print("dev: tests per stage              tests  passed skipped  failed")
    for arg in args:
        stage, _, path = arg.partition("=")
        counts, why = stage_counts(path, inner)
        if counts is None:
            print(f"  {stage:<30} (no ctest record: the stage did not run)")
            continue
        total += counts
        reasons += why
        print(f"  {stage:<30} {counts['tests']:6d} {counts['passed']:7d} "
              f"{counts['skipped']:7d} {counts['failed']:7d}")
    print(f"  {'total':<30} {total['tests']:6d} {total['passed']:7d} "
          f"{total['skipped']:7d} {total['failed']:7d}")
    for name, found in inner:
        print(f"dev: inside {name}: {found['PASSED']} passed, {found['SKIPPED']} skipped, "
              f"{found['FAILED']} failed")
    if reasons:
        print("dev: skipped tests, by the reason they gave")
        for why, n in reasons.most_common():
            print(f"  {n:6d}  {why}")
    if kvm_list:
        kvm_account(kvm_list, [a.partition("=")[::2] for a in args])
    return 0 if total["passed"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
