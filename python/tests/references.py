"""Simple in-memory references for every app, from NetworkX and SciPy where
their definitions match the engine's, else a few lines of NumPy that follow
the definition (LDBC Graphalytics CDLP and LCC)."""

from collections import Counter

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra


class Arcs:
    """A graph as the engine stores it: `ids` every vertex's original id
    (increasing), arcs as positions into ids; an undirected graph's edges
    are given once and read both ways."""

    def __init__(self, ids, src, dst, weights, directed):
        self.ids = np.asarray(ids, dtype=np.uint64)
        position = {int(v): i for i, v in enumerate(self.ids)}
        self.src = np.array([position[int(v)] for v in src], dtype=np.int64)
        self.dst = np.array([position[int(v)] for v in dst], dtype=np.int64)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.directed = directed
        self.n = len(self.ids)

    def nx(self):
        g = nx.DiGraph() if self.directed else nx.Graph()
        g.add_nodes_from(range(self.n))
        if self.weights is None:
            g.add_edges_from(zip(self.src.tolist(), self.dst.tolist()))
        else:
            g.add_weighted_edges_from(zip(self.src.tolist(), self.dst.tolist(), self.weights.tolist()))
        return g

    def matrix(self, weighted=True):
        """A[u, v]: the weight (or 1) of u -> v, both ways when undirected."""
        src, dst = self.src, self.dst
        data = self.weights if weighted and self.weights is not None else np.ones(len(src))
        if not self.directed:
            loops = src == dst
            src, dst, data = (np.concatenate([src, dst[~loops]]), np.concatenate([dst, src[~loops]]),
                              np.concatenate([data, data[~loops]]))
        return sp.csr_matrix((data, (src, dst)), shape=(self.n, self.n))

    def neighbour_sets(self):
        """In- and out-neighbours of every vertex, self excluded."""
        sets = [set() for _ in range(self.n)]
        for u, v in zip(self.src.tolist(), self.dst.tolist()):
            if u != v:
                sets[u].add(v)
                sets[v].add(u)
        return sets


def pagerank(a, iterations):
    ranks = nx.pagerank(a.nx(), alpha=0.85, max_iter=1000, tol=1e-13, weight=None)
    return np.array([ranks[i] for i in range(a.n)])


def pagerank_without_dangling(a):
    """The fixed point of PR(v) = (1 - d) / N + d * sum_{u -> v} PR(u) / outdeg(u),
    the rank of vertices without out-arcs not handed on (Ligra's PageRank-Delta)."""
    m = a.matrix(weighted=False)
    m.data[:] = 1.0
    out = np.asarray(m.sum(axis=1)).ravel()
    scale = np.divide(1.0, out, out=np.zeros(a.n), where=out > 0)
    step = (sp.diags(scale) @ m).T.tocsr()
    ranks = np.full(a.n, 1.0 / a.n)
    for _ in range(500):
        ranks = 0.15 / a.n + 0.85 * (step @ ranks)
    return ranks


def spmv(a, iterations):
    y = np.ones(a.n)
    at = a.matrix().T.tocsr()
    for _ in range(iterations):
        y = at @ y
    return y


def bfs(a, source):
    depth = np.full(a.n, -1, dtype=np.int64)
    for v, d in nx.single_source_shortest_path_length(a.nx(), source).items():
        depth[v] = d
    return depth


def wcc(a):
    label = np.zeros(a.n, dtype=np.uint64)
    for component in nx.connected_components(a.nx().to_undirected()):
        members = list(component)
        label[members] = a.ids[members].min()
    return label


def sssp(a, source, unit_weights):
    return dijkstra(a.matrix(weighted=not unit_weights), directed=True, indices=source)


def kcore(a):
    """Coreness on the undirected multigraph (u -> v and v -> u are two
    edges), self-loops excluded: NetworkX's core_number when that is a
    simple graph, else peeling the smallest degree first."""
    if not a.directed:
        g = a.nx()
        g.remove_edges_from(nx.selfloop_edges(g))
        core = nx.core_number(g)
        return np.array([core[i] for i in range(a.n)])
    degree = np.zeros(a.n, dtype=np.int64)
    neighbours = [[] for _ in range(a.n)]
    for u, v in zip(a.src.tolist(), a.dst.tolist()):
        if u != v:
            degree[u] += 1
            degree[v] += 1
            neighbours[u].append(v)
            neighbours[v].append(u)
    core = np.zeros(a.n, dtype=np.int64)
    removed = np.zeros(a.n, dtype=bool)
    k = 0
    for _ in range(a.n):
        v = int(np.argmin(np.where(removed, np.iinfo(np.int64).max, degree)))
        k = max(k, int(degree[v]))
        core[v], removed[v] = k, True
        for u in neighbours[v]:
            degree[u] -= 1
    return core


def betweenness(a, source):
    g = a.nx()
    delta = nx.betweenness_centrality_subset(g, [source], list(g), normalized=False, weight=None)
    scale = 1.0 if a.directed else 2.0  # NetworkX halves undirected pairs
    return np.array([delta[i] * scale for i in range(a.n)])


def lcc(a):
    """Graphalytics LCC: arcs among a vertex's in- and out-neighbours over
    d (d - 1), d the number of those neighbours."""
    sets = a.neighbour_sets()
    arcs = set(zip(a.src.tolist(), a.dst.tolist()))
    if not a.directed:
        arcs |= {(v, u) for u, v in arcs}
    out = np.zeros(a.n)
    for v in range(a.n):
        d = len(sets[v])
        if d >= 2:
            links = sum(1 for u in sets[v] for w in sets[v] if u != w and (u, w) in arcs)
            out[v] = links / (d * (d - 1))
    return out


def cdlp(a, iterations):
    """Graphalytics CDLP: labels start as original ids; each round every
    vertex takes its neighbours' most frequent label (smallest on a tie);
    on a directed graph a neighbour both ways counts twice."""
    arcs = sorted(set(zip(a.src.tolist(), a.dst.tolist())))
    neighbours = [[] for _ in range(a.n)]
    for u, v in arcs:
        neighbours[u].append(v)
        if a.directed or u != v:
            neighbours[v].append(u)
    labels = a.ids.copy()
    for _ in range(iterations):
        previous = labels.copy()
        for v in range(a.n):
            if neighbours[v]:
                counts = Counter(int(previous[u]) for u in neighbours[v])
                best = max(counts.values())
                labels[v] = min(label for label, c in counts.items() if c == best)
    return labels


def clustering(a):
    g = a.nx()
    c = nx.clustering(g)
    return np.array([c[i] for i in range(a.n)]), sum(nx.triangles(g).values()) // 3
