"""Options come from one table per command in the library: every run
option is a keyword of Graph.run and a flag of the CLI, both parse it the
same way (the run's stats record each option's value as parsed), and the
options take effect from Python (the I/O window, the I/O mode, the cache,
threads, parents, the output's conventions); ingest's options likewise
(the same options from Python and the CLI store the same graph)."""

import json
import os
import subprocess

import pytest

import shardgraph as sg
from shardgraph import _core


def other_values(tmp_path):
    """A value other than the default for every option of the table, as
    Python gives it; an option added to the table without one here fails
    test_every_option_is_a_keyword_and_a_flag_alike."""
    return {
        "source": 3, "iterations": 4, "tolerance": 0.25, "threads": 1, "memory": 40 << 20,
        "io_backend": "psync", "io": "selective", "device_class": "ssd", "cache": False,
        "decoded_cache": False, "scratch_dir": tmp_path / "scratch", "output": tmp_path / "out.txt",
        "format": "graphalytics", "stats": tmp_path / "stats.json", "unit_weights": True, "parents": True,
        "top": 3, "window_bytes": 65536,
    }


def cli_args(name, value, row):
    flag = "--" + name.replace("_", "-")
    if row["kind"] == "flag":
        return [flag if row["default"] == "false" else "--" + "no-" + name.replace("_", "-")]
    return [flag, str(value)]


def test_every_option_is_a_keyword_and_a_flag_alike(small, cli, tmp_path):
    rows = {row["name"]: row for row in _core.run_options()}
    values = other_values(tmp_path)
    assert set(values) == set(rows), "give every option of the table a test value"
    (tmp_path / "scratch").mkdir()
    for name, value in values.items():
        # Python: the option alone (memory is run's own parameter).
        py = small.bfs(progress=False, **({"memory": value} if name == "memory" else {name: value}))
        # The CLI: the same option alone, its stats written to a file.
        stats = tmp_path / f"cli-{name}.json"
        args = [cli, "run", "bfs", small.path, *([] if name == "memory" else ["--memory", "1G"])]
        args += cli_args(name, value, rows[name])
        if name != "stats":
            args += ["--stats", stats]
        done = subprocess.run(list(map(str, args)), capture_output=True, text=True)
        assert done.returncode == 0, f"{name}: {done.stderr}"
        cli_options = json.loads((values["stats"] if name == "stats" else stats).read_text())["options"]
        py_options = dict(py.stats["options"])
        # Where each run wrote its stats and its budget differ by design.
        for key in ("stats", "memory"):
            if key != name.replace("_", "-"):
                py_options.pop(key), cli_options.pop(key)
        assert py_options == cli_options, name
        default = rows[name]["default"]
        assert py_options[name.replace("_", "-")] != default or default == "", name


def test_unknown_and_malformed_options_are_refused_by_the_table(small):
    with pytest.raises(sg.UsageError, match="unknown option"):
        small.bfs(breadth=2, progress=False)
    with pytest.raises(sg.UsageError, match="--io-backend must be auto, uring or psync, not 'fast'"):
        small.bfs(io_backend="fast", progress=False)
    with pytest.raises(sg.UsageError, match="--threads: '2000' must be a whole number from 1 to 1024"):
        small.bfs(threads=2000, progress=False)
    with pytest.raises(sg.UsageError, match="--parents: 'maybe' is not true or false"):
        small.bfs(parents="maybe", progress=False)


def test_options_take_effect_from_python(small, tmp_path):
    # The I/O window: a small one reads the same bytes in more requests
    # (chunks of 4 KiB, so that a window holds few).
    sg.generate.rmat(scale=12, out=tmp_path / "r12.bin32")
    chunked = sg.ingest(tmp_path / "r12.bin32", tmp_path / "g", memory="32M", chunk_bytes=4096, progress=False)
    whole = chunked.pagerank(iterations=2, io="full", cache=False, progress=False).stats
    windowed = chunked.pagerank(iterations=2, io="full", cache=False, window_bytes=8192, progress=False).stats
    assert windowed["requests"] > whole["requests"]
    assert windowed["bytes_read"] == whole["bytes_read"]
    assert whole["io_mode"] == "full" and whole["cache_bytes"] == 0
    assert small.bfs(threads=1, progress=False).stats["threads"] == 1
    assert "parent" in small.bfs(parents=True, progress=False).columns
    # Graphalytics' conventions: an unreachable vertex's depth as the
    # largest 64-bit integer.
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    small.bfs(output=plain, progress=False)
    small.bfs(output=marked, format="graphalytics", progress=False)
    assert " -1\n" in plain.read_text() and " 9223372036854775807\n" in marked.read_text()


def test_ingest_options_come_from_the_table(small, cli, tmp_path):
    rows = {row["name"]: row for row in _core.ingest_options()}
    assert {"remap", "device", "chunk_bytes", "stripe_bytes", "blocks", "codec", "threads"} <= set(rows)
    assert rows["remap"]["kind"] == "switch" and rows["device"]["kind"] == "list"
    with pytest.raises(sg.UsageError, match="unknown option.*fanout"):
        sg.ingest(tmp_path / "e.txt", tmp_path / "x", fanout=2, progress=False)
    with pytest.raises(sg.UsageError, match="--chunk-bytes: '9G' must be from 64 to 1073741824 bytes, or auto"):
        sg.ingest(tmp_path / "e.txt", tmp_path / "x", chunk_bytes="9G", progress=False)
    with pytest.raises(sg.UsageError, match="--codec must be auto, fast, small, entropy, varint or v2, not 'zip'"):
        sg.ingest(tmp_path / "e.txt", tmp_path / "x", codec="zip", progress=False)
    with pytest.raises(sg.UsageError, match="parts: a distributed ingest runs from the command line under mpirun"):
        sg.ingest(tmp_path / "e.txt", tmp_path / "x", parts=2, progress=False)
    # The same options from Python and from the CLI store the same graph.
    edges = tmp_path / "e.txt"
    edges.write_text("".join(f"{7 * i} {7 * i + 7}\n{7 * i} {7 * i}\n" for i in range(2000)))
    (tmp_path / "d0").mkdir()
    (tmp_path / "d1").mkdir()
    py = sg.ingest(edges, tmp_path / "py", memory="16M", remap=False, drop_self_loops=True, chunk_bytes="4K",
                   device=[tmp_path / "d0"], codec="varint", order="none", threads=1, progress=False)
    done = subprocess.run([cli, "ingest", str(edges), "-o", str(tmp_path / "cli"), "--memory", "16M", "--no-remap",
                           "--drop-self-loops", "--chunk-bytes", "4K", "--device", str(tmp_path / "d1"), "--codec",
                           "varint", "--order", "none", "--threads", "1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    from_cli = sg.open(tmp_path / "cli")
    for key in ("vertices", "edges", "bytes", "chunk_bytes", "codec", "remapped", "self_loops_dropped", "intervals",
                "ordering"):
        assert py.info[key] == from_cli.info[key], key
    assert py.info["edges"] == 2000 and py.info["chunk_bytes"] == 4096 and not py.info["remapped"]
    assert os.listdir(tmp_path / "d0") and os.listdir(tmp_path / "d1")
    assert (py.bfs(source=0, progress=False)["depth"] == from_cli.bfs(source=0, progress=False)["depth"]).all()
