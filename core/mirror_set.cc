#include "core/mirror_set.h"

#include <cstring>

namespace sg {

Status MirrorSet::scan(const Graph& part, const std::vector<uint32_t>& bounds, int rank) {
  const uint32_t n = bounds.back();
  bounds_ = bounds;
  owned_begin_ = bounds[static_cast<size_t>(rank)];
  owned_end_ = bounds[static_cast<size_t>(rank) + 1];
  mirrors_.assign((size_t{n} + 63) / 64, 0);
  count_ = 0;
  SG_RETURN_IF_ERROR(part.scan_degree_file(SpaceKind::kOut, [&](uint32_t first, const uint32_t* degrees, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const auto v = static_cast<uint32_t>(first + i);
      if (degrees[i] == 0 || (v >= owned_begin_ && v < owned_end_)) continue;
      mirrors_[v >> 6] |= uint64_t{1} << (v & 63);
      ++count_;
    }
  }));
  return Status::OK();
}

Status MirrorSet::exchange(Communicator* comm) {
  const auto rank = static_cast<size_t>(comm->rank());
  const std::vector<uint32_t>& bounds = bounds_;
  const size_t ranks = bounds.size() - 1;
  // Each owner gets, over its range's words, which of its vertices this rank mirrors.
  auto span_of = [&](size_t r) { return std::pair<size_t, size_t>{bounds[r] >> 6, (size_t{bounds[r + 1]} + 63) >> 6}; };
  std::vector<uint8_t> send;
  std::vector<uint64_t> send_counts(ranks, 0);
  for (size_t r = 0; r < ranks; ++r) {
    if (r == rank) continue;
    const auto [first, end] = span_of(r);
    std::vector<uint64_t> words(end - first);
    for (size_t w = first; w < end; ++w)
      words[w - first] = bounds[r] < bounds[r + 1] ? bits_in_range(mirrors_[w], w, bounds[r], bounds[r + 1]) : 0;
    const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
    send.insert(send.end(), bytes, bytes + words.size() * sizeof(uint64_t));
    send_counts[r] = words.size() * sizeof(uint64_t);
  }
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(comm->all_to_all(send, send_counts, &received, &counts));
  const auto [first, end] = span_of(rank);
  needed_by_.assign(ranks, {});
  uint64_t at = 0;
  for (size_t r = 0; r < ranks; at += counts[r], ++r) {
    if (r == rank) continue;
    if (counts[r] != (end - first) * sizeof(uint64_t))
      return Status::Corruption("rank " + std::to_string(r) + " sent its mirrors over another range");
    needed_by_[r].resize(end - first);
    std::memcpy(needed_by_[r].data(), received.data() + at, counts[r]);
  }
  return Status::OK();
}

uint64_t MirrorSet::bytes() const {
  uint64_t words = mirrors_.size();
  for (const auto& needed : needed_by_) words += needed.size();
  return words * sizeof(uint64_t);
}

}  // namespace sg
