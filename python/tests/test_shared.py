"""Shared real graphs (../shared/datasets, beside the repository; skipped
when absent): ingested with default options, their results from Python
equal the command line's and NetworkX's, keyed by original ids."""

import gzip
import json
import os

import networkx as nx
import numpy as np
import pytest
import shardgraph as sg

from conftest import read_output, run_cli

DATASETS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "datasets")


def dataset(name):
    path = os.path.join(DATASETS, name)
    if not os.path.isdir(path):
        pytest.skip(f"{path} is absent")
    with open(os.path.join(path, "STATS.json")) as f:
        return path, json.load(f)


def read_arcs(path):
    with gzip.open(path, "rt") as f:
        arcs = np.loadtxt(f, dtype=np.uint64, comments="#", ndmin=2)
    return arcs[:, 0], arcs[:, 1]


@pytest.mark.parametrize("name, sparse", [("wiki-Vote", False), ("cit-HepTh", True)])
def test_a_shared_graph_from_python_equals_the_cli_and_networkx(name, sparse, cli, tmp_path):
    path, stats = dataset(name)
    edges = os.path.join(path, f"{name}.txt.gz")
    g = sg.ingest(edges, tmp_path / "g", memory="64M", progress=False)
    # Dense ids keep every id up to the largest as a vertex; sparse ones
    # (cit-HepTh's arXiv numbers) are remapped to the ids that occur.
    assert g.info["vertices"] == (stats["distinct_ids"] if sparse else stats["max_id"] + 1)
    assert g.info["edges"] == stats["arcs"]
    src, dst = read_arcs(edges)
    digraph = nx.DiGraph()
    digraph.add_edges_from(zip(src.tolist(), dst.tolist()))

    wcc = g.wcc(progress=False)
    if sparse:
        assert np.array_equal(wcc.ids, np.array(sorted(digraph.nodes), dtype=np.uint64))
    else:
        assert np.array_equal(wcc.ids, np.arange(stats["max_id"] + 1, dtype=np.uint64))
    digraph.add_nodes_from(int(v) for v in wcc.ids)
    components = list(nx.weakly_connected_components(digraph))
    smallest = [min(c) for c in components]
    expected = {v: m for c, m in zip(components, smallest) for v in c}
    assert np.array_equal(wcc.to_numpy(), np.array([expected[int(v)] for v in wcc.ids], dtype=np.uint64))
    assert sum(1 for c in components if len(c) > 1 or digraph.degree(next(iter(c)))) == stats["wcc"]

    source = int(src[0])
    bfs = g.bfs(source=source, progress=False)
    depth = nx.single_source_shortest_path_length(digraph, source)
    assert np.array_equal(bfs.to_numpy(), np.array([depth.get(int(v), -1) for v in bfs.ids]))

    ranks = g.pagerank(iterations=100, progress=False)
    reference = nx.pagerank(digraph, alpha=0.85, max_iter=1000, tol=1e-13)
    np.testing.assert_allclose(ranks.to_numpy(), [reference[int(v)] for v in ranks.ids], atol=1e-7)

    run_cli(cli, "run", "pagerank", g.path, "--iterations", 100, "--output", tmp_path / "ranks.txt")
    ids, values = read_output(tmp_path / "ranks.txt")
    assert np.array_equal(ids, ranks.ids)
    np.testing.assert_allclose(ranks.to_numpy(), [float(v[0]) for v in values], rtol=6e-9)


@pytest.mark.parametrize("name", ["wiki-Vote", "cit-HepTh"])
def test_every_app_on_a_shared_graph_equals_the_cli_output(name, cli, tmp_path):
    path, _ = dataset(name)
    g = sg.ingest(os.path.join(path, f"{name}.txt.gz"), tmp_path / "g", memory="64M", progress=False)
    source = int(read_arcs(os.path.join(path, f"{name}.txt.gz"))[0][0])
    for app, info in sg.apps().items():
        if info["needs_undirected"]:
            continue  # both graphs are directed
        options = {"threads": 1 if app == "betweenness" else 2}
        if "source" in info["options"]:
            options["source"] = source
        if app == "sssp":
            options["unit_weights"] = True
        result = g.run(app, memory="64M", progress=False, **options)
        out = tmp_path / f"{app}.txt"
        flags = [a for k, v in options.items() for a in (["--" + k.replace("_", "-")] + ([] if v is True else [v]))]
        run_cli(cli, "run", app, g.path, "--memory", "64M", "--output", out, *flags)
        ids, values = read_output(out)
        assert np.array_equal(result.ids, ids), app
        column = result.to_numpy()
        printed = np.array([v[0] for v in values], dtype=column.dtype)
        if column.dtype.kind == "f":
            np.testing.assert_allclose(column, printed, rtol=6e-9, atol=0, err_msg=app)
        else:
            assert np.array_equal(column, printed), app
