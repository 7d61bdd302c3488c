#include "apps/jobs/input_counts.h"

#include <algorithm>

namespace sg {
namespace {

constexpr size_t kCountBatchEdges = size_t{1} << 16;

// What a rank's counting pass found; gathered from every rank.
struct ShareHeader {
  uint64_t edges = 0;
  uint64_t vertices = 0;  // the largest dense id + 1 (or the declared count)
  uint64_t id_base = 0;
  uint32_t shift = 0;
  uint8_t has_shape = 0, weighted = 0, symmetric = 0, reserved = 0;
};

// Reads this rank's shares once: the largest id, and arcs per block.
Status count_shares(const std::vector<InputShare>& shares, bool undirected, bool drop_self_loops, BlockCounts* blocks,
                    ShareHeader* header) {
  ShareStream stream(shares);
  std::vector<RawEdge> batch;
  while (true) {
    SG_RETURN_IF_ERROR(stream.next(&batch, kCountBatchEdges));
    if (batch.empty()) return Status::OK();
    const InputShape& shape = *stream.shape();
    if (header->has_shape == 0) {
      *header = ShareHeader{0, 0, shape.id_base, 0, 1, shape.weighted, shape.symmetric, 0};
    } else if (header->id_base != shape.id_base || header->weighted != shape.weighted ||
               header->symmetric != shape.symmetric) {
      return Status::BadInput(stream.path() + ": its ids, weights or symmetry differ from the other inputs'");
    }
    header->vertices = std::max(header->vertices, shape.declared_vertices);
    for (const RawEdge& e : batch) {
      if (e.src < shape.id_base || e.dst < shape.id_base)
        return Status::BadInput(stream.path() + ": vertex id below the format's first id " +
                                std::to_string(shape.id_base));
      if (drop_self_loops && e.src == e.dst) continue;
      const uint64_t u = e.src - shape.id_base, v = e.dst - shape.id_base;
      header->vertices = std::max(header->vertices, std::max(u, v) + 1);
      ++header->edges;
      blocks->add(u, v);
      if ((undirected || shape.symmetric) && u != v) blocks->add(v, u);
    }
  }
}

// Every rank's counts added; the same on every rank.
Status agree_counts(Communicator* comm, bool undirected, ShareHeader mine, BlockCounts* blocks, GraphCounts* counts) {
  mine.shift = blocks->shift;
  std::vector<ShareHeader> headers;
  SG_RETURN_IF_ERROR(comm->gather_values(mine, &headers));
  const ShareHeader* shape = nullptr;
  uint32_t shift = 0;
  for (const ShareHeader& h : headers) {
    counts->vertices = std::max(counts->vertices, h.vertices);
    counts->edges += h.edges;
    shift = std::max(shift, h.shift);
    if (h.has_shape == 0) continue;
    if (shape != nullptr &&
        (h.id_base != shape->id_base || h.weighted != shape->weighted || h.symmetric != shape->symmetric)) {
      return Status::BadInput("the ranks' inputs differ in their ids, weights or symmetry");
    }
    shape = &h;
  }
  if (shape == nullptr || counts->vertices == 0) return Status::BadInput("the inputs hold no edges");
  counts->shape.id_base = shape->id_base;
  counts->shape.weighted = shape->weighted != 0;
  counts->undirected = undirected || shape->symmetric != 0;
  counts->shape.symmetric = counts->undirected;
  counts->shape.declared_vertices = counts->vertices;
  // The same shift and block count on every rank: the largest shift, then |V|.
  blocks->reach(0);
  while (blocks->shift < shift) blocks->fold();
  blocks->reach(counts->vertices - 1);
  const size_t n = static_cast<size_t>((counts->vertices - 1) >> blocks->shift) + 1;
  blocks->in.resize(n);
  blocks->out.resize(n);
  std::vector<uint64_t> mine_counts(blocks->in);
  mine_counts.insert(mine_counts.end(), blocks->out.begin(), blocks->out.end());
  std::vector<uint8_t> all;
  std::vector<uint64_t> sizes;
  SG_RETURN_IF_ERROR(comm->all_gather({reinterpret_cast<const uint8_t*>(mine_counts.data()), 16 * n}, &all, &sizes));
  counts->blocks.shift = blocks->shift;
  counts->blocks.in.assign(n, 0);
  counts->blocks.out.assign(n, 0);
  for (size_t r = 0; r < sizes.size(); ++r) {
    if (sizes[r] != 16 * n) return Status::Corruption("rank " + std::to_string(r) + " sent other block counts");
    const auto* theirs = reinterpret_cast<const uint64_t*>(all.data() + r * 16 * n);
    for (size_t b = 0; b < n; ++b) {
      counts->blocks.in[b] += theirs[b];
      counts->blocks.out[b] += theirs[n + b];
    }
  }
  return Status::OK();
}

}  // namespace

std::vector<InputShare> plan_shares(const std::vector<std::string>& inputs, InputFormat format, bool weights,
                                    uint32_t rank, uint32_t ranks) {
  std::vector<InputShare> shares;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& path = inputs[i];
    const bool plain_binary = (format == InputFormat::kBin32 || format == InputFormat::kBin64) &&
                              !path.ends_with(".gz") && !path.ends_with(".zst");
    if (inputs.size() < ranks && plain_binary) {
      shares.push_back(InputShare{path, format, weights, rank, ranks});
    } else if (i % ranks == rank) {
      shares.push_back(InputShare{path, format, weights, 0, 1});
    }
  }
  return shares;
}

Status count_input(const std::vector<InputShare>& shares, bool undirected, bool drop_self_loops, Communicator* comm,
                   GraphCounts* counts) {
  BlockCounts blocks;
  ShareHeader header;
  SG_RETURN_IF_ERROR(comm->agree(count_shares(shares, undirected, drop_self_loops, &blocks, &header)));
  return comm->agree(agree_counts(comm, undirected, header, &blocks, counts));
}

}  // namespace sg
