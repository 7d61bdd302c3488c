"""Results are keyed by original ids, remapped sparse ids included, and
ingest_arrays builds the same graph as ingest of the same arcs in a file."""

import json
import os

import numpy as np
import pytest
import scipy.sparse as sp
import shardgraph as sg

from conftest import random_arcs, write_snap

APPS_COMPARED = [("pagerank", {"iterations": 10}), ("bfs", {}), ("wcc", {}), ("sssp", {}), ("kcore", {}),
                 ("cdlp", {"iterations": 3}), ("lcc", {})]


def results(g, source):
    out = {}
    for app, options in APPS_COMPARED:
        if app in ("bfs", "sssp"):
            options = dict(options, source=int(source))
        if app == "sssp" and not g.info["weighted"]:
            options["unit_weights"] = True
        out[app] = g.run(app, memory="32M", progress=False, threads=1, **options)
    return out


def test_sparse_wide_ids_are_remapped_and_results_keep_them(tmp_path):
    src, dst = random_arcs(7, 500, 3000)
    spread = np.uint64(4_000_000_007)  # ids past 32 bits, 4 billion apart
    g_sparse = sg.ingest_arrays(src * spread + 11, dst * spread + 11, tmp_path / "sparse", progress=False)
    g_dense = sg.ingest_arrays(src, dst, tmp_path / "dense", progress=False)
    assert g_sparse.info["remapped"] and g_sparse.info["vertices"] == g_dense.info["vertices"]
    sparse, dense = results(g_sparse, src[0] * spread + 11), results(g_dense, src[0])
    for app, _ in APPS_COMPARED:
        assert np.array_equal(sparse[app].ids, dense[app].ids * spread + 11), app
        values, expected = sparse[app].to_numpy(), dense[app].to_numpy()
        if app == "wcc":  # labels are smallest original ids
            expected = expected * spread + 11
        if app == "cdlp":
            expected = expected * spread + 11
        assert np.array_equal(values, expected), app
    frame = sparse["bfs"].to_pandas()
    assert frame["id"].iloc[0] == sparse["bfs"].ids[0] and list(frame.columns) == ["id", "depth"]


def test_ingest_arrays_equals_ingest_of_the_same_arcs_in_a_file(tmp_path):
    src, dst = random_arcs(8, 700, 5000, unique=False, self_loops=True)
    weights = np.random.default_rng(8).integers(1, 50, len(src)).astype(np.float32)
    from_file = sg.ingest(write_snap(tmp_path / "arcs.txt", src, dst, weights), tmp_path / "file", weights=True,
                          progress=False)
    from_arrays = sg.ingest_arrays(src, dst, tmp_path / "arrays", weights=weights, progress=False)
    matrix = sp.coo_matrix((weights, (src, dst)), shape=(700, 700))
    from_matrix = sg.ingest_arrays(matrix, tmp_path / "matrix", progress=False)
    same_layout(from_file, from_arrays)
    expected = results(from_file, src[0])
    for g in (from_arrays, from_matrix):
        got = results(g, src[0])
        for app, _ in APPS_COMPARED:
            assert np.array_equal(got[app].ids, expected[app].ids), app
            assert np.array_equal(got[app].to_numpy(), expected[app].to_numpy()), app
    # The matrix's shape counts isolated vertices past the largest id.
    assert from_matrix.info["vertices"] >= from_file.info["vertices"]


def same_layout(a, b):
    keys = ("vertices", "edges", "bytes", "weighted", "self_loops", "duplicate_edges", "ordering")
    assert {k: a.info[k] for k in keys} == {k: b.info[k] for k in keys}
    for name in sorted(os.listdir(a.path)):
        if name != "manifest.json":
            with open(os.path.join(a.path, name), "rb") as fa, open(os.path.join(b.path, name), "rb") as fb:
                assert fa.read() == fb.read(), name


def test_num_vertices_adds_isolated_vertices(tmp_path):
    g = sg.ingest_arrays(np.array([0, 1]), np.array([1, 2]), tmp_path / "g", num_vertices=10, remap="never",
                         progress=False)
    r = g.bfs(source=0, progress=False)
    assert list(r.ids) == list(range(10))
    assert list(r.to_numpy()) == [0, 1, 2] + [-1] * 7


def test_results_in_files_are_mapped_not_copied(tmp_path):
    sg.generate.rmat(scale=11, out=tmp_path / "r.bin32")
    g = sg.ingest(tmp_path / "r.bin32", tmp_path / "g", memory="32M", progress=False)
    in_memory = g.pagerank(iterations=5, results="memory", progress=False)
    in_files = g.pagerank(iterations=5, results="file", progress=False)
    assert in_files.file_backed and isinstance(in_files.ids, np.memmap)
    assert isinstance(in_files["rank"], np.memmap)
    assert np.array_equal(in_files.ids, in_memory.ids)
    assert np.array_equal(in_files["rank"], in_memory["rank"])
    assert in_files.top(5).equals(in_memory.top(5))
    stats = json.loads(json.dumps(in_files.stats))
    assert stats["app"] == "pagerank" and stats["steps"]


def test_results_in_files_at_the_least_budget_equal_those_in_memory(tmp_path):
    """At the graph's least run memory the order by original id does not
    fit: the .npy files are sorted out of core, and still equal."""
    sg.generate.rmat(scale=16, out=tmp_path / "r.bin32")
    g = sg.ingest(tmp_path / "r.bin32", tmp_path / "g", memory="64M", progress=False)
    least = g.info["minimum_run_memory_bytes"]
    for app, options in (("bfs", {"source": 3, "parents": True}), ("pagerank", {"iterations": 3})):
        small = g.run(app, memory=least, results="file", scratch_dir=tmp_path, progress=False, **options)
        large = g.run(app, memory="1G", results="memory", progress=False, **options)
        assert small.columns == large.columns
        assert np.array_equal(small.ids, large.ids)
        for column in small.columns:
            # Sums over ranges of vertex state add in another order: ranks agree to rounding.
            np.testing.assert_allclose(small[column], large[column], rtol=1e-12, atol=0, err_msg=f"{app} {column}")


def test_results_none_keeps_only_the_summary_and_stats(tmp_path):
    sg.generate.rmat(scale=10, out=tmp_path / "r.bin32")
    g = sg.ingest(tmp_path / "r.bin32", tmp_path / "g", memory="32M", progress=False)
    r = g.pagerank(iterations=3, results="none", progress=False)
    assert len(r) == 0 and r.columns == [] and "pagerank: 3 iterations" in r.summary
    assert r.stats["app"] == "pagerank" and r.facts["iterations"] == 3
    with pytest.raises(sg.UsageError, match="results='none'"):
        r.to_numpy()
