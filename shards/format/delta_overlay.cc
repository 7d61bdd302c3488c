#include "shards/format/delta_overlay.h"

#include <algorithm>
#include <cassert>

namespace sg {

Status DeltaOverlay::decode_keys(uint32_t first, uint32_t end, std::vector<DeltaArc>* records,
                                 const std::function<bool(uint32_t, uint32_t)>& wanted) const {
  const size_t at = records->size();
  for (size_t b = reader.find_block(first); b < reader.blocks() && reader.block(b).first_key < end; ++b) {
    const DeltaBlockEntry& block = reader.block(b);
    if (wanted && !wanted(std::max(first, block.first_key), std::min(end, block.last_key + 1))) continue;
    SG_RETURN_IF_ERROR(reader.decode_block(b, records));
  }
  // The first and last blocks may hold keys outside [first, end).
  auto out_of_range = [&](const DeltaArc& a) { return a.key < first || a.key >= end; };
  records->erase(std::remove_if(records->begin() + static_cast<long>(at), records->end(), out_of_range),
                 records->end());
  return Status::OK();
}

Status split_overlay(const DeltaOverlay& whole, const std::vector<uint32_t>& starts, uint32_t num_vertices,
                     std::vector<std::unique_ptr<DeltaOverlay>>* parts) {
  assert(!starts.empty() && starts.front() == 0);
  std::vector<DeltaRunWriter> writers(starts.size(), DeltaRunWriter(whole.weighted, kOverlayBlockBytes));
  parts->clear();
  for (size_t b = 0; b < starts.size(); ++b) {
    parts->push_back(std::make_unique<DeltaOverlay>());
    (*parts)[b]->weighted = whole.weighted;
    (*parts)[b]->dedup = whole.dedup;
  }
  std::vector<DeltaArc> records;
  for (size_t i = 0; i < whole.reader.blocks(); ++i) {
    records.clear();
    SG_RETURN_IF_ERROR(whole.reader.decode_block(i, &records));
    for (const DeltaArc& a : records) {
      const size_t b =
          static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), a.neighbour) - starts.begin()) - 1;
      SG_RETURN_IF_ERROR(writers[b].add(a));
      DeltaOverlay& part = *(*parts)[b];
      (a.removed ? part.removals : part.adds) += 1;
    }
  }
  for (size_t b = 0; b < starts.size(); ++b) {
    DeltaOverlay& part = *(*parts)[b];
    SG_RETURN_IF_ERROR(writers[b].finish(&part.run));
    const auto* begin = reinterpret_cast<const uint8_t*>(part.run.data());
    SG_RETURN_IF_ERROR(part.reader.open(begin, begin + part.run.size(), part.weighted, num_vertices));
  }
  return Status::OK();
}

bool KeyRecords::has_removals() const {
  for (const DeltaArc* r = begin; r != end; ++r) {
    if (r->removed) return true;
  }
  return false;
}

uint32_t KeyRecords::adds_in(uint32_t lo, uint32_t hi) const {
  uint32_t adds = 0;
  for (const DeltaArc* r = begin; r != end; ++r) adds += !r->removed && r->neighbour >= lo && r->neighbour < hi;
  return adds;
}

uint32_t merge_list(const DeltaOverlay& overlay, KeyRecords records, uint32_t lo, uint32_t hi, const uint32_t* base,
                    const float* base_weights, uint32_t count, uint32_t* out, float* out_weights) {
  const bool weighted = overlay.weighted;  // base_weights may be null for an empty base
  assert(!weighted || count == 0 || base_weights != nullptr);
  const DeltaArc* removal = records.begin;  // the next removal record
  const DeltaArc* add = records.begin;      // the next add in [lo, hi)
  auto next_add = [&] {
    while (add != records.end && (add->removed || add->neighbour < lo || add->neighbour >= hi)) ++add;
  };
  next_add();
  uint32_t written = 0;
  auto put = [&](uint32_t neighbour, float weight) {
    // Sorted by (neighbour, weight): the first copy of a neighbour has its smallest weight.
    if (overlay.dedup && written > 0 && out[written - 1] == neighbour) return;
    out[written] = neighbour;
    if (weighted) out_weights[written] = weight;
    ++written;
  };
  uint32_t i = 0;
  while (i < count || add != records.end) {
    bool take_base = add == records.end;
    if (!take_base && i < count) {
      take_base =
          base[i] < add->neighbour || (base[i] == add->neighbour && (!weighted || base_weights[i] <= add->weight));
    }
    if (!take_base) {
      put(add->neighbour, add->weight);
      ++add;
      next_add();
      continue;
    }
    const uint32_t neighbour = base[i];
    while (removal != records.end && (!removal->removed || removal->neighbour < neighbour)) ++removal;
    const bool removed = removal != records.end && removal->neighbour == neighbour;
    if (!removed) put(neighbour, weighted ? base_weights[i] : 1.0f);
    ++i;
  }
  return written;
}

}  // namespace sg
