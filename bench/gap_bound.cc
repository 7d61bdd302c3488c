// How few bytes a stored graph's lists could take under entropy coders
// that model what codec 3 stores: a count per vertex, a first neighbour
// per list (against its anchor, as the chunk's layout chose it), and gaps.
// Each value x is split the way Elias-gamma-like coders split it: a bucket
// (its bit length) and the bits below its leading one, which no coder of
// this kind can predict (they are stored raw). The buckets' entropy is
// measured under three models, each free of table costs, so the figures
// are lower bounds for coders of that kind:
//   space:  one bucket histogram per stored space (a static model);
//   chunk:  one per chunk (a per-chunk Huffman or ANS table);
//   chunk1: one per chunk and previous gap's bucket in the same list (an
//           order-1 context model: R-MAT gaps after a small gap are small).
// One JSON line per stored space on stdout, in bytes an arc.
//   gap_bound GRAPH_DIR
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "shards/format/chunk_format.h"
#include "shards/format/graph.h"

namespace sg {
namespace {

constexpr int kBuckets = 34;  // bit lengths 0..33 (zigzag first neighbours need 33)

int bucket_of(uint64_t x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); }
uint64_t raw_bits_of(int bucket) { return bucket > 1 ? static_cast<uint64_t>(bucket - 1) : 0; }

// Bucket counts under one context; entropy_bits() is their order-0 cost.
struct Histogram {
  uint64_t counts[kBuckets] = {};
  void add(int bucket) { ++counts[bucket]; }
  double entropy_bits() const {
    uint64_t total = 0;
    for (uint64_t c : counts) total += c;
    double bits = 0;
    for (uint64_t c : counts) {
      if (c > 0) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / static_cast<double>(total));
    }
    return bits;
  }
};

// Histograms by context; bits() sums their costs.
struct ContextModel {
  std::map<int, Histogram> by_context;
  void add(int context, int bucket) { by_context[context].add(bucket); }
  double bits() const {
    double bits = 0;
    for (const auto& [context, h] : by_context) bits += h.entropy_bits();
    return bits;
  }
  void clear() { by_context.clear(); }
};

// What one stored space's lists cost under each model, summed over chunks.
struct SpaceBound {
  uint64_t arcs = 0, stored_bytes = 0;
  double raw_bits = 0;  // below the leading one, of counts, firsts and gaps
  double space_bits = 0, chunk_bits = 0, chunk1_bits = 0;
};

// The parts of one chunk's lists, under the three models.
struct ChunkModels {
  ContextModel space, chunk, chunk1;  // `space` persists across chunks
  double raw_bits = 0;
  // Counts, firsts and gaps are coded with models of their own (contexts
  // 1000, 1001 and the gaps' previous bucket).
  void add(int context, uint64_t value) {
    const int b = bucket_of(value);
    raw_bits += static_cast<double>(raw_bits_of(b));
    space.add(context >= 1000 ? context : 0, b);
    chunk.add(context >= 1000 ? context : 0, b);
    chunk1.add(context, b);
  }
};

void add_list(uint32_t anchor, const uint32_t* neighbours, uint32_t count, ChunkModels* m) {
  m->add(1000, count);
  if (count == 0) return;
  const int64_t first = static_cast<int64_t>(neighbours[0]) - anchor;
  m->add(1001, first >= 0 ? static_cast<uint64_t>(2 * first) : static_cast<uint64_t>(-2 * first - 1));
  int previous = -1;  // no gap yet in this list
  for (uint32_t i = 1; i < count; ++i) {
    const uint64_t gap = neighbours[i] - neighbours[i - 1];
    m->add(previous, gap);
    previous = bucket_of(gap);
  }
}

Status bound_space(const Graph& graph, const EdgeSpace& space, SpaceBound* out) {
  ChunkModels m;
  std::vector<uint32_t> scratch;
  std::vector<uint8_t> payload;
  for (size_t c = 0; c < space.index.size(); ++c) {
    const ChunkIndexEntry& e = space.index[c];
    payload.resize(e.bytes);
    SG_RETURN_IF_ERROR(graph.read_chunk_of(space, c, payload.data()));
    // First neighbours against the anchor the chunk's layout byte (after
    // the weights) names: bit 0 in codecs 2 and 3, the vertex in codec 1.
    const uint64_t weight_bytes = graph.weighted() ? uint64_t{4} * e.edge_count : 0;
    const bool previous_first =
        graph.manifest().list_codec() != ListCodec::kV1 && e.bytes > weight_bytes && (payload[weight_bytes] & 1) != 0;
    bool have_previous = false;
    uint32_t last_first = 0;
    SG_RETURN_IF_ERROR(for_each_list(graph.manifest().list_codec(), payload.data(), e, graph.num_vertices(),
                                     graph.weighted(), &scratch,
                                     [&](uint32_t v, const uint32_t* nbrs, uint32_t n, const float*) {
                                       const uint32_t anchor = previous_first && have_previous ? last_first : v;
                                       add_list(anchor, nbrs, n, &m);
                                       if (n > 0) have_previous = true, last_first = nbrs[0];
                                     }));
    out->chunk_bits += m.chunk.bits();
    out->chunk1_bits += m.chunk1.bits();
    m.chunk.clear();
    m.chunk1.clear();
    out->arcs += e.edge_count;
    out->stored_bytes += e.bytes;
  }
  out->space_bits = m.space.bits();
  out->raw_bits = m.raw_bits;
  return Status::OK();
}

}  // namespace
}  // namespace sg

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gap_bound GRAPH_DIR\n");
    return 2;
  }
  sg::Graph graph;
  sg::Status s = sg::Graph::open(argv[1], &graph);
  for (size_t i = 0; s.ok() && i < graph.stored_space_count(); ++i) {
    const sg::EdgeSpace& space = graph.stored_space(i);
    sg::SpaceBound b;
    s = sg::bound_space(graph, space, &b);
    if (!s.ok() || b.arcs == 0) continue;
    const double arcs = static_cast<double>(b.arcs);
    auto per_arc = [&](double bits) { return (b.raw_bits + bits) / 8 / arcs; };
    std::printf(
        "{\"bench\":\"gap-bound\",\"graph\":\"%s\",\"space\":\"%s\",\"arcs\":%llu,\"stored_bytes_per_arc\":%.4f,"
        "\"raw_bytes_per_arc\":%.4f,\"space_model\":%.4f,\"chunk_model\":%.4f,\"chunk_order1_model\":%.4f}\n",
        std::filesystem::path(argv[1]).filename().c_str(), space.meta.name.c_str(),
        static_cast<unsigned long long>(b.arcs), static_cast<double>(b.stored_bytes) / arcs, b.raw_bits / 8 / arcs,
        per_arc(b.space_bits), per_arc(b.chunk_bits), per_arc(b.chunk1_bits));
  }
  if (!s.ok()) {
    std::fprintf(stderr, "gap_bound: %s: %s\n", argv[1], s.message().c_str());
    return 1;
  }
  return 0;
}
