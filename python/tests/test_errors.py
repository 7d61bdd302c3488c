"""Each error class for its case, with the command line's one-line message,
and nothing left behind."""

import gzip
import os
import shutil

import numpy as np
import pytest
import shardgraph as sg


def test_malformed_input_is_an_input_error_naming_file_and_line(tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text("1 2\n3 x\n")
    with pytest.raises(sg.InputError, match=r"edges.txt:2: invalid destination vertex id 'x'"):
        sg.ingest(path, tmp_path / "g", progress=False)
    assert sorted(os.listdir(tmp_path)) == ["edges.txt"]


def test_the_engine_names_the_kind_of_input_error(tmp_path):
    # Messages without a FILE:LINE head: the class comes from the engine's
    # error code, not from the message's wording.
    cut = tmp_path / "edges.txt.gz"
    cut.write_bytes(gzip.compress(b"1 2\n" * 1000)[:-20])
    with pytest.raises(sg.InputError, match="truncated or corrupt gzip stream"):
        sg.ingest(cut, tmp_path / "g", progress=False)
    (tmp_path / "w.properties").write_text("graphclass=it.unimi.dsi.webgraph.ArcListASCIIGraph\nnodes=2\narcs=1\n")
    (tmp_path / "w.graph").write_bytes(b"\0")
    with pytest.raises(sg.InputError, match="is not a BVGraph"):
        sg.ingest(tmp_path / "w.graph", tmp_path / "g", progress=False)
    assert not (tmp_path / "g").exists()


def test_a_missing_input_or_graph_is_not_found(tmp_path):
    with pytest.raises(sg.NotFoundError, match="cannot open input"):
        sg.ingest(tmp_path / "nothing.txt", tmp_path / "g", progress=False)
    with pytest.raises(sg.NotFoundError, match="not a graph"):
        sg.open(tmp_path / "nothing")
    assert os.listdir(tmp_path) == []


def test_a_budget_below_the_graphs_minimum_is_a_budget_error(small):
    with pytest.raises(sg.BudgetError, match=r"--memory 102400 bytes is below the 1 MiB"):
        small.pagerank(memory="100K", progress=False)


def test_bad_options_are_usage_errors(small):
    with pytest.raises(sg.UsageError, match="--io must be auto, full or selective"):
        small.bfs(io="sideways", progress=False)
    with pytest.raises(sg.UsageError, match="unknown option"):
        small.pagerank(damping=0.9)
    with pytest.raises(sg.UsageError, match="not a size"):
        small.wcc(memory="lots")
    with pytest.raises(sg.UsageError):
        small.run("no-such-app", progress=False)


def test_ids_past_32_bits_without_remap_are_refused(tmp_path):
    with pytest.raises(sg.InputError, match=r"^ingest_arrays: record 2: vertex id 1000000000000 .* --remap"):
        sg.ingest_arrays(np.array([1, 10**12]), np.array([2, 3]), tmp_path / "g", remap=False, progress=False)
    assert os.listdir(tmp_path) == []


def test_a_flipped_byte_is_a_corruption_error(small, tmp_path):
    copy = shutil.copytree(small.path, tmp_path / "g")
    with open(copy / "out.d0", "r+b") as f:
        f.seek(100)
        byte = f.read(1)[0]
        f.seek(100)
        f.write(bytes([byte ^ 0xFF]))
    with pytest.raises(sg.CorruptionError, match=r"out.d0 @0\): checksum mismatch"):
        sg.open(copy).verify()
    os.truncate(copy / "out.d0", 1000)
    with pytest.raises(sg.CorruptionError, match="size 1000 but the manifest says"):
        sg.open(copy).bfs(source=0, progress=False)


def test_a_write_that_fails_is_an_io_error_and_leaves_nothing(small, tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(sg.ShardgraphIOError, match="cannot rename into place"):
        small.pagerank(output=tmp_path / "taken", progress=False)
    with pytest.raises(sg.ShardgraphIOError, match="cannot write stats"):
        small.pagerank(stats=tmp_path / "taken", progress=False)
    assert os.listdir(tmp_path) == ["taken"]


def test_a_progress_callable_returning_false_stops_the_run(small, tmp_path):
    lines = []

    def progress(line):
        lines.append(line)
        return False

    with pytest.raises(sg.StoppedError):
        small.pagerank(iterations=1000, output=tmp_path / "ranks.txt", progress=progress)
    assert lines and os.listdir(tmp_path) == []


def test_every_error_is_a_shardgraph_error():
    for cls in (sg.UsageError, sg.InputError, sg.BudgetError, sg.CorruptionError, sg.ShardgraphIOError,
                sg.NotFoundError, sg.StoppedError):
        assert issubclass(cls, sg.ShardgraphError)
