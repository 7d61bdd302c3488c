"""A budget is honoured from Python: a run's peak RSS stays within
1.05 x the budget plus the stated overhead, which is what the interpreter
held before the run (Python, NumPy and the package) and the engine's fixed
4 MiB for thread stacks, io_uring rings and the allocator (the same
allowance the command line's budget test makes)."""

import subprocess
import sys

import pytest
import shardgraph as sg

CHILD = r"""
import sys
import numpy as np
import shardgraph as sg

def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field))

graph, app, budget, results = sys.argv[1], sys.argv[2], sg.memory_bytes(sys.argv[3]), sys.argv[4]
g = sg.open(graph)
overhead = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # restart the peak (VmHWM) from here
options = {"source": 0} if app == "bfs" else {}
r = g.run(app, memory=budget, progress=False, results=results, **options)
peak = status("VmHWM:")
print(overhead, peak, int(r.file_backed), r.stats["peak_rss_bytes"])
"""


@pytest.fixture(scope="module")
def rmat18(tmp_path_factory):
    where = tmp_path_factory.mktemp("budget")
    sg.generate.rmat(scale=18, out=where / "r18.bin32")
    return sg.ingest(where / "r18.bin32", where / "g", memory="64M", progress=False)


@pytest.mark.parametrize("app", ["pagerank", "bfs", "wcc"])
@pytest.mark.parametrize("budget", ["12M", "24M"])
def test_peak_rss_within_the_budget_plus_the_interpreter(rmat18, app, budget):
    done = subprocess.run([sys.executable, "-c", CHILD, rmat18.path, app, budget, "auto"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    overhead, peak, file_backed, _ = map(int, done.stdout.split())
    budget_bytes = sg.memory_bytes(budget)
    # Results go to mapped files when they would take over a sixteenth of the budget.
    assert file_backed == (rmat18.info["vertices"] * 16 > budget_bytes // 16)
    assert peak <= 1.05 * budget_bytes + overhead + (4 << 20), f"peak {peak >> 20} MiB, overhead {overhead >> 20} MiB"


def test_results_held_in_memory_are_the_stated_extra(rmat18):
    """results="memory" keeps the arrays (8-byte ids and values) beside
    what the engine holds: they are the one addition to the bound."""
    done = subprocess.run([sys.executable, "-c", CHILD, rmat18.path, "pagerank", "16M", "memory"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    overhead, peak, file_backed, _ = map(int, done.stdout.split())
    arrays = rmat18.info["vertices"] * 16
    assert not file_backed
    assert peak <= 1.05 * (16 << 20) + overhead + (4 << 20) + arrays, f"peak {peak >> 20} MiB"
