#!/usr/bin/env python3
"""Writes testdata/bitop/cases.json: the golden BITOP cases whose sources and
result hold at most LIMIT bytes together, every error case, and the meta
block, taken unchanged from the full golden file given as the argument."""
import json
import sys

LIMIT = 2048

full = json.load(open(sys.argv[1]))
keep = []
for case in full["cases"]:
    size = sum(len(s) // 2 for s in case["sources"]) + len(case.get("result", "")) // 2
    if "error" in case or size <= LIMIT:
        keep.append(case)
meta = dict(full["meta"])
meta["subset"] = f"cases with sources and result of at most {LIMIT} bytes together, and every error case ({len(keep)} of {len(full['cases'])})"
with open("cases.json", "w") as out:
    json.dump({"meta": meta, "cases": keep}, out, separators=(",", ":"))
    out.write("\n")
