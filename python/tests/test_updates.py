"""Graph.add_edges / remove_edges / compact: a graph changed by updates and
compacted gives every app the results of a graph ingested from the final
edge set; runs read updates in place, those that add vertices included, with
the results of the compacted graph."""

import numpy as np
import pytest
import shardgraph as sg

from conftest import random_arcs

APPS = [("pagerank", {"iterations": 5}), ("bfs", {"source": 0}), ("wcc", {}), ("cdlp", {"iterations": 3})]


def final_arcs(src, dst, removed, added_src, added_dst):
    kept = [(s, d) for s, d in zip(src.tolist(), dst.tolist()) if (s, d) not in removed]
    kept += list(zip(added_src.tolist(), added_dst.tolist()))
    return np.array([a for a, _ in kept], dtype=np.uint64), np.array([b for _, b in kept], dtype=np.uint64)


def test_updates_then_compaction_equal_a_fresh_ingest(tmp_path):
    src, dst = random_arcs(3, 80, 400)
    g = sg.ingest_arrays(src, dst, tmp_path / "g", progress=False, order="none")
    removed = set(zip(src[:30].tolist(), dst[:30].tolist()))
    report = g.remove_edges(src[:30], dst[:30], compact_at=0)
    assert report["removes"] == 30 and sg.open(g.path).summary["pending_updates"] == 1
    added_src, added_dst = random_arcs(4, 90, 60)  # ids past 79: new vertices
    report = g.add_edges(added_src, added_dst, compact_at=0)
    assert report["adds"] == len(added_src) and report["new_vertices"] > 0
    before = {app: g.run(app, memory="16M", progress=False, **options) for app, options in APPS}  # read in place
    assert g.compact(progress=False)["updates"] == 2
    assert g.summary["pending_updates"] == 0
    final_src, final_dst = final_arcs(src, dst, removed, added_src, added_dst)
    vertices = int(max(src.max(), dst.max(), added_src.max(), added_dst.max())) + 1
    fresh = sg.ingest_arrays(final_src, final_dst, tmp_path / "fresh", num_vertices=vertices, progress=False,
                             order="none")
    for app, options in APPS:
        a = g.run(app, memory="16M", progress=False, **options)
        b = fresh.run(app, memory="16M", progress=False, **options)
        assert np.array_equal(a.ids, b.ids), app
        assert np.array_equal(a.to_numpy(), b.to_numpy()), app
        assert np.array_equal(before[app].ids, b.ids), app
        assert np.allclose(before[app].to_numpy(), b.to_numpy(), rtol=1e-6, atol=0), app


def test_runs_read_updates_in_place(tmp_path):
    src, dst = random_arcs(8, 80, 400)
    g = sg.ingest_arrays(src, dst, tmp_path / "g", progress=False, order="none")
    n = sg.open(g.path).summary["vertices"]
    g.remove_edges(src[:20], dst[:20], compact_at=0)
    added_src, added_dst = random_arcs(9, 80, 60)
    report = g.add_edges(added_src % n, added_dst % n, compact_at=0)  # no new vertex
    # The removals are smaller than the adds, so this update merges them into one tier.
    assert report["pending_updates"] == 2 and report["pending_tiers"] == 1
    assert sg.open(g.path).summary["pending_updates"] == 2
    before = {app: g.run(app, memory="16M", progress=False, **options) for app, options in APPS}
    assert g.compact(progress=False)["method"] == "merged into its chunks"
    for app, options in APPS:
        after = g.run(app, memory="16M", progress=False, **options)
        assert np.array_equal(before[app].ids, after.ids), app
        assert np.allclose(before[app].to_numpy(), after.to_numpy(), rtol=1e-6, atol=0), app


def test_updates_compact_themselves_past_the_share(tmp_path):
    src, dst = random_arcs(5, 50, 200)
    g = sg.ingest_arrays(src, dst, tmp_path / "g", progress=False)
    added_src, added_dst = random_arcs(6, 50, 30)
    report = g.add_edges(added_src, added_dst)  # about 15 % of the arcs: past the default tenth
    assert report["compacted"]
    assert g.summary["pending_updates"] == 0
    assert g.run("wcc", progress=False, memory="16M").to_numpy().size == g.summary["vertices"]


def test_bad_updates_are_refused(tmp_path):
    src, dst = random_arcs(7, 30, 100)
    g = sg.ingest_arrays(src, dst, tmp_path / "g", progress=False, order="none")
    with pytest.raises(sg.UsageError):
        g.add_edges(np.array([1, 2]), np.array([3]))
    with pytest.raises(sg.UsageError):
        g.add_edges(np.array([-1]), np.array([3]))
    with pytest.raises(sg.InputError, match="weight"):
        sg.ingest_arrays(src, dst, tmp_path / "w", weights=np.ones(len(src)), progress=False).add_edges(
            np.array([1]), np.array([2]))
    assert sg.open(g.path).summary["pending_updates"] == 0
