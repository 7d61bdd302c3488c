#include "reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

namespace sgtest {

RefGraph make_ref_graph(uint32_t n, const std::vector<Arc>& arcs, bool undirected) {
  RefGraph g;
  g.n = n;
  g.out.resize(n);
  g.in.resize(n);
  auto add = [&](uint64_t u, uint64_t v, float w) {
    g.out[u].push_back({static_cast<uint32_t>(v), w});
    g.in[v].push_back({static_cast<uint32_t>(u), w});
  };
  for (const Arc& a : arcs) {
    add(a.src, a.dst, a.weight);
    if (undirected && a.src != a.dst) add(a.dst, a.src, a.weight);
  }
  for (auto* lists : {&g.out, &g.in}) {
    for (auto& list : *lists) std::sort(list.begin(), list.end());
  }
  return g;
}

std::vector<double> ref_pagerank(const RefGraph& g, int iterations, double damping) {
  const uint32_t n = g.n;
  std::vector<double> rank(n, 1.0 / n), next(n);
  for (int it = 0; it < iterations; ++it) {
    double dangling = 0;
    for (uint32_t u = 0; u < n; ++u) {
      if (g.out[u].empty()) dangling += rank[u];
    }
    for (uint32_t v = 0; v < n; ++v) {
      double sum = 0;
      for (auto [u, w] : g.in[v]) sum += rank[u] / static_cast<double>(g.out[u].size());
      next[v] = (1 - damping) / n + damping * (sum + dangling / n);
    }
    rank.swap(next);
  }
  return rank;
}

std::vector<double> ref_pagerank_no_dangling(const RefGraph& g, double damping) {
  const uint32_t n = g.n;
  std::vector<double> rank(n, (1 - damping) / n), next(n);
  for (int it = 0; it < 1000; ++it) {
    double change = 0;
    for (uint32_t v = 0; v < n; ++v) {
      double sum = 0;
      for (auto [u, w] : g.in[v]) sum += rank[u] / static_cast<double>(g.out[u].size());
      next[v] = (1 - damping) / n + damping * sum;
      change += std::abs(next[v] - rank[v]);
    }
    rank.swap(next);
    if (change < 1e-14) break;
  }
  return rank;
}

std::vector<double> ref_spmv(const RefGraph& g, int iterations) {
  std::vector<double> x(g.n, 1.0), y(g.n);
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t v = 0; v < g.n; ++v) {
      y[v] = 0;
      for (auto [u, w] : g.in[v]) y[v] += static_cast<double>(w) * x[u];
    }
    x = y;
  }
  return x;
}

void ref_bfs(const RefGraph& g, uint32_t source, std::vector<int32_t>* depth, std::vector<uint32_t>* parent) {
  depth->assign(g.n, -1);
  parent->assign(g.n, UINT32_MAX);
  (*depth)[source] = 0;
  (*parent)[source] = source;
  std::queue<uint32_t> queue;
  queue.push(source);
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop();
    for (auto [v, w] : g.out[u]) {
      if ((*depth)[v] == -1) {
        (*depth)[v] = (*depth)[u] + 1;
        queue.push(v);
      }
    }
  }
  // Parent: the smallest in-neighbour one level up.
  for (uint32_t v = 0; v < g.n; ++v) {
    if (v == source || (*depth)[v] <= 0) continue;
    for (auto [u, w] : g.in[v]) {
      if ((*depth)[u] == (*depth)[v] - 1) {
        (*parent)[v] = u;
        break;
      }
    }
  }
}

std::vector<uint32_t> ref_wcc(const RefGraph& g) {
  std::vector<uint32_t> root(g.n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](uint32_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  for (uint32_t u = 0; u < g.n; ++u) {
    for (auto [v, w] : g.out[u]) {
      const uint32_t a = find(u), b = find(v);
      if (a != b) root[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<uint32_t> label(g.n);
  for (uint32_t v = 0; v < g.n; ++v) label[v] = find(v);
  return label;
}

std::vector<float> ref_sssp(const RefGraph& g, uint32_t source, bool unit_weights) {
  std::vector<float> dist(g.n, std::numeric_limits<float>::infinity());
  dist[source] = 0;
  using Item = std::pair<float, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  heap.push({0.0f, source});
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[u]) continue;
    for (auto [v, w] : g.out[u]) {
      const float candidate = d + (unit_weights ? 1.0f : w);
      if (candidate < dist[v]) {
        dist[v] = candidate;
        heap.push({candidate, v});
      }
    }
  }
  return dist;
}

}  // namespace sgtest

namespace sgtest {

// A sequential queue BFS: each dequeued vertex numbers its unnumbered
// neighbours by decreasing degree (bfds) or by id (bfs); roots by decreasing
// degree, 1, 2, 4, ... at a time.
std::vector<uint32_t> ref_traversal_order(const RefGraph& g, bool directed, bool both_ways) {
  constexpr uint32_t kNone = UINT32_MAX;
  auto degree = [&](uint32_t v) -> uint64_t {
    return both_ways ? g.in[v].size() + (directed ? g.out[v].size() : 0) : g.in[v].size();
  };
  std::vector<uint32_t> roots(g.n), rank(g.n, kNone);
  for (uint32_t v = 0; v < g.n; ++v) roots[v] = v;
  std::stable_sort(roots.begin(), roots.end(), [&](uint32_t a, uint32_t b) { return degree(a) > degree(b); });
  uint32_t next = 0;
  size_t cursor = 0, batch = 1;
  while (next < g.n) {
    std::vector<uint32_t> queue;
    while (queue.size() < batch && cursor < g.n) {
      const uint32_t v = roots[cursor++];
      if (rank[v] == kNone) {
        rank[v] = next++;
        queue.push_back(v);
      }
    }
    batch *= 2;
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t u = queue[head];
      std::vector<uint32_t> found;
      auto visit = [&](const std::vector<std::pair<uint32_t, float>>& list) {
        for (const auto& [v, w] : list) {
          if (rank[v] == kNone && std::find(found.begin(), found.end(), v) == found.end()) found.push_back(v);
        }
      };
      visit(g.out[u]);
      if (both_ways) visit(g.in[u]);
      std::sort(found.begin(), found.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t da = both_ways ? 0 : degree(a), db = both_ways ? 0 : degree(b);
        return da != db ? da > db : a < b;
      });
      for (uint32_t v : found) {
        rank[v] = next++;
        queue.push_back(v);
      }
    }
  }
  return rank;
}

