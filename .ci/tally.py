#!/usr/bin/env python3
"""Count what the test stages of `./dev test` did, from ctest's JUnit files.

Usage: tally.py STAGE=FILE.xml...

Prints one line per stage (tests, passed, skipped, failed), a total, and the
skipped tests grouped by the reason the test itself gave, so a run in which
most tests skipped says so in its last lines. Exits 1 if no test passed.
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


def main(args):
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
    return 0 if total["passed"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
