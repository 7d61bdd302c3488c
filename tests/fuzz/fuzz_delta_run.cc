// Fuzz target: delta run decoding (shards/format/delta_run.h) with the
// checksums out of the way. Input: a 5-byte header (|V| as uint32, flags:
// bit 0 weighted) and the run; before it is read, every checksum the run's
// own index and footer point at is set right, so mutations reach the
// structure checks. A run either opens and decodes into arcs in the run's
// order, below |V|, as many as the index says, or is refused with a
// Status; it never reads past its end.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compression/checksum.h"
#include "shards/format/delta_run.h"

namespace {

uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Sets the block and index checksums that the footer's index names.
void fix_checksums(std::vector<uint8_t>* run) {
  if (run->size() < 32) return;
  uint8_t* footer = run->data() + run->size() - 32;
  const uint64_t index_offset = load64(footer), blocks = load64(footer + 8);
  if (index_offset > run->size() - 32 || blocks > (run->size() - 32 - index_offset) / sizeof(sg::DeltaBlockEntry))
    return;
  auto* index = reinterpret_cast<sg::DeltaBlockEntry*>(run->data() + index_offset);
  for (uint64_t b = 0; b < blocks; ++b) {
    sg::DeltaBlockEntry entry;
    std::memcpy(&entry, &index[b], sizeof(entry));
    if (entry.offset > index_offset || entry.bytes > index_offset - entry.offset) continue;
    entry.checksum = sg::checksum64(run->data() + entry.offset, entry.bytes);
    std::memcpy(&index[b], &entry, sizeof(entry));
  }
  const uint64_t sum = sg::checksum64(index, blocks * sizeof(sg::DeltaBlockEntry));
  std::memcpy(footer + 16, &sum, sizeof(sum));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  uint32_t vertices;
  std::memcpy(&vertices, data, 4);
  const bool weighted = (data[4] & 1) != 0;
  std::vector<uint8_t> run(data + 5, data + size);
  fix_checksums(&run);
  // A copy of exactly the run's bytes, so reading past its end is caught.
  auto* bytes = static_cast<uint8_t*>(std::malloc(run.size() + 1));
  if (!run.empty()) std::memcpy(bytes, run.data(), run.size());
  sg::DeltaRunReader reader;
  if (reader.open(bytes, bytes + run.size(), weighted, vertices).ok()) {
    std::vector<sg::DeltaArc> arcs;
    for (size_t b = 0; b < reader.blocks(); ++b) {
      const size_t before = arcs.size();
      if (!reader.decode_block(b, &arcs).ok()) continue;
      if (arcs.size() - before != reader.block(b).records) std::abort();
      for (size_t i = before; i < arcs.size(); ++i) {
        if (arcs[i].key >= vertices || arcs[i].neighbour >= vertices) std::abort();
        if (i > before && sg::delta_before(arcs[i], arcs[i - 1])) std::abort();
      }
    }
  }
  std::free(bytes);
  return 0;
}