std::vector<uint32_t> ref_kcore(const RefGraph& g, bool directed) {
  std::vector<std::vector<uint32_t>> neighbours(g.n);
  for (uint32_t v = 0; v < g.n; ++v) {
    for (const auto& [u, w] : g.out[v]) {
      if (u != v) neighbours[v].push_back(u);
    }
    if (!directed) continue;
    for (const auto& [u, w] : g.in[v]) {
      if (u != v) neighbours[v].push_back(u);
    }
  }
  std::vector<uint32_t> degree(g.n), core(g.n, 0);
  std::vector<bool> removed(g.n, false);
  for (uint32_t v = 0; v < g.n; ++v) degree[v] = static_cast<uint32_t>(neighbours[v].size());
  uint32_t k = 0;
  for (uint32_t step = 0; step < g.n; ++step) {
    uint32_t best = UINT32_MAX, pick = 0;
    for (uint32_t v = 0; v < g.n; ++v) {
      if (!removed[v] && degree[v] < best) {
        best = degree[v];
        pick = v;
      }
    }
    k = std::max(k, best);
    core[pick] = k;
    removed[pick] = true;
    for (uint32_t u : neighbours[pick]) {
      if (!removed[u]) --degree[u];
    }
  }
  return core;
}

namespace {

std::vector<uint32_t> distinct(const std::vector<std::pair<uint32_t, float>>& list) {
  std::vector<uint32_t> ids;
  for (const auto& [u, w] : list) ids.push_back(u);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

std::vector<uint64_t> ref_cdlp(const RefGraph& g, bool directed, int iterations) {
  std::vector<uint64_t> label(g.n), next(g.n);
  std::iota(label.begin(), label.end(), uint64_t{0});
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t v = 0; v < g.n; ++v) {
      std::map<uint64_t, uint64_t> count;
      for (uint32_t u : distinct(g.out[v])) ++count[label[u]];
      if (directed) {
        for (uint32_t u : distinct(g.in[v])) ++count[label[u]];
      }
      next[v] = label[v];
      uint64_t best = 0;
      for (const auto& [l, c] : count) {  // ascending labels: the first maximum is the smallest
        if (c > best) {
          best = c;
          next[v] = l;
        }
      }
    }
    label = next;
  }
  return label;
}

std::vector<double> ref_lcc(const RefGraph& g) {
  std::vector<double> lcc(g.n, 0);
  for (uint32_t v = 0; v < g.n; ++v) {
    std::vector<uint32_t> both = distinct(g.out[v]);
    for (uint32_t u : distinct(g.in[v])) both.push_back(u);
    std::sort(both.begin(), both.end());
    both.erase(std::unique(both.begin(), both.end()), both.end());
    both.erase(std::remove(both.begin(), both.end(), v), both.end());
    if (both.size() < 2) continue;
    uint64_t arcs = 0;
    for (uint32_t u : both) {
      for (uint32_t w : distinct(g.out[u])) arcs += w != u && std::binary_search(both.begin(), both.end(), w);
    }
    const double d = static_cast<double>(both.size());
    lcc[v] = static_cast<double>(arcs) / (d * (d - 1));
  }
  return lcc;
}

std::vector<double> ref_betweenness(const RefGraph& g, uint32_t source) {
  std::vector<int64_t> depth(g.n, -1);
  std::vector<double> sigma(g.n, 0), delta(g.n, 0);
  std::vector<uint32_t> order;  // vertices in BFS order
  depth[source] = 0;
  sigma[source] = 1;
  order.push_back(source);
  for (size_t head = 0; head < order.size(); ++head) {
    const uint32_t u = order[head];
    for (const auto& [v, w] : g.out[u]) {
      if (depth[v] < 0) {
        depth[v] = depth[u] + 1;
        order.push_back(v);
      }
      if (depth[v] == depth[u] + 1) sigma[v] += sigma[u];
    }
  }
  for (size_t i = order.size(); i-- > 0;) {
    const uint32_t v = order[i];
    for (const auto& [u, w] : g.in[v]) {
      if (depth[u] >= 0 && depth[u] == depth[v] - 1) delta[u] += sigma[u] / sigma[v] * (1 + delta[v]);
    }
  }
  delta[source] = 0;
  return delta;
}

}  // namespace sgtest
