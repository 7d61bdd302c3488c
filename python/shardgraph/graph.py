"""Graphs: ingest one (from a file of any format the command line takes, or
from arrays), open one, and run apps on it."""

import builtins
import json
import os
import tempfile

import numpy as np

from . import _core
from .errors import ShardgraphError, UsageError, from_core
from .progress import sink
from .result import Result

# ingest's and Graph.run's keywords: the API's tables of options (memory is
# a parameter of each).
_INGEST_OPTIONS = {row["name"] for row in _core.ingest_options()} - {"memory"}
_RUN_OPTIONS = {row["name"] for row in _core.run_options()} - {"memory"}


def memory_bytes(memory):
    """A budget as bytes: an int, a size such as "256M" or "2G", or "auto"
    (3/4 of the cgroup limit or of the available memory, less 16 MiB)."""
    if isinstance(memory, (int, np.integer)):
        return int(memory)
    if memory == "auto":
        return _core.auto_memory()
    parsed = _core.parse_size(str(memory))
    if parsed is None:
        raise UsageError(f"memory: '{memory}' is not a size (e.g. 64M, 2G, 4096)")
    return parsed


def _call(function, *args):
    try:
        return function(*args)
    except _core.Error as e:
        raise from_core(e) from None


def _check_options(given, allowed, what):
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise UsageError(f"{what}: unknown option(s) {', '.join(unknown)} (options: {', '.join(sorted(allowed))})")


def ingest(input, output, memory="auto", progress="auto", **options):
    """Builds the graph directory `output` from `input` (any format the CLI's
    ingest takes: SNAP text, .gz/.zst, Matrix Market, BVGraph, DIMACS,
    Graphalytics .v/.e, binary) and returns it opened. Options are the
    CLI's, with '_' for '-' (listed below, from the library's table);
    remap takes "auto", True/"always" or False/"never", and device a
    directory or a list of them."""
    _check_options(options, _INGEST_OPTIONS, "ingest")
    if options.get("parts"):
        raise UsageError("ingest: parts: a distributed ingest runs from the command line under mpirun "
                         "(mpirun -np N shardgraph ingest INPUT... -o DIR --parts N)")
    request = dict(options, input=os.fspath(input), output=os.fspath(output), memory=memory_bytes(memory))
    if isinstance(request.get("device"), (str, os.PathLike)):
        request["device"] = [request["device"]]
    if "device" in request:
        request["device"] = [os.fspath(d) for d in request["device"]]
    callback, close = sink(progress, "ingest")
    try:
        report = _call(_core.ingest, request, callback)
    finally:
        close()
    graph = Graph(output)
    graph.ingest_report = report
    return graph


ingest.__doc__ += "\n\n" + "\n".join(
    f"    {row['name']}: {row['help']}" + (f" ({' | '.join(row['choices'])})" if row["choices"] else "")
    for row in _core.ingest_options() if not row["hidden"] and row["name"] != "memory")


def ingest_arrays(src, dst=None, output=None, weights=None, num_vertices=None, memory="auto", progress="auto",
                  **options):
    """Ingests the arcs src[i] -> dst[i] (NumPy arrays of non-negative ids,
    or a scipy.sparse matrix as `src`: its nonzeros are the arcs, its data
    the weights, its shape the vertex count), as `ingest` would the same
    arcs written to a file. num_vertices adds isolated vertices past the
    largest id."""
    if hasattr(src, "tocoo"):  # ingest_arrays(matrix, "g") or ingest_arrays(matrix, None, "g")
        matrix = src.tocoo()
        if output is None:
            output, dst = dst, None
        src, dst = matrix.row, matrix.col
        if weights is None and matrix.dtype != np.bool_:
            weights = matrix.data
        num_vertices = num_vertices or max(matrix.shape)
    if output is None or dst is None:
        raise UsageError("ingest_arrays: give src and dst arrays (or a scipy.sparse matrix) and the output directory")
    src, dst = _arcs(src, dst, "ingest_arrays: ")
    largest = int(max(src.max(), dst.max())) if len(src) else -1
    parent = os.path.dirname(os.path.abspath(os.fspath(output)))
    with tempfile.TemporaryDirectory(dir=parent, prefix=".sg-arrays-") as scratch:
        if num_vertices is not None and num_vertices > largest + 1:
            # Binary edge lists carry no vertex count: text with a "# Nodes:" header does.
            path = os.path.join(scratch, "arcs.txt")
            _write_text(path, src, dst, weights, num_vertices)
            fmt = "snap"
        else:
            path = os.path.join(scratch, "arcs.bin64")
            _write_bin64(path, src, dst, weights)
            fmt = "bin64"
        options = dict(options, format=fmt)
        if weights is not None and fmt == "bin64":
            options["weights"] = True
        try:
            return ingest(path, output, memory=memory, progress=progress, **options)
        except ShardgraphError as e:
            # The arcs' file is gone with the call: name the arrays instead.
            raise type(e)(str(e).replace(path, "ingest_arrays")) from None


