"""Every app from Python equals the command line's --output on the same
graph, in every I/O mode, and a NetworkX, SciPy or NumPy reference."""

import numpy as np
import pytest
import shardgraph as sg

import references as ref
from conftest import random_arcs, read_output, run_cli, write_snap

# name: (seed, vertices, arcs, directed, weighted, ingest options)
GRAPHS = {
    "directed": (1, 300, 2500, True, False, {}),
    "undirected-weighted": (2, 250, 1400, False, True, {}),
    "directed-weighted-tiny-chunks-two-devices": (3, 400, 3000, True, True, {"chunk_bytes": 4096, "device": 2}),
}
IO_MODES = ["auto", "full", "selective"]
APPS = sorted(sg.apps())


def test_apps_say_what_they_need_of_the_graph():
    apps = sg.apps()
    assert list(apps) == APPS  # in name order, as the command line lists them
    assert apps["sssp"]["needs_weights"] and not apps["bfs"]["needs_weights"]
    assert apps["triangles"]["needs_undirected"] and not apps["lcc"]["needs_undirected"]
    assert apps["wcc"]["reversed_steps"]


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graph(request, tmp_path_factory):
    seed, vertices, arcs, directed, weighted, options = GRAPHS[request.param]
    src, dst = random_arcs(seed, vertices, arcs)
    if not directed:
        keep = src < dst  # each undirected edge once
        src, dst = src[keep], dst[keep]
    weights = np.random.default_rng(seed).integers(1, 20, len(src)).astype(np.float64) if weighted else None
    where = tmp_path_factory.mktemp(request.param)
    path = write_snap(where / "edges.txt", src, dst, weights)
    options = dict(options)
    if "device" in options:
        options["device"] = [where / f"disk{i}" for i in range(options["device"])]
        for d in options["device"]:
            d.mkdir()
    g = sg.ingest(path, where / "g", memory="64M", progress=False, weights=weighted, undirected=not directed,
                  **options)
    return g, ref.Arcs(g_ids(g), src, dst, weights, directed), src[0]


def g_ids(g):
    return sg.Graph(g.path).run("wcc", memory="64M", progress=False).ids


def app_options(app, source, a):
    if app in ("bfs", "betweenness"):
        return {"source": int(source)}
    if app == "sssp":
        return {"source": int(source), "unit_weights": a.weights is None}
    if app in ("pagerank", "cdlp"):
        return {"iterations": 30 if app == "pagerank" else 5}
    if app == "spmv":
        return {"iterations": 2}
    if app == "pagerank-delta":
        return {"tolerance": 1e-4}
    return {}


def cli_args(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not False:
            args += [flag, value]
    return args


@pytest.mark.parametrize("io", IO_MODES)
@pytest.mark.parametrize("app", APPS)
def test_python_equals_cli_output(graph, app, io, cli, tmp_path):
    g, a, source = graph
    if sg.apps()[app]["needs_undirected"] and a.directed:
        pytest.skip(f"{app} takes undirected graphs")
    options = dict(app_options(app, source, a), io=io, threads=1 if app == "betweenness" else 2)
    result = g.run(app, memory="64M", progress=False, **options)
    out = tmp_path / "out.txt"
    run_cli(cli, "run", app, g.path, "--memory", "64M", "--output", out, *cli_args(options))
    ids, values = read_output(out)
    assert np.array_equal(result.ids, ids)
    column = result.to_numpy()
    printed = np.array([v[0] for v in values], dtype=column.dtype)
    if column.dtype.kind == "f":
        # The CLI prints ranks and distances to 9 significant digits (%.9g).
        np.testing.assert_allclose(column, printed, rtol=6e-9, atol=0)
    else:
        assert np.array_equal(column, printed)


def test_every_app_matches_its_reference(graph):
    g, a, source = graph
    s = int(np.searchsorted(a.ids, source))
    for app in APPS:
        if sg.apps()[app]["needs_undirected"] and a.directed:
            continue
        result = g.run(app, memory="64M", progress=False, threads=1, **app_options(app, source, a))
        assert np.array_equal(result.ids, a.ids)
        got = np.asarray(result.to_numpy(), dtype=np.float64)
        check_reference(app, a, s, got, result)


def check_reference(app, a, s, got, result):
    if app == "pagerank":
        np.testing.assert_allclose(got, ref.pagerank(a, 30), atol=2e-6)
    elif app == "pagerank-delta":
        # Changes below epsilon are not pushed: close to the fixed point, not at it.
        expected = ref.pagerank_without_dangling(a)
        assert np.abs(got - expected).sum() < 0.005 * expected.sum()
    elif app == "spmv":
        np.testing.assert_allclose(got, ref.spmv(a, 2), rtol=1e-6)
    elif app == "bfs":
        assert np.array_equal(got, ref.bfs(a, s))
    elif app == "wcc":
        assert np.array_equal(result.to_numpy(), ref.wcc(a))
    elif app == "sssp":
        np.testing.assert_allclose(got, ref.sssp(a, s, a.weights is None), rtol=1e-6)
    elif app == "kcore":
        assert np.array_equal(got, ref.kcore(a))
    elif app == "betweenness":
        np.testing.assert_allclose(got, ref.betweenness(a, s), rtol=1e-5, atol=1e-9)
    elif app == "lcc":
        np.testing.assert_allclose(got, ref.lcc(a), rtol=1e-6, atol=1e-12)
    elif app == "cdlp":
        assert np.array_equal(result.to_numpy(), ref.cdlp(a, 5))
    elif app == "triangles":
        coefficients, triangles = ref.clustering(a)
        np.testing.assert_allclose(got, coefficients, rtol=1e-6, atol=1e-12)
        assert result.facts["triangles"] == triangles
    else:
        pytest.fail(f"no reference for {app}: add one to references.py")
