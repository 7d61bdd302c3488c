#include "apps/jobs/generate.h"

#include <zlib.h>

#include <charconv>
#include <cstring>
#include <numeric>
#include <vector>

#include "base/file_util.h"
#include "base/interrupt.h"
#include "base/parallel.h"

namespace sg {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Edge {
  uint64_t src, dst;
  float weight;
};

Edge rmat_edge(const RmatOptions& o, uint64_t index) {
  uint64_t state = splitmix64(o.seed * 0x100000001b3ULL ^ splitmix64(index));
  uint64_t src = 0, dst = 0;
  for (uint32_t bit = 0; bit < o.scale; ++bit) {
    state = splitmix64(state);
    const double r = static_cast<double>(state >> 11) * 0x1.0p-53;
    // a=0.57 (0,0)  b=0.19 (0,1)  c=0.19 (1,0)  d=0.05 (1,1)
    const uint64_t right = (r >= 0.57 && r < 0.76) || r >= 0.95;
    const uint64_t down = r >= 0.76;
    src = (src << 1) | down;
    dst = (dst << 1) | right;
  }
  state = splitmix64(state);
  return Edge{src, dst, static_cast<float>(1 + state % 255)};
}

std::vector<uint64_t> permutation(uint64_t n, uint64_t seed) {
  std::vector<uint64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  uint64_t state = splitmix64(seed ^ 0x5bd1e995ULL);
  for (uint64_t i = n; i > 1; --i) {  // Fisher-Yates
    state = splitmix64(state);
    std::swap(perm[i - 1], perm[state % i]);
  }
  return perm;
}

class Output {
 public:
  ~Output() {
    if (gz_ != nullptr) gzclose(gz_);
  }
  Status open(const std::string& path) {
    path_ = path;
    if (path.ends_with(".gz")) {
      gz_ = gzopen(path.c_str(), "wb1");
      if (gz_ == nullptr) return Status::IOError(path + ": cannot create");
      return Status::OK();
    }
    return File::create(path, &file_);
  }
  Status write(const std::string& bytes) {
    if (gz_ != nullptr) {
      if (gzwrite(gz_, bytes.data(), static_cast<unsigned>(bytes.size())) != static_cast<int>(bytes.size())) {
        return Status::IOError(path_ + ": write failed");
      }
      return Status::OK();
    }
    SG_RETURN_IF_ERROR(file_.pwrite_all(bytes.data(), bytes.size(), offset_));
    offset_ += bytes.size();
    return Status::OK();
  }
  Status close() {
    if (gz_ != nullptr) {
      const int rc = gzclose(gz_);
      gz_ = nullptr;
      return rc == Z_OK ? Status::OK() : Status::IOError(path_ + ": write failed");
    }
    return file_.close();
  }

 private:
  std::string path_;
  gzFile gz_ = nullptr;
  File file_;
  uint64_t offset_ = 0;
};

enum class Encoding { kText, kBin32, kBin64 };

void append_edge(std::string* out, const Edge& e, Encoding encoding, bool weights) {
  if (encoding == Encoding::kText) {
    char line[64];
    char* p = std::to_chars(line, line + 24, e.src).ptr;
    *p++ = ' ';
    p = std::to_chars(p, p + 24, e.dst).ptr;
    if (weights) {
      *p++ = ' ';
      p = std::to_chars(p, p + 8, static_cast<int>(e.weight)).ptr;
    }
    *p++ = '\n';
    out->append(line, p);
    return;
  }
  if (encoding == Encoding::kBin32) {
    const uint32_t ids[2] = {static_cast<uint32_t>(e.src), static_cast<uint32_t>(e.dst)};
    out->append(reinterpret_cast<const char*>(ids), sizeof(ids));
  } else {
    const uint64_t ids[2] = {e.src, e.dst};
    out->append(reinterpret_cast<const char*>(ids), sizeof(ids));
  }
  if (weights) out->append(reinterpret_cast<const char*>(&e.weight), sizeof(float));
}

// Writes edges [0, count) produced by edge_at(i, edges) (which appends the
// 0..n edges of index i), formatted in parallel blocks, written in order.
template <typename EdgeAt>
Status write_edges(const std::string& path, const std::string& header, uint64_t count, bool weights, EdgeAt&& edge_at) {
  const Encoding encoding = path.ends_with(".bin32")   ? Encoding::kBin32
                            : path.ends_with(".bin64") ? Encoding::kBin64
                                                       : Encoding::kText;
  Output out;
  SG_RETURN_IF_ERROR(out.open(path));
  if (encoding == Encoding::kText) SG_RETURN_IF_ERROR(out.write(header));
  constexpr uint64_t kBlockItems = 1 << 16;
  constexpr size_t kBlocksPerBatch = 64;
  std::vector<std::string> blocks(kBlocksPerBatch);
  for (uint64_t batch_start = 0; batch_start < count; batch_start += kBlockItems * kBlocksPerBatch) {
    if (interrupt_requested()) return Status::Interrupted("generate stopped by a signal");
    parallel_for(size_t{0}, kBlocksPerBatch, size_t{1}, [&](size_t blocks_begin, size_t blocks_end) {
      std::vector<Edge> edges;
      for (size_t b = blocks_begin; b < blocks_end; ++b) {
        blocks[b].clear();
        const uint64_t begin = std::min(count, batch_start + b * kBlockItems);
        const uint64_t end = std::min(count, begin + kBlockItems);
        for (uint64_t i = begin; i < end; ++i) {
          edges.clear();
          edge_at(i, &edges);
          for (const Edge& e : edges) append_edge(&blocks[b], e, encoding, weights);
        }
      }
    });
    for (const std::string& block : blocks) SG_RETURN_IF_ERROR(out.write(block));
  }
  return out.close();
}

}  // namespace

