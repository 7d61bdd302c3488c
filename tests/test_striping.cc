// Stripe layout: the mapping formula, piece splitting and per-device sizes.
#include <doctest/doctest.h>

#include <map>

#include "shards/format/striping.h"

using namespace sg;

TEST_CASE("stripe mapping matches the formula and tiles each device") {
  for (uint32_t devices : {1u, 2u, 3u, 4u}) {
    for (uint64_t stripe : {uint64_t{4096}, uint64_t{8192}, uint64_t{1} << 20}) {
      StripeLayout layout(stripe, devices);
      const uint64_t logical = stripe * 7 + 1234;
      std::map<uint32_t, uint64_t> next_offset;  // each device written front to back
      uint64_t covered = 0;
      layout.split(0, logical, [&](const StripePiece& piece) {
        CHECK(piece.device == (piece.logical_offset / stripe) % devices);
        CHECK(piece.device_offset ==
              (piece.logical_offset / stripe / devices) * stripe + piece.logical_offset % stripe);
        CHECK(piece.device_offset == next_offset[piece.device]);
        next_offset[piece.device] += piece.bytes;
        CHECK(piece.logical_offset == covered);
        covered += piece.bytes;
      });
      CHECK(covered == logical);
      uint64_t total = 0;
      for (uint32_t d = 0; d < devices; ++d) {
        CHECK(layout.device_bytes(logical, d) == next_offset[d]);
        total += layout.device_bytes(logical, d);
      }
      CHECK(total == logical);
    }
  }
}

TEST_CASE("one device maps identically and pieces never cross a stripe") {
  StripeLayout one(4096, 1);
  one.split(100, 20000, [&](const StripePiece& p) {
    CHECK(p.device == 0);
    CHECK(p.device_offset == p.logical_offset);
  });
  StripeLayout three(4096, 3);
  int pieces = 0;
  three.split(4000, 4096 * 2, [&](const StripePiece& p) {
    CHECK(p.logical_offset / 4096 == (p.logical_offset + p.bytes - 1) / 4096);
    ++pieces;
  });
  CHECK(pieces == 3);
}
