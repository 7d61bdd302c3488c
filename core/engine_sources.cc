// A distributed step's first part (docs/scale-out.md): every rank sends the
// values its active owned sources hold, in the arrays updates read at
// sources, to the ranks that mirror them (core/mirror_set.h), in rounds of
// bounded size. A ranged array (state beyond the budget) is read and
// written a window of slabs at a time: what it holds in memory stays a
// window, whatever the share's size.
#include <algorithm>
#include <bit>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/engine.h"
#include "core/exchange_rounds.h"

namespace sg {
namespace {

// A ranged array's values are packed and unpacked this many bytes of
// slabs at a time.
constexpr uint64_t kShareWindowBytes = uint64_t{1} << 20;

uint64_t window_values(size_t value_bytes) { return RawVertexArray::whole_slab_values(kShareWindowBytes, value_bytes); }

// Cuts [begin, end) into `rounds` pieces of about equal active members
// (`active` is dense):
// cuts[k] is where piece k begins; cuts[rounds] = end.
std::vector<uint32_t> cut_by_active(const VertexSubset& active, uint32_t begin, uint32_t end, uint64_t rounds) {
  std::vector<uint32_t> cuts(rounds + 1, end);
  cuts[0] = begin;
  if (begin >= end || rounds == 1) return cuts;
  const uint64_t* bits = active.bits().data();
  const uint64_t members = bitmap_count_in(bits, begin, end);
  uint64_t seen = 0, k = 1;
  for (size_t w = begin >> 6; w <= (end - 1) >> 6 && k < rounds; ++w) {
    seen += std::popcount(bitmap_word_in(bits, w, begin, end));
    // A piece ends at a word's end once it holds its share of the members.
    while (k < rounds && seen * rounds >= k * members)
      cuts[k++] = std::clamp<uint32_t>(uint32_t((w + 1) * 64), begin, end);
  }
  return cuts;
}

// A test hook: SHARDGRAPH_KILL_RANK=R@S kills rank R (SIGKILL, as the
// kernel's OOM killer or a lost machine would) as it begins its step S,
// counted from 1. The job must then end with an error, not hang.
void kill_rank_for_test(int rank, uint64_t step) {
  static const char* spec = std::getenv("SHARDGRAPH_KILL_RANK");
  if (spec == nullptr) return;
  int kill_rank = -1;
  unsigned long long kill_step = 0;
  if (std::sscanf(spec, "%d@%llu", &kill_rank, &kill_step) == 2 && kill_rank == rank && kill_step == step)
    std::raise(SIGKILL);
}

}  // namespace

Status Engine::share_sources(const VertexSubset& frontier, size_t slot) {
  Communicator* comm = distribution_.communicator;
  kill_rank_for_test(comm->rank(), ++distributed_steps_);
  SG_RETURN_IF_ERROR(prepare_vertices());
  note_vertex_state();  // uses may have changed (set_use)
  count_by_owner(frontier, &RankShare::active_owned);
  active_owned_ = shares_[static_cast<size_t>(comm->rank())].active_owned;
  source_value_bytes_ = 0;
  std::vector<SourceArray> arrays;
  bool only_sources = true;  // no kAny array, which a step itself may write
  residency_.for_each_array([&](RawVertexArray* array, VertexUse use, size_t value_bytes) {
    if ((use == VertexUse::kSource || use == VertexUse::kAny) && array->data() != nullptr) {
      arrays.push_back({array, value_bytes});
      only_sources = only_sources && use == VertexUse::kSource;
    }
  });
  const uint8_t slot_bit = static_cast<uint8_t>(1u << slot);
  sources_skipped_ = !arrays.empty() && (mirrors_current_ & slot_bit) != 0;
  if (arrays.empty() || sources_skipped_) return Status::OK();
  for (const SourceArray& a : arrays) source_value_bytes_ += a.value_bytes;
  const DenseSubset dense(frontier);
  if (dense.get().is_all() && only_sources) mirrors_current_ |= slot_bit;
  // Rounds of about exchange_round_bytes received: owner r's range is cut
  // into pieces of equal active members (every rank cuts the same way).
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  const uint64_t round_bytes = exchange_round_bytes(budget_.total());
  source_rounds_ = std::max<uint64_t>(1, (dense.get().size() * source_value_bytes_ + round_bytes - 1) / round_bytes);
  std::vector<std::vector<uint32_t>> cuts(shares_.size());
  for (size_t r = 0; r < shares_.size(); ++r) {
    cuts[r] = cut_by_active(dense.get(), bounds[r], bounds[r + 1], source_rounds_);
    shares_[r].active_mirrored = 0;
  }
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  for (uint64_t k = 0; k < source_rounds_; ++k) {
    auto piece = [&](size_t r) { return std::pair<uint32_t, uint32_t>{cuts[r][k], cuts[r][k + 1]}; };
    SG_RETURN_IF_ERROR(send_sources(mirror_sets_[slot], dense.get(), arrays, piece, &received, &counts));
    SG_RETURN_IF_ERROR(receive_sources(mirror_sets_[slot], dense.get(), arrays, piece, received, counts));
  }
  return Status::OK();
}

// Each peer's piece: the values of the active vertices of this rank's
// piece of its range that the peer mirrors, array by array.
Status Engine::send_sources(const MirrorSet& mirrors, const VertexSubset& active,
                            const std::vector<SourceArray>& arrays, const RoundPiece& piece,
                            std::vector<uint8_t>* received, std::vector<uint64_t>* counts) {
  Communicator* comm = distribution_.communicator;
  const auto ranks = static_cast<size_t>(comm->size()), me = static_cast<size_t>(comm->rank());
  const auto [begin, end] = piece(me);
  std::vector<uint64_t> send_counts(ranks, 0), needed(ranks, 0), start(ranks, 0);
  uint64_t total = 0;
  for (size_t r = 0; r < ranks; ++r) {
    if (r == me) continue;
    needed[r] = mirrors.count_needed_by(r, active, begin, end);
    send_counts[r] = needed[r] * source_value_bytes_;
    start[r] = total;
    total += send_counts[r];
  }
  std::vector<uint8_t> send(total);
  std::vector<uint8_t*> out(ranks);
  uint64_t packed_bytes = 0;  // a needed vertex's bytes in the arrays packed so far
  for (const SourceArray& a : arrays) {
    for (size_t r = 0; r < ranks; ++r) out[r] = send.data() + start[r] + needed[r] * packed_bytes;
    const auto* data = static_cast<const uint8_t*>(a.array->data());
    SG_RETURN_IF_ERROR(visit_by_window(
        a.array, begin, end, window_values(a.value_bytes), false,
        [&](uint64_t lo, uint64_t hi) { return active.any_in(uint32_t(lo), uint32_t(hi)); },
        [&](uint64_t lo, uint64_t hi) {
          for (size_t r = 0; r < ranks; ++r) {
            if (r == me) continue;
            mirrors.for_each_needed_by(r, active, uint32_t(lo), uint32_t(hi), [&](uint32_t v) {
              std::memcpy(out[r], data + uint64_t{v} * a.value_bytes, a.value_bytes);
              out[r] += a.value_bytes;
            });
          }
        }));
    packed_bytes += a.value_bytes;
  }
  return comm->all_to_all(send, send_counts, received, counts);
}

// Each owner's piece into the mirrors, in the order it was packed.
Status Engine::receive_sources(const MirrorSet& mirrors, const VertexSubset& active,
                               const std::vector<SourceArray>& arrays, const RoundPiece& piece,
                               const std::vector<uint8_t>& received, const std::vector<uint64_t>& counts) {
  const auto me = static_cast<size_t>(distribution_.communicator->rank());
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
    if (r == me) continue;
    const auto [begin, end] = piece(r);
    const uint64_t members = mirrors.count_mirrors_in(active, begin, end);
    shares_[r].active_mirrored += members;
    if (members * source_value_bytes_ != counts[r])
      return Status::Corruption("rank " + std::to_string(r) + " sent source values for another frontier");
    uint64_t unpacked_bytes = 0;
    for (const SourceArray& a : arrays) {
      const uint8_t* p = received.data() + at + members * unpacked_bytes;
      auto* data = static_cast<uint8_t*>(a.array->data());
      SG_RETURN_IF_ERROR(visit_by_window(
          a.array, begin, end, window_values(a.value_bytes), true,
          [&](uint64_t lo, uint64_t hi) { return mirrors.count_mirrors_in(active, uint32_t(lo), uint32_t(hi)) > 0; },
          [&](uint64_t lo, uint64_t hi) {
            mirrors.for_each_mirror_in(active, uint32_t(lo), uint32_t(hi), [&](uint32_t v) {
              std::memcpy(data + uint64_t{v} * a.value_bytes, p, a.value_bytes);
              p += a.value_bytes;
            });
          }));
      unpacked_bytes += a.value_bytes;
    }
  }
  return Status::OK();
}

}  // namespace sg
