// The ingest spill's coder alone (shards/ingest/bucket_router.cc), without
// the noise of a whole ingest: random arcs over 2^22 ids (R-MAT 22's id
// space, 16 arcs a vertex) are routed into BUCKETS coded buckets (16, as
// that ingest's first pass takes; 256 at most) of 64 Ki records each, a
// coded router as ingest opens one, then read back
// segment by segment. The spill lives in the page cache (a temporary
// directory), so the figures are the CPU's: routing with sorting and
// coding, and reading with decoding, in ns a record (the best of REPS).
// One JSON line on stdout.
//   spill_coding [REPS] [BUCKETS] [DIR]
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "shards/ingest/arc_record.h"
#include "shards/ingest/bucket_router.h"

namespace sg {
namespace {

constexpr int kIdBits = 22;
constexpr size_t kRecords = size_t{16} << kIdBits;
constexpr size_t kBufferRecords = 64 << 10;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<PlainArc> random_arcs() {
  std::vector<PlainArc> arcs(kRecords);
  uint64_t state = 88172645463325252ull;
  for (PlainArc& arc : arcs) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const uint32_t id_mask = (1u << kIdBits) - 1;
    arc = PlainArc::make(static_cast<uint32_t>(state) & id_mask, static_cast<uint32_t>(state >> 32) & id_mask, 0);
  }
  return arcs;
}

// Route and read times of one round, in seconds; false on an error.
bool one_round(const std::vector<PlainArc>& arcs, uint32_t buckets, const std::string& spill, double* route_s,
               double* read_s) {
  BucketRouter<PlainArc> router;
  const auto start = std::chrono::steady_clock::now();
  Status s = router.open(spill, buckets, kBufferRecords, 0, 32 + kIdBits - std::countr_zero(buckets), false,
                         SpillForm::kCoded);
  if (s.ok()) s = router.add_many(arcs.data(), arcs.size());
  if (s.ok()) s = router.finish();
  *route_s = seconds_since(start);
  std::vector<PlainArc> out(kBufferRecords);
  uint64_t checksum = 0;
  const auto read_start = std::chrono::steady_clock::now();
  for (uint32_t b = 0; b < router.bucket_count() && s.ok(); ++b) {
    for (const SpillSegment& segment : router.segments(b)) {
      if (segment.records > out.size()) out.resize(segment.records);
      s = router.read(segment, 0, segment.records, out.data());
      if (!s.ok()) break;
      for (uint64_t i = 0; i < segment.records; ++i) checksum += out[i].arc;
    }
  }
  *read_s = seconds_since(read_start);
  router.remove();
  if (!s.ok()) std::fprintf(stderr, "spill_coding: %s\n", s.ToString().c_str());
  uint64_t expected = 0;
  for (const PlainArc& arc : arcs) expected += arc.arc;
  if (s.ok() && checksum != expected) std::fprintf(stderr, "spill_coding: records changed on the way\n");
  return s.ok() && checksum == expected;
}

}  // namespace
}  // namespace sg

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const uint32_t buckets = std::bit_floor(std::clamp<uint32_t>(argc > 2 ? std::atoi(argv[2]) : 16, 1, 256));
  const std::filesystem::path dir = argc > 3 ? argv[3] : std::filesystem::temp_directory_path();
  const std::string spill = (dir / ("spill_coding." + std::to_string(getpid()))).string();
  const std::vector<sg::PlainArc> arcs = sg::random_arcs();
  double best_route_s = 1e9, best_read_s = 1e9;
  for (int r = 0; r < reps; ++r) {
    double route_s = 0, read_s = 0;
    if (!sg::one_round(arcs, buckets, spill, &route_s, &read_s)) return 1;
    best_route_s = std::min(best_route_s, route_s);
    best_read_s = std::min(best_read_s, read_s);
  }
  const double records = static_cast<double>(sg::kRecords);
  std::printf(
      "{\"records\": %zu, \"buckets\": %u, \"reps\": %d, \"route_ns_per_record\": %.2f, "
      "\"read_ns_per_record\": %.2f}\n",
      sg::kRecords, buckets, reps, best_route_s * 1e9 / records, best_read_s * 1e9 / records);
  return 0;
}
