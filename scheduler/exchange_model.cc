#include "scheduler/exchange_model.h"

#include <algorithm>

namespace sg {
namespace {

// share_members' encodings: a tag byte, then 4-byte ids; or a tag byte,
// the first word's index (8 bytes), then the words.
uint64_t member_bytes(const RankShare& share) {
  const uint64_t list = 4 * share.next_owned, bitmap = 8 * share.bitmap_words;
  return list <= bitmap ? 1 + list : 1 + 8 + bitmap;
}

}  // namespace

uint64_t step_bytes_received(std::span<const RankShare> shares, int receiver, uint64_t source_value_bytes) {
  uint64_t bytes = 0;
  for (size_t r = 0; r < shares.size(); ++r) {
    if (static_cast<int>(r) == receiver) continue;
    bytes += shares[r].active_mirrored * source_value_bytes + 1 + member_bytes(shares[r]);
  }
  return bytes;
}

double step_network_seconds(const NetworkProfile& network, uint64_t collectives, uint64_t bytes_received) {
  const double transfer =
      network.bytes_per_second > 0 ? static_cast<double>(bytes_received) / network.bytes_per_second : 0;
  return static_cast<double>(collectives) * network.latency_seconds + transfer;
}

}  // namespace sg
