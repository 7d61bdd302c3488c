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
// It also codes each chunk's buckets with htscodecs' order-1 rANS (tables
// included) as one byte stream, counts, firsts and gaps told apart by
// their values: close to what the entropy layout stores (it codes tokens
// where this codes a count per vertex).
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

extern "C" {
#include <htscodecs/rANS_static4x16.h>
}

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
  // What a static rANS coder with `kScaleBits`-bit frequencies takes:
  // the symbols under the quantised frequencies, plus the table (varint of
  // its entries, then a symbol byte and a varint frequency each).
  double rans_bits() const {
    constexpr uint32_t kScale = 1u << kScaleBits;
    uint64_t total = 0, entries = 0;
    for (uint64_t c : counts) total += c, entries += c > 0;
    if (total == 0) return 0;
    uint32_t q[kBuckets] = {};
    int64_t sum = 0;
    int largest = 0;
    for (int b = 0; b < kBuckets; ++b) {
      if (counts[b] == 0) continue;
      q[b] = std::max<uint32_t>(1, static_cast<uint32_t>(counts[b] * kScale / total));
      sum += q[b];
      if (counts[b] > counts[largest]) largest = b;
    }
    q[largest] =
        static_cast<uint32_t>(static_cast<int64_t>(q[largest]) + kScale - sum);  // the largest absorbs rounding
    double bits = 8.0 * (1 + entries);                                           // count, symbol bytes
    for (int b = 0; b < kBuckets; ++b) {
      if (counts[b] == 0) continue;
      bits += static_cast<double>(counts[b]) * -std::log2(static_cast<double>(q[b]) / kScale);
      bits += q[b] < 128 ? 8 : 16;  // its varint
    }
    return bits;
  }
  static constexpr int kScaleBits = 12;
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
  // A static rANS coder's bytes with a table per context, and its final
  // state (4 bytes).
  double rans_bits() const {
    double bits = 32;
    for (const auto& [context, h] : by_context) bits += h.rans_bits();
    return bits;
  }
  void clear() { by_context.clear(); }
};

// What one stored space's lists cost under each model, summed over chunks.
struct SpaceBound {
  uint64_t arcs = 0, stored_bytes = 0;
  double raw_bits = 0;  // below the leading one, of counts, firsts and gaps
  double space_bits = 0, chunk_bits = 0, chunk1_bits = 0;
  double chunk1_rans_bits = 0;  // order 1 with 12-bit tables, as stored
  double htscodecs_bits = -1;   // htscodecs' order-1 rANS, when built with it
};

// The parts of one chunk's lists, under the three models.
struct ChunkModels {
  ContextModel space, chunk, chunk1;  // `space` persists across chunks
  double raw_bits = 0;
  std::vector<uint8_t> symbols;  // the chunk's buckets: gaps b, counts 64 + b, firsts 128 + b
  // Counts, firsts and gaps are coded with models of their own (contexts
  // 1000, 1001 and the gaps' previous bucket).
  void add(int context, uint64_t value) {
    const int b = bucket_of(value);
    raw_bits += static_cast<double>(raw_bits_of(b));
    space.add(context >= 1000 ? context : 0, b);
    chunk.add(context >= 1000 ? context : 0, b);
    chunk1.add(context, b);
    symbols.push_back(static_cast<uint8_t>(context == 1000 ? 64 + b : context == 1001 ? 128 + b : b));
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

// The chunk's buckets coded by htscodecs (order 1), plus 4 bytes for
// their length.
Status add_library_coded(std::vector<uint8_t>* symbols, SpaceBound* out) {
  unsigned int coded_bytes = 0;
  unsigned char* coded =
      rans_compress_4x16(symbols->data(), static_cast<unsigned int>(symbols->size()), &coded_bytes, 1);
  if (coded == nullptr) return Status::IOError("htscodecs: rans_compress_4x16 failed");
  std::free(coded);
  out->htscodecs_bits = std::max(0.0, out->htscodecs_bits) + 8.0 * (coded_bytes + 4);
  symbols->clear();
  return Status::OK();
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
    out->chunk1_rans_bits += m.chunk1.rans_bits();
    SG_RETURN_IF_ERROR(add_library_coded(&m.symbols, out));
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
        "\"raw_bytes_per_arc\":%.4f,\"space_model\":%.4f,\"chunk_model\":%.4f,\"chunk_order1_model\":%.4f,"
        "\"chunk_order1_rans\":%.4f",
        std::filesystem::path(argv[1]).filename().c_str(), space.meta.name.c_str(),
        static_cast<unsigned long long>(b.arcs), static_cast<double>(b.stored_bytes) / arcs, b.raw_bits / 8 / arcs,
        per_arc(b.space_bits), per_arc(b.chunk_bits), per_arc(b.chunk1_bits), per_arc(b.chunk1_rans_bits));
    if (b.htscodecs_bits >= 0) std::printf(",\"htscodecs_order1\":%.4f", per_arc(b.htscodecs_bits));
    std::printf("}\n");
  }
  if (!s.ok()) {
    std::fprintf(stderr, "gap_bound: %s: %s\n", argv[1], s.message().c_str());
    return 1;
  }
  return 0;
}
