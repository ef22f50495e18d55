#!/usr/bin/env python3
"""Prints the top-level tests that failed in a `go test -json` file, one
line a package: the package, a tab, a -run pattern naming them. Exits 1 when
a package failed with no failed test to name (a build error, a panic, a
timeout): a second try cannot mend that."""
import json
import sys

failed, broken = {}, set()
with open(sys.argv[1]) as f:
    for line in f:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("Action") != "fail" or not e.get("Package"):
            continue
        if e.get("Test"):
            failed.setdefault(e["Package"], set()).add(e["Test"].split("/")[0])
        else:
            broken.add(e["Package"])
if broken - failed.keys():
    sys.exit(1)
for pkg, tests in sorted(failed.items()):
    print(pkg + "\t^(" + "|".join(sorted(tests)) + ")$")
