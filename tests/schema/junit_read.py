#!/usr/bin/python3
# Reads a JUnit file with python3-junitparser, as CI tooling does, and prints
# one line per testcase: suite, case, result (pass, or the result element's
# kind and type), its message, and whether system-out carries the figures.
import sys

from junitparser import JUnitXml

for suite in JUnitXml.fromfile(sys.argv[1]):
    for case in suite:
        results = case.result or []
        kind = ",".join(f"{type(r).__name__.lower()}:{r.type}" for r in results) or "pass"
        message = results[0].message if results else ""
        figures = "status=" in (case.system_out or "")
        print(f"{suite.name}|{case.name}|{kind}|{message}|figures={figures}")
