#include "shards/ingest/vertex_order.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "base/file_util.h"
#include "compression/checksum.h"
#include "shards/format/graph.h"

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

}  // namespace

Status write_degree_order(const Graph& graph, const std::string& path) {
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
  // Pass 1: how many vertices have each degree; the high ones by name.
  std::vector<uint64_t> first_rank(kCountedDegrees, 0);
  std::vector<std::pair<uint32_t, uint32_t>> high;  // (degree, id)
  for (uint64_t first = 0; first < n; first += kPieceVertices) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kPieceVertices, n - first));
    SG_RETURN_IF_ERROR(read_total_degrees(files, first, count, &total, &scratch, &sums));
    for (size_t i = 0; i < count; ++i) {
      if (total[i] < kCountedDegrees) {
        ++first_rank[total[i]];
      } else {
        high.emplace_back(total[i], static_cast<uint32_t>(first + i));
      }
    }
  }
  for (size_t k = 0; k < files.size(); ++k) {
    if (sums[k].digest() != graph.degree_checksum(kind_of(k)))
      return Status::Corruption(graph.degree_path(kind_of(k)) + ": checksum mismatch");
  }
  std::sort(high.begin(), high.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  // Ranks: the high vertices first, then each degree's vertices in id order.
  uint64_t rank = high.size();
  for (uint32_t d = kCountedDegrees; d-- > 0;) rank += std::exchange(first_rank[d], rank);
  std::vector<std::pair<uint32_t, uint32_t>> high_by_id;  // (id, rank)
  for (size_t r = 0; r < high.size(); ++r) high_by_id.emplace_back(high[r].second, static_cast<uint32_t>(r));
  std::sort(high_by_id.begin(), high_by_id.end());
  // Pass 2: each vertex's rank, written in id order.
  File out;
  SG_RETURN_IF_ERROR(File::create(path, &out));
  size_t next_high = 0;
  for (uint64_t first = 0; first < n; first += kPieceVertices) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kPieceVertices, n - first));
    SG_RETURN_IF_ERROR(read_total_degrees(files, first, count, &total, &scratch, nullptr));
    new_ids.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (total[i] < kCountedDegrees) {
        new_ids[i] = static_cast<uint32_t>(first_rank[total[i]]++);
      } else {
        assert(high_by_id[next_high].first == first + i);
        new_ids[i] = high_by_id[next_high++].second;
      }
    }
    SG_RETURN_IF_ERROR(out.pwrite_all(new_ids.data(), count * sizeof(uint32_t), first * sizeof(uint32_t)));
  }
  SG_RETURN_IF_ERROR(out.sync());
  return out.close();
}

}  // namespace sg
