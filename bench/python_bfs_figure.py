"""The figure of docs/python.md: BFS on the Luxembourg road network with
--io full, selective and auto, drawn by sg.plot. The graph is stored in
4 KiB chunks under WORK_DIR (an emulated HDD for the published figure) and
the chunk cache is off, so that every step reads what it plans to read.
Run it with the package's interpreter, inside the disk emulator:
    emudisk.sh run --mem 256 -- build-venv/bin/python bench/python_bfs_figure.py WORK_DIR [OUT_DIR] [DATASETS]
One JSON line a run."""

import json
import os
import shutil
import sys

import shardgraph as sg

here = os.path.dirname(os.path.abspath(__file__))
work = sys.argv[1]
out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "docs", "img")
datasets = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "..", "..", "shared", "datasets")
source = os.path.join(datasets, "luxembourg_osm", "luxembourg_osm.mtx")

graph = os.path.join(work, "luxembourg_osm")
shutil.rmtree(graph, ignore_errors=True)
g = sg.ingest(source, graph, memory="64M", chunk_bytes="4K", progress=False)
runs = [g.bfs(source=1, io=io, memory="64M", cache=False, progress=False) for io in ("full", "selective", "auto")]
figure = sg.plot(runs, title="BFS from vertex 1 on luxembourg_osm, one emulated HDD, no chunk cache")
figure.savefig(os.path.join(out_dir, "python-bfs-luxembourg.png"), dpi=72)
for r in runs:
    s = r.stats
    print(json.dumps({"bench": "python-bfs-figure", "graph": "luxembourg_osm", "io": s["io_mode"],
                      "seconds": round(s["seconds"], 3), "steps": len(s["steps"]), "bytes_read": s["bytes_read"],
                      "requests": s["requests"], "io_wait_seconds": round(s["io_wait_seconds"], 3),
                      "vertices": g.info["vertices"], "edges": g.info["edges"]}))
shutil.rmtree(graph)
