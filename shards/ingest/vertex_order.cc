#include "shards/ingest/vertex_order.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "base/file_util.h"
#include "compression/checksum.h"
#include "shards/format/graph.h"
#include "shards/ingest/permutation.h"

#include "base/enum_names.h"

namespace sg {

const char* vertex_order_name(VertexOrder order) {
  switch (order) {
    case VertexOrder::kNone: return "none";
    case VertexOrder::kBfds: return "bfds";
    case VertexOrder::kBfs: return "bfs";
    case VertexOrder::kDegree: return "degree";
  }
  return "?";
}

bool parse_vertex_order(const std::string& name, VertexOrder* order) {
  return parse_enum_name(name, {VertexOrder::kNone, VertexOrder::kBfds, VertexOrder::kBfs, VertexOrder::kDegree},
                         vertex_order_name, order);
}

namespace {

// Degrees below this are counted in an array; the few vertices at or above
// it are sorted apart (R-MAT 26 has a few hundred).
constexpr uint32_t kCountedDegrees = 1 << 16;
constexpr size_t kPieceVertices = size_t{1} << 20;

// Reads the total degrees of vertices [first, first + count): out + in;
// with `sums` (one a file), adds the bytes read to each file's checksum.
Status read_total_degrees(const std::vector<File>& files, uint64_t first, size_t count, std::vector<uint32_t>* total,
                          std::vector<uint32_t>* scratch, std::vector<Checksum64Stream>* sums) {
  total->assign(count, 0);
  scratch->resize(count);
  for (size_t k = 0; k < files.size(); ++k) {
    SG_RETURN_IF_ERROR(files[k].pread_all(scratch->data(), count * sizeof(uint32_t), first * sizeof(uint32_t)));
    if (sums != nullptr) (*sums)[k].update(scratch->data(), count * sizeof(uint32_t));
    for (size_t i = 0; i < count; ++i) (*total)[i] += (*scratch)[i];
  }
  return Status::OK();
}

// The degree order's ranks from total degrees seen twice in id order: the
// first time each degree's vertices are counted (the high ones listed by
// name), the second time each vertex takes the next rank of its degree.
class DegreeRanker {
 public:
  void count(const uint32_t* degrees, uint64_t first, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      if (degrees[i] < kCountedDegrees) {
        ++first_rank_[degrees[i]];
      } else {
        high_.emplace_back(degrees[i], static_cast<uint32_t>(first + i));
      }
    }
  }
  // Ranks: the high vertices first, then each degree's vertices in id order.
  void start_ranks() {
    std::sort(high_.begin(), high_.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    uint64_t rank = high_.size();
    for (uint32_t d = kCountedDegrees; d-- > 0;) rank += std::exchange(first_rank_[d], rank);
    for (size_t r = 0; r < high_.size(); ++r) high_by_id_.emplace_back(high_[r].second, static_cast<uint32_t>(r));
    std::sort(high_by_id_.begin(), high_by_id_.end());
  }
  // new_ids may be degrees (in place): each slot is read before it is written.
  void rank(const uint32_t* degrees, [[maybe_unused]] uint64_t first, size_t count, uint32_t* new_ids) {
    for (size_t i = 0; i < count; ++i) {
      if (degrees[i] < kCountedDegrees) {
        new_ids[i] = static_cast<uint32_t>(first_rank_[degrees[i]]++);
      } else {
        assert(high_by_id_[next_high_].first == first + i);
        new_ids[i] = high_by_id_[next_high_++].second;
      }
    }
  }

 private:
  std::vector<uint64_t> first_rank_ = std::vector<uint64_t>(kCountedDegrees, 0);
  std::vector<std::pair<uint32_t, uint32_t>> high_;        // (degree, id)
  std::vector<std::pair<uint32_t, uint32_t>> high_by_id_;  // (id, rank)
  size_t next_high_ = 0;
};

// Each vertex's arcs into its new id's slot, for each space: `total` is
// out + in, `last` the in-degrees when `directed` (else total is out).
void add_slot_arcs(const std::vector<uint32_t>& total, const std::vector<uint32_t>& last,
                   const std::vector<uint32_t>& new_ids, bool directed, SlotArcs* slot_arcs) {
  const int shift = slot_arcs->shift;
  for (size_t i = 0; i < new_ids.size(); ++i) {
    const uint32_t in = directed ? last[i] : 0;
    slot_arcs->out[new_ids[i] >> shift] += total[i] - in;
    if (directed) slot_arcs->in[new_ids[i] >> shift] += in;
  }
}

}  // namespace

Status write_degree_order(const Graph& graph, const std::string& path, SlotArcs* slot_arcs) {
  const uint64_t n = graph.num_vertices();
  std::vector<File> files(graph.directed() ? 2 : 1);
  auto kind_of = [](size_t k) { return k == 0 ? SpaceKind::kOut : SpaceKind::kIn; };
  for (size_t k = 0; k < files.size(); ++k) {
    SG_RETURN_IF_ERROR(File::open_read(graph.degree_path(kind_of(k)), &files[k]));
    uint64_t bytes = 0;
    SG_RETURN_IF_ERROR(files[k].size(&bytes));
    if (bytes != n * sizeof(uint32_t)) return Status::Corruption(graph.degree_path(kind_of(k)) + ": wrong size");
  }
  std::vector<Checksum64Stream> sums(files.size());  // checked after the first pass; the second trusts it
  std::vector<uint32_t> total, scratch, new_ids;
  DegreeRanker ranker;
  for (uint64_t first = 0; first < n; first += kPieceVertices) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kPieceVertices, n - first));
    SG_RETURN_IF_ERROR(read_total_degrees(files, first, count, &total, &scratch, &sums));
    ranker.count(total.data(), first, count);
  }
  for (size_t k = 0; k < files.size(); ++k) {
    if (sums[k].digest() != graph.degree_checksum(kind_of(k)))
      return Status::Corruption(graph.degree_path(kind_of(k)) + ": checksum mismatch");
  }
  ranker.start_ranks();
  if (slot_arcs != nullptr) *slot_arcs = SlotArcs::zeros(n, files.size() > 1);
  File out;
  SG_RETURN_IF_ERROR(File::create(path, &out));
  for (uint64_t first = 0; first < n; first += kPieceVertices) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kPieceVertices, n - first));
    SG_RETURN_IF_ERROR(read_total_degrees(files, first, count, &total, &scratch, nullptr));
    new_ids.resize(count);
    ranker.rank(total.data(), first, count, new_ids.data());
    SG_RETURN_IF_ERROR(out.pwrite_all(new_ids.data(), count * sizeof(uint32_t), first * sizeof(uint32_t)));
    // scratch holds the last file's degrees: the in-degrees of a directed graph.
    if (slot_arcs != nullptr) add_slot_arcs(total, scratch, new_ids, files.size() > 1, slot_arcs);
  }
  return out.close();  // a work file the relabel reads: never synced
}

void degrees_to_degree_order(std::vector<uint32_t>* degrees, int slot_shift, std::vector<uint64_t>* slot_degrees) {
  const size_t n = degrees->size();
  uint32_t* ids = degrees->data();
  DegreeRanker ranker;
  ranker.count(ids, 0, n);
  ranker.start_ranks();
  slot_degrees->assign(n == 0 ? 0 : ((n - 1) >> slot_shift) + 1, 0);
  std::vector<uint32_t> piece_degrees(std::min(n, kPieceVertices));
  for (size_t first = 0; first < n; first += kPieceVertices) {
    const size_t count = std::min(kPieceVertices, n - first);
    std::copy_n(ids + first, count, piece_degrees.data());
    ranker.rank(ids + first, first, count, ids + first);
    for (size_t i = 0; i < count; ++i) (*slot_degrees)[ids[first + i] >> slot_shift] += piece_degrees[i];
  }
}

}  // namespace sg
