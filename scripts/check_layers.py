#!/usr/bin/env python3
"""Checks the include layering: a file includes only headers of its own
layer or of lower ones, and no unit (a .h with its .cc) depends on itself
through others. Layers, lowest first, as docs/architecture.md draws them.
Prints each violation and exits 1 if there is any."""
import os
import re
import sys

LAYERS = [
    "include/shardgraph/status.h",  # the public Status: includes nothing of the tree
    "base",
    "compression",
    "shards/format", "shards/io", "shards/ingest", "shards/update",
    "scheduler",
    "core",
    "apps/harness", "apps/kernels", "apps/jobs", "apps/run", "include/shardgraph/shardgraph.h", "apps/api", "apps/cli",
    "python/src",  # the Python extension module, over the API only (beside the CLI)
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    best = None
    for i, layer in enumerate(LAYERS):
        if path == layer or path.startswith(layer + "/"):
            best = i
    return best


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = []
    for top in ("include", "base", "compression", "shards", "scheduler", "core", "apps", "python/src"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names if n.endswith((".h", ".cc"))]
    problems = []
    units = {}  # unit (path without extension) -> units it includes
    for f in sorted(files):
        text = open(os.path.join(root, f), encoding="utf-8").read()
        mine = layer_of(f)
        if mine is None:
            problems.append(f"{f}: in no layer")
            continue
        unit = os.path.splitext(f)[0]
        deps = units.setdefault(unit, set())
        for inc in INCLUDE.findall(text):
            if inc.startswith("shardgraph/"):
                inc = "include/" + inc  # a public header, found through include/
            theirs = layer_of(inc)
            if theirs is None:
                continue  # a test or third-party header
            if theirs > mine:
                problems.append(f"{f}: includes {inc} from a higher layer ({LAYERS[theirs]} above {LAYERS[mine]})")
            dep = os.path.splitext(inc)[0]
            if dep != unit:
                deps.add(dep)
    # Cycles between units.
    state = {}

    def visit(unit, stack):
        state[unit] = 1
        for dep in sorted(units.get(unit, ())):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep):] + [dep] if dep in stack else [unit, dep]
                problems.append("include cycle: " + " -> ".join(cycle))
            elif dep not in state:
                visit(dep, stack + [dep])
        state[unit] = 2

    for unit in sorted(units):
        if unit not in state:
            visit(unit, [unit])
    for p in problems:
        print(p)
    print(f"check_layers: {len(files)} files, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
