#!/usr/bin/env python3
"""Seconds per phase from ingest's summary line on stdin ("unordered: route
1.93 s (...), sort 2.93 s (...); order 2.01 s (...); relabel: route ...")
as one JSON object, {"unordered route": 1.93, ...}; {} when there is none."""
import json
import re
import sys

inner = re.search(r"sort batches, [0-9.]+ s \((.*)\), peak RSS", sys.stdin.read())
out = {}
for group in inner.group(1).split("; ") if inner else []:
    prefix = re.match(r"(\w+): ", group)
    for name, secs in re.findall(r"(?:^|, |: )(route|reroute|sort|order|commit|remap ids) ([0-9.]+) s", group):
        out[(prefix.group(1) + " " if prefix else "") + name] = float(secs)
print(json.dumps(out, separators=(",", ":")))
