#!/usr/bin/env python3
"""Each rank's mirrors in a partitioned graph, from its part's out-degrees.

A rank's mirrors are the vertices outside its range with arcs in its part
(core/mirror_set.h): what it receives in a dense step is their values. One
JSON record per partitioned directory: per rank its range, arcs, stored
bytes, mirrors and mirror fraction (of the vertices it does not own).

    bench/mirrors.py PARTITIONED_DIR... > bench/results/mirrors.jsonl
"""
import json
import os
import sys
from array import array


def nonzero_outside(path, n, begin, end):
    degrees = array("I")
    with open(path, "rb") as f:
        degrees.fromfile(f, n)
    total = n - degrees.count(0)
    inside = (end - begin) - degrees[begin:end].count(0)
    return total - inside


def record(parted):
    layout = json.load(open(os.path.join(parted, "partition.json")))
    n = layout["num_vertices"]
    ranks = []
    for k, part in enumerate(layout["parts"]):
        begin, end = part["vertex_begin"], part["vertex_end"]
        manifest = json.load(open(os.path.join(parted, part["dir"], "manifest.json")))
        mirrors = nonzero_outside(os.path.join(parted, part["dir"], "out.degrees"), n, begin, end)
        others = n - (end - begin)
        ranks.append({"rank": k, "vertices_owned": end - begin, "arcs": part["arcs"],
                      "in_space_bytes": sum(s["logical_bytes"] for s in manifest["spaces"] if s["kind"] == "in"),
                      "mirrors": mirrors, "mirror_fraction": round(mirrors / others, 6) if others else 0.0})
    return {"bench": "mirrors", "graph": os.path.basename(os.path.normpath(parted)), "vertices": n,
            "arcs": layout["num_arcs"], "parts": len(ranks), "ranks": ranks}


for directory in sys.argv[1:]:
    print(json.dumps(record(directory)), flush=True)
