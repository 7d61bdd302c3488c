// The network's share of a distributed step (docs/scale-out.md): the bytes
// each rank receives, from what every rank holds of the step's frontier
// and of the next one, and the seconds they take on a link of the measured
// latency and rate. Every rank holds both frontiers, so each predicts the
// whole step's exchange alone, before comparing with what it measured.
#pragma once

#include <cstdint>
#include <span>

namespace sg {

// A link as a rank measured it at the start of the run (its rate raised
// by any step that moved much faster).
struct NetworkProfile {
  double latency_seconds = 0;   // one collective of a byte a rank
  double bytes_per_second = 0;  // a rank's receive rate in a large collective
};

// What one rank holds of a step: the active sources it owns, those of them
// the receiving rank mirrors (it sends their values), the next frontier's
// members it found (it sends them as 4-byte ids, or as its range's bitmap
// words when fewer bytes), and those words.
struct RankShare {
  uint64_t active_owned = 0;
  uint64_t active_mirrored = 0;
  uint64_t next_owned = 0;
  uint64_t bitmap_words = 0;
};

// The bytes rank `receiver` gets in one step: from every other rank the
// source values of its mirrors (`source_value_bytes` a vertex, none when
// the mirrors were current), its status (one byte) and its next-frontier members, with
// their encoding's header.
uint64_t step_bytes_received(std::span<const RankShare> shares, int receiver, uint64_t source_value_bytes);

// The seconds a rank's step spends on the network: each of its
// `collectives`' latency, and the bytes it receives at the link's rate (a
// rank's part of a collective ends when it has every other rank's bytes).
// Waiting for a slower rank's disk or CPU is not in it.
double step_network_seconds(const NetworkProfile& network, uint64_t collectives, uint64_t bytes_received);

}  // namespace sg
