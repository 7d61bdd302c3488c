"""Shared pieces of the Python tests: the command line installed with the
package, random graphs written as edge files, and the CLI's --output read
back as arrays."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest


def cli_path():
    """The `shardgraph` command installed beside this interpreter (the
    package installs it), else one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "shardgraph")
    return here if os.access(here, os.X_OK) else shutil.which("shardgraph")


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if path is None:
        pytest.fail("the shardgraph command is not installed with the package")
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """R-MAT scale 10 ingested in 32 MiB: a graph for tests of options and
    errors, one per test module."""
    import shardgraph as sg

    where = tmp_path_factory.mktemp("small")
    sg.generate.rmat(scale=10, out=where / "r10.bin32")
    return sg.ingest(where / "r10.bin32", where / "g", memory="32M", progress=False)


def run_cli(cli, *args):
    """Runs the command line; returns its stderr (where summaries go)."""
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    return done.stderr


def read_output(path):
    """A --output file as (ids, values as text)."""
    ids, values = [], []
    with open(path) as f:
        for line in f:
            fields = line.split()
            ids.append(int(fields[0]))
            values.append(fields[1:])
    return np.array(ids, dtype=np.uint64), values


def random_arcs(seed, vertices, arcs, self_loops=False, unique=True):
    """Random arcs over `vertices` ids, skewed so that degrees vary."""
    rng = np.random.default_rng(seed)
    src = (rng.pareto(1.5, arcs) * vertices / 8).astype(np.int64) % vertices
    dst = rng.integers(0, vertices, arcs)
    if not self_loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    if unique:
        pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
        rng.shuffle(pairs)
        src, dst = pairs[:, 0], pairs[:, 1]
    return src.astype(np.uint64), dst.astype(np.uint64)


def write_snap(path, src, dst, weights=None, vertices=None):
    with open(path, "w") as f:
        if vertices is not None:
            f.write(f"# Nodes: {vertices}\n")
        for i in range(len(src)):
            if weights is None:
                f.write(f"{src[i]} {dst[i]}\n")
            else:
                f.write(f"{src[i]} {dst[i]} {float(weights[i])!r}\n")
    return path