Status generate_rmat(const RmatOptions& o, const std::string& path) {
  if (o.scale < 1 || o.scale > 31) return Status::InvalidArgument("--scale must be in 1..31");
  if (o.edge_factor < 1) return Status::InvalidArgument("--edge-factor must be at least 1");
  const uint64_t vertices = uint64_t{1} << o.scale;
  const uint64_t edges = vertices * o.edge_factor;
  const std::vector<uint64_t> perm = permutation(vertices, o.seed);
  const std::string header = "# shardgraph rmat scale=" + std::to_string(o.scale) +
                             " edge_factor=" + std::to_string(o.edge_factor) + " seed=" + std::to_string(o.seed) +
                             "\n# Nodes: " + std::to_string(vertices) + " Edges: " + std::to_string(edges) + "\n";
  return write_edges(path, header, edges, o.weights, [&](uint64_t i, std::vector<Edge>* out) {
    Edge e = rmat_edge(o, i);
    e.src = perm[e.src];
    e.dst = perm[e.dst];
    out->push_back(e);
  });
}

Status generate_grid(const GridOptions& o, const std::string& path) {
  if (o.rows < 1 || o.cols < 1) return Status::InvalidArgument("--rows and --cols must be at least 1");
  const uint64_t vertices = uint64_t{o.rows} * o.cols;
  if (vertices > UINT32_MAX) return Status::InvalidArgument("grid has more than 2^32-1 vertices");
  std::vector<uint64_t> perm;
  if (o.shuffle) perm = permutation(vertices, o.seed);
  auto id = [&](uint64_t v) { return o.shuffle ? perm[v] : v; };
  const std::string header = "# shardgraph grid rows=" + std::to_string(o.rows) + " cols=" + std::to_string(o.cols) +
                             " seed=" + std::to_string(o.seed) + " (undirected)\n# Nodes: " + std::to_string(vertices) +
                             "\n";
  return write_edges(path, header, vertices, o.weights, [&](uint64_t v, std::vector<Edge>* out) {
    const uint64_t r = v / o.cols, c = v % o.cols;
    uint64_t state = splitmix64(o.seed * 0x2545f4914f6cdd1dULL ^ splitmix64(v));
    auto next = [&] { return state = splitmix64(state); };
    auto weight = [&] { return static_cast<float>(1 + next() % 255); };
    if (c + 1 < o.cols && next() % 100 >= 5) out->push_back(Edge{id(v), id(v + 1), weight()});
    if (r + 1 < o.rows && next() % 100 >= 5) out->push_back(Edge{id(v), id(v + o.cols), weight()});
    if (next() % 1000 < 2) {  // a shortcut up to 8 rows / columns away
      const uint64_t r2 = std::min<uint64_t>(o.rows - 1, r + next() % 9);
      const uint64_t c2 = std::min<uint64_t>(o.cols - 1, c + next() % 9);
      const uint64_t w = r2 * o.cols + c2;
      if (w != v) out->push_back(Edge{id(v), id(w), weight()});
    }
  });
}

}  // namespace sg
