#!/usr/bin/env python3
"""Validates real `exitbench run --json` output against result/exitbench-run.schema.json.

Usage: validate_run.py EXITBENCH SCHEMA [KUT_LOG]. With KUT_LOG, a real
vmexit.flat log imported with `import kut` is validated as well. Exits 77 (ctest's skip) when
python3-jsonschema or /dev/kvm is absent, saying which.

validate_run.py --imports EXITBENCH SCHEMA KUT_LOG... needs no /dev/kvm: each real log
imported on its own, and all of them copied to a logs/ directory and imported as one run
(provenance.imported.logs), are validated.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    if sys.argv[1] == "--imports":
        return imports_main(sys.argv[2], sys.argv[3], sys.argv[4:])
    exitbench, schema_path = sys.argv[1], sys.argv[2]
    # A sanitizer job runs its own binary through the main build's tests.
    exitbench = os.environ.get("EB_BINARY") or exitbench
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
        return SKIP
    if not os.path.exists("/dev/kvm"):
        print("SKIP: /dev/kvm is absent, so there is no real output to validate")
        return SKIP
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    runs = {
        "sessions": ["cpuid", "inl_from_qemu", "-n", "64", "-r", "3", "--sessions", "2"],
        "per-exit": ["cpuid", "-n", "64", "-r", "2", "--sessions", "1", "--per-exit"],
    }
    with tempfile.TemporaryDirectory(prefix="exitbench-schema-") as tmp:
        for name, args in runs.items():
            out = os.path.join(tmp, name + ".json")
            proc = subprocess.run([exitbench, "run", *args, "--no-save", "--json", out],
                                  capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                print(f"FAIL: exitbench run {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
                return 1
            with open(out) as f:
                doc = json.load(f)
            if not valid(validator, name, doc):
                return 1
            # Tests with userspace exits carry the split of their cost.
            split = [r["name"] for r in doc["results"] if r["name"] == "inl_from_qemu" and not r["userspace_split"]]
            if split:
                print(f"FAIL: {name}: no userspace_split for {split}")
                return 1
            # The schema must reject what the reader rejects, or it checks nothing.
            doc["provenance"].pop("boot_id")
            if validator.is_valid(doc):
                print(f"FAIL: {name}: the schema accepts a result without provenance.boot_id")
                return 1
            print(f"ok: {name}: {len(doc['results'])} results valid against {os.path.basename(schema_path)}")
        if len(sys.argv) > 3 and not imported_valid(exitbench, validator, sys.argv[3], tmp):
            return 1
    return 0


def valid(validator, name, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print(f"FAIL: {name}: {'/'.join(map(str, e.path))}: {e.message}")
    return not errors


def imported_valid(exitbench, validator, log, tmp):
    db = os.path.join(tmp, "h.db")
    for args in (["import", "kut", log], ["history", "export", "1", "--json"]):
        proc = subprocess.run([exitbench, *args, "--db", db], capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            print(f"FAIL: exitbench {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
            return False
    doc = json.loads(proc.stdout)
    if not valid(validator, "imported", doc):
        return False
    if doc["provenance"]["imported"] is None:
        print("FAIL: imported: provenance.imported is null")
        return False
    print(f"ok: imported {os.path.basename(log)}: {len(doc['results'])} results valid")
    return True


def load_validator(schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def imports_main(exitbench, schema_path, logs):
    exitbench = os.environ.get("EB_BINARY") or exitbench
    global jsonschema
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
        return SKIP
    validator = load_validator(schema_path)
    with tempfile.TemporaryDirectory(prefix="exitbench-schema-") as tmp:
        for log in logs:
            if not imported_valid(exitbench, validator, log, tmp):
                return 1
        logdir = os.path.join(tmp, "logs")
        os.mkdir(logdir)
        for log in logs:
            shutil.copy(log, logdir)
        db = os.path.join(tmp, "one-run.db")
        for args in (["import", "kut", logdir], ["history", "export", "1", "--json"]):
            proc = subprocess.run([exitbench, *args, "--db", db], capture_output=True, text=True, timeout=60)
            if proc.returncode != 0:
                print(f"FAIL: exitbench {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
                return 1
        doc = json.loads(proc.stdout)
        if not valid(validator, "one run of logs", doc):
            return 1
        if len(doc["provenance"]["imported"].get("logs", [])) != len(logs):
            print(f"FAIL: one run of logs: provenance.imported.logs is not one per log: {doc['provenance']}")
            return 1
        # The schema must refuse what is not a log's sha256, or it checks nothing.
        doc["provenance"]["imported"]["logs"][0]["sha256"] = "not a digest"
        if validator.is_valid(doc):
            print("FAIL: one run of logs: the schema accepts a log without a sha256")
            return 1
        print(f"ok: {len(logs)} logs imported as one run valid, each log's sha256 kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
