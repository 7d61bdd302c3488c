// How much a rank receives in one round of a distributed run's exchanges
// (a source share, gather_owned): the exchange's buffers stay this small
// beside the budget (R-MAT 24 over 4 ranks in 256 MiB each needs them
// bounded).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace sg {

inline constexpr uint64_t kExchangeRoundBytes = uint64_t{8} << 20;

// kExchangeRoundBytes, or SHARDGRAPH_EXCHANGE_ROUND_BYTES (a test hook:
// small graphs then take many rounds).
inline uint64_t exchange_round_bytes() {
  static const uint64_t bytes = [] {
    const char* given = std::getenv("SHARDGRAPH_EXCHANGE_ROUND_BYTES");
    const unsigned long long parsed = given != nullptr ? std::strtoull(given, nullptr, 10) : 0;
    return parsed > 0 ? static_cast<uint64_t>(parsed) : kExchangeRoundBytes;
  }();
  return bytes;
}

}  // namespace sg