def _arcs(src, dst, where):
    """src and dst as arrays of ids, checked: 1-D, as long, not negative."""
    src = np.asarray(src)
    dst = np.asarray(dst)
    if src.shape != dst.shape or src.ndim != 1:
        raise UsageError(f"{where}src and dst must be 1-D arrays of the same length")
    if len(src) and (src.min() < 0 or dst.min() < 0):
        raise UsageError(f"{where}ids must not be negative")
    return src, dst


def _write_bin64(path, src, dst, weights):
    if weights is None:
        records = np.empty((len(src), 2), dtype="<u8")
        records[:, 0], records[:, 1] = src, dst
    else:
        records = np.empty(len(src), dtype=[("src", "<u8"), ("dst", "<u8"), ("w", "<f4")])
        records["src"], records["dst"], records["w"] = src, dst, np.asarray(weights, dtype=np.float32)
    records.tofile(path)


def _write_text(path, src, dst, weights, num_vertices):
    with builtins.open(path, "w") as f:
        f.write(f"# Nodes: {num_vertices}\n")
        columns = [src.astype(np.uint64), dst.astype(np.uint64)]
        if weights is not None:
            np.savetxt(f, np.column_stack(columns + [np.asarray(weights, dtype=np.float64)]), fmt="%d %d %.9g")
        else:
            np.savetxt(f, np.column_stack(columns), fmt="%d %d")


def open(path):  # noqa: A001 (the package's verb, as in sg.open)
    """A stored graph directory (its manifest and indexes are checked now;
    `info`, with the degree statistics, is read when asked for)."""
    graph = Graph(path)
    graph.summary = _call(_core.graph_summary, graph.path)
    return graph


