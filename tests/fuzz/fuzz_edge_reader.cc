// Fuzz target: the input parsers (shards/ingest/edge_reader.h): SNAP/CSV
// text, Matrix Market, bin32 and bin64, weighted or not. The first byte
// picks the format; the rest is the file, served from a memfd. A reader
// either yields edges with ids within its limit or stops with a Status; it
// never crashes or loops.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "shards/ingest/edge_reader.h"
#include "shards/ingest/open_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const sg::InputFormat kFormats[] = {sg::InputFormat::kSnap, sg::InputFormat::kMtx, sg::InputFormat::kBin32,
                                             sg::InputFormat::kBin64};
  const sg::InputFormat format = kFormats[data[0] % 4];
  const bool weighted = (data[0] & 4) != 0;
  const int fd = ::memfd_create("fuzz-input", 0);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size - 1) {
    const ssize_t n = ::write(fd, data + 1 + written, size - 1 - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  std::unique_ptr<sg::EdgeReader> reader;
  if (sg::open_edge_reader(path, format, weighted, &reader).ok()) {
    constexpr uint64_t kMaxId = (uint64_t{1} << 32) - 2;
    reader->set_max_id(kMaxId);
    std::vector<sg::RawEdge> batch;
    for (int round = 0; round < 1 << 20; ++round) {  // a bound: each round consumes input or ends
      if (!reader->next_batch(&batch, 1024).ok() || batch.empty()) break;
      for (const sg::RawEdge& e : batch) {
        const uint64_t base = reader->shape().id_base;
        if (e.src < base || e.dst < base || e.src - base > kMaxId || e.dst - base > kMaxId) std::abort();
      }
    }
  }
  ::close(fd);
  return 0;
}
