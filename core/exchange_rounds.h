// How much a rank receives in one round of a distributed run's exchanges
// (a source share, gather_owned): the exchange's buffers stay small beside
// the budget (R-MAT 24 over 4 ranks in 64 MiB each needs them bounded), and
// the engine holds room for them (a round's send and receive buffers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace sg {

inline constexpr uint64_t kExchangeRoundBytes = uint64_t{8} << 20;  // at most
inline constexpr uint64_t kLeastExchangeRoundBytes = uint64_t{256} << 10;
inline constexpr uint64_t kExchangeRoundsPerBudget = 32;  // a round takes 1/32 of --memory

// A round's bytes for a rank of `memory_bytes`, or
// SHARDGRAPH_EXCHANGE_ROUND_BYTES (a test hook: small graphs then take many
// rounds).
inline uint64_t exchange_round_bytes(uint64_t memory_bytes) {
  static const uint64_t given = [] {
    const char* text = std::getenv("SHARDGRAPH_EXCHANGE_ROUND_BYTES");
    const unsigned long long parsed = text != nullptr ? std::strtoull(text, nullptr, 10) : 0;
    return static_cast<uint64_t>(parsed);
  }();
  if (given > 0) return given;
  return std::clamp(memory_bytes / kExchangeRoundsPerBudget, kLeastExchangeRoundBytes, kExchangeRoundBytes);
}

}  // namespace sg
