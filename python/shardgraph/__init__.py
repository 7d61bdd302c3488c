"""shardgraph: graph algorithms on graphs far larger than memory, from one
disk or an array of disks.

    import shardgraph as sg
    g = sg.ingest("edges.txt.gz", "g", memory="256M")
    r = g.pagerank(iterations=10)
    r.to_pandas(); r.top(10); r.stats

See docs/python.md."""

from . import generate
from ._core import version as _version
from .errors import (BudgetError, CorruptionError, InputError, NotFoundError, ShardgraphError, ShardgraphIOError,
                     StoppedError, UsageError)
from .graph import Graph, ingest, ingest_arrays, memory_bytes, open
from .plot import plot
from .result import Result

__version__ = "0.6.0"
__all__ = ["BudgetError", "CorruptionError", "Graph", "InputError", "NotFoundError", "Result", "ShardgraphError",
           "ShardgraphIOError", "StoppedError", "UsageError", "apps", "generate", "ingest", "ingest_arrays",
           "memory_bytes", "open", "plot", "version"]


def version():
    """The engine's version line (format and codec it writes and reads)."""
    return _version()


def apps():
    """Every app: name -> description, options, what iterations means, result columns."""
    from . import _core

    return _core.apps()
