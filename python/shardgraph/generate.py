"""Synthetic graphs as edge lists: R-MAT (Graph500 parameters) and a
road-like grid. Each returns the path it wrote."""

import os

from . import _core
from .errors import from_core


def rmat(scale, out, edge_factor=16, seed=1, weights=False):
    """2**scale vertices and edge_factor * 2**scale edges; the file name
    picks the encoding (.bin32, .bin64, .gz, else text)."""
    try:
        _core.generate_rmat(int(scale), int(edge_factor), int(seed), bool(weights), os.fspath(out))
    except _core.Error as e:
        raise from_core(e) from None
    return os.fspath(out)


def grid(rows, cols, out, seed=1, weights=False, shuffle=True):
    """A rows x cols lattice with a few edges removed and a few shortcuts;
    each undirected edge once (ingest it with undirected=True)."""
    try:
        _core.generate_grid(int(rows), int(cols), int(seed), bool(weights), bool(shuffle), os.fspath(out))
    except _core.Error as e:
        raise from_core(e) from None
    return os.fspath(out)