class Graph:
    """A stored graph. Each app is a method (`pagerank`, `bfs`, ...,
    `pagerank_delta`), taking the CLI's run options as keyword arguments."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.ingest_report = None
        self.summary = None  # {"vertices", "edges", "directed", "weighted"}
        self._info = None

    @property
    def info(self):
        """What `shardgraph info --json` prints, as a dict."""
        if self._info is None:
            self._info = json.loads(_call(_core.graph_info, self.path, True))
        return self._info

    def verify(self):
        """Re-reads and checks every chunk; returns the counts checked."""
        return _call(_core.verify, self.path)

    def add_edges(self, src, dst, weights=None, memory="auto", compact_at=0.1):
        """Adds the arcs src[i] -> dst[i] (original ids; new ids become new
        vertices) as one update, committed atomically and durably, as
        `shardgraph update --add` would. Once the updates not yet compacted
        hold `compact_at` of the arcs they are compacted (0: never).
        Returns the update's report (a dict)."""
        return self._update(src, dst, weights, memory, compact_at, remove=False)

    def remove_edges(self, src, dst, memory="auto", compact_at=0.1):
        """Removes every copy of each arc src[i] -> dst[i] (of an undirected
        graph, the edge), as one update; arcs not there are skipped."""
        return self._update(src, dst, None, memory, compact_at, remove=True)

    def compact(self, memory="auto", progress="auto"):
        """Merges the updates into the edge data (`shardgraph compact`);
        returns a dict ("updates" is 0 when there were none; "method" says
        whether they were merged into the chunks or the graph re-ingested)."""
        callback, close = sink(progress, "compact")
        try:
            report = _call(_core.compact, self.path, memory_bytes(memory), callback)
        finally:
            close()
        self._info = None
        self.summary = _call(_core.graph_summary, self.path)
        return report

    def _update(self, src, dst, weights, memory, compact_at, remove):
        src, dst = _arcs(src, dst, "")
        if weights is not None and len(weights) != len(src):
            raise UsageError("weights must be as long as src")
        if compact_at < 0:
            raise UsageError("compact_at must be a share from 0")
        parent = os.path.dirname(os.path.abspath(self.path))
        with tempfile.TemporaryDirectory(dir=parent, prefix=".sg-update-") as scratch:
            path = os.path.join(scratch, "arcs.bin64")
            _write_bin64(path, src, dst, weights)
            adds, removes = ([], [path]) if remove else ([path], [])
            try:
                report = _call(_core.update, self.path, adds, removes, weights is not None, memory_bytes(memory),
                               float(compact_at))
            except ShardgraphError as e:
                raise type(e)(str(e).replace(path, "the arrays")) from None
        self._info = None
        self.summary = _call(_core.graph_summary, self.path)
        return report

    def run(self, app, memory="auto", progress="auto", results="auto", **options):
        """Runs `app` and returns its Result. memory: the budget (a size,
        bytes or "auto"); progress: "auto", True, False or a callable;
        results: "memory", "file" (NumPy files mapped, for results larger
        than memory), "auto" (files when the results would take more than
        a sixteenth of the budget) or "none" (no per-vertex values: the
        summary, facts and stats only, as the CLI without --output). Other
        options are the CLI's run options, with '_' for '-' (listed
        below, from the library's table)."""
        _check_options(options, _RUN_OPTIONS, app)
        budget = memory_bytes(memory)
        request = dict(options, app=app, graph=self.path, memory=budget)
        for path in ("output", "stats", "scratch_dir"):
            if path in request:
                request[path] = os.fspath(request[path])
        columns_dir = None
        where = self._results_where(results, budget, request.get("parents", False))
        if where == "file":
            columns_dir = tempfile.mkdtemp(prefix=".sg-results-", dir=request.get("scratch_dir") or None)
            request["columns_dir"] = columns_dir
        elif where == "memory":
            request["collect"] = True
        callback, close = sink(progress, app)
        try:
            raw = _call(_core.run, request, callback)
        except BaseException:
            if columns_dir is not None:
                import shutil

                shutil.rmtree(columns_dir, ignore_errors=True)
            raise
        finally:
            close()
        return Result(app, raw, columns_dir)

    run.__doc__ += "\n\n" + "\n".join(
        f"        {row['name']}: {row['help']}" + (f" ({' | '.join(row['choices'])})" if row["choices"] else "")
        for row in _core.run_options() if not row["hidden"] and row["name"] != "memory")

    def _results_where(self, results, budget, parents):
        if results not in ("auto", "memory", "file", "none"):
            raise UsageError(f"results must be auto, memory, file or none, not {results!r}")
        if results != "auto":
            return results
        # Arrays in memory come on top of what the engine holds: keep them
        # to a sixteenth of the budget, as the engine's result pages are.
        row_bytes = 8 + 8 + (8 if parents else 0)  # the id, a value, a parent
        if self.summary is None:
            self.summary = _call(_core.graph_summary, self.path)
        return "file" if self.summary["vertices"] * row_bytes > budget // 16 else "memory"

    def __repr__(self):
        return f"<shardgraph.Graph {self.path}>"


def _app_method(name):
    def method(self, **options):
        return self.run(name, **options)

    info = _core.apps()[name]
    method.__name__ = name.replace("-", "_")
    lines = [info["description"] + "."]
    if info["iterations"]:
        lines.append(f"iterations: {info['iterations']}.")
    if info["options"]:
        lines.append("Its own options: " + ", ".join(info["options"]) + "; and every option of Graph.run.")
    lines.append("Result columns: " + ", ".join(info["columns"]) + ".")
    method.__doc__ = "\n".join(lines)
    return method


for _name in _core.apps():
    setattr(Graph, _name.replace("-", "_"), _app_method(_name))
