#include "shards/format/delta_overlay.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

namespace sg {

namespace {

bool arc_less(const DeltaArc& a, const DeltaArc& b) {
  return a.key < b.key || (a.key == b.key && a.neighbour < b.neighbour);
}

bool same_arc(const DeltaArc& a, const DeltaArc& b) { return a.key == b.key && a.neighbour == b.neighbour; }

// Appends a part's records of keys [first, end): those of its blocks in
// range that `wanted` wants.
template <typename Reader>
Status decode_blocks(const Reader& reader, uint32_t first, uint32_t end,
                     const std::function<bool(uint32_t, uint32_t)>& wanted, std::vector<DeltaArc>* records) {
  for (size_t b = reader.find_block(first); b < reader.blocks() && reader.block(b).first_key < end; ++b) {
    const auto& block = reader.block(b);
    if (wanted && !wanted(std::max(first, block.first_key), std::min(end, block.last_key + 1))) continue;
    if constexpr (std::is_same_v<Reader, PackedRun>) {
      reader.decode_block(b, records);
    } else {
      SG_RETURN_IF_ERROR(reader.decode_block(b, records));
    }
  }
  return Status::OK();
}

Status decode_part(const OverlayPart& part, uint32_t first, uint32_t end,
                   const std::function<bool(uint32_t, uint32_t)>& wanted, std::vector<DeltaArc>* records) {
  const size_t at = records->size();
  SG_RETURN_IF_ERROR(part.packed.ready() ? decode_blocks(part.packed, first, end, wanted, records)
                                         : decode_blocks(part.reader, first, end, wanted, records));
  // The first and last blocks may hold keys outside [first, end).
  auto out_of_range = [&](const DeltaArc& a) { return a.key < first || a.key >= end; };
  records->erase(std::remove_if(records->begin() + static_cast<long>(at), records->end(), out_of_range),
                 records->end());
  return Status::OK();
}

}  // namespace

Status DeltaOverlay::add_part(RunBytes run, bool resolved, uint32_t num_vertices) {
  auto part = std::make_unique<OverlayPart>();
  part->run = std::move(run);
  part->resolved = resolved;
  const uint8_t* begin = part->run.data();
  SG_RETURN_IF_ERROR(part->reader.open(begin, begin + part->run.size(), weighted, num_vertices));
  for (size_t b = 0; b < part->reader.blocks(); ++b) {
    part_removals += part->reader.block(b).records - part->reader.block(b).adds;
  }
  parts.push_back(std::move(part));
  return Status::OK();
}

Status DeltaOverlay::pack_parts() {
  for (const auto& part : parts) {
    if (!part->packed.ready()) SG_RETURN_IF_ERROR(part->packed.pack(part->reader, weighted));
    part->drop_stored();
  }
  return Status::OK();
}

uint64_t DeltaOverlay::bytes() const {
  uint64_t bytes = 0;
  for (const auto& part : parts) {
    bytes += part->packed.ready() ? part->packed.bytes()
                                  : part->run.size() + part->reader.blocks() * sizeof(DeltaBlockEntry);
  }
  return bytes;
}

Status DeltaOverlay::decode_keys(uint32_t first, uint32_t end, std::vector<DeltaArc>* records,
                                 const std::function<bool(uint32_t, uint32_t)>& wanted) const {
  if (parts.size() == 1 && parts[0]->resolved) return decode_part(*parts[0], first, end, wanted, records);
  // The parts' records merged by arc, an older part's first on ties
  // (std::merge takes the first range's first), then each arc resolved.
  // Per thread, reused: a window's blocks call this many times.
  thread_local std::vector<DeltaArc> merged, next, part_records;
  // Adds alone, unweighted: each record stands as it is, so the last merge
  // goes straight to *records.
  const bool as_they_are = !weighted && adds_alone();
  merged.clear();
  for (size_t p = 0; p < parts.size(); ++p) {
    const bool last = p + 1 == parts.size();
    part_records.clear();
    SG_RETURN_IF_ERROR(decode_part(*parts[p], first, end, wanted, &part_records));
    if (part_records.empty() && !(last && as_they_are)) continue;
    std::vector<DeltaArc>& into = last && as_they_are ? *records : next;
    const size_t at = &into == records ? records->size() : 0;
    into.resize(at + merged.size() + part_records.size());
    std::merge(merged.begin(), merged.end(), part_records.begin(), part_records.end(), into.begin() + at, arc_less);
    if (&into == &next) merged.swap(next);
  }
  if (as_they_are) return Status::OK();
  const DeltaArc* r = merged.data();
  const DeltaArc* records_end = r + merged.size();
  while (r != records_end) {
    const DeltaArc* arc_end = r + 1;
    while (arc_end != records_end && same_arc(*arc_end, *r)) ++arc_end;
    if (arc_end == r + 1) {
      records->push_back(*r);  // one record: already resolved
    } else {
      resolve_arc(r, arc_end, dedup, records);
    }
    r = arc_end;
  }
  return Status::OK();
}

void resolve_arc(const DeltaArc* first, const DeltaArc* end, bool dedup, std::vector<DeltaArc>* resolved) {
  const DeltaArc* after_removals = first;  // the adds from here on no later update removes
  for (const DeltaArc* r = first; r != end; ++r) {
    if (r->removed) after_removals = r + 1;
  }
  if (after_removals != first) resolved->push_back({first->key, first->neighbour, 1.0f, true});
  const size_t adds_at = resolved->size();
  for (const DeltaArc* r = after_removals; r != end; ++r) resolved->push_back(*r);
  std::sort(resolved->begin() + static_cast<long>(adds_at), resolved->end(),
            [](const DeltaArc& a, const DeltaArc& b) { return a.weight < b.weight; });
  if (dedup && resolved->size() > adds_at + 1) resolved->resize(adds_at + 1);  // ingest keeps the smallest weight
}

Status for_each_overlay_pass(const DeltaOverlay& overlay, uint32_t num_vertices,
                             const std::function<Status(const std::vector<DeltaArc>&)>& pass) {
  std::vector<DeltaArc> records;
  for (uint32_t first = 0; first < num_vertices;) {
    const uint32_t end = first + std::min(num_vertices - first, kOverlayKeysAPass);
    records.clear();
    SG_RETURN_IF_ERROR(overlay.decode_keys(first, end, &records));
    SG_RETURN_IF_ERROR(pass(records));
    first = end;
  }
  return Status::OK();
}

Status for_each_part_block(const DeltaOverlay& overlay,
                           const std::function<void(const std::vector<DeltaArc>&)>& block) {
  std::vector<DeltaArc> records;
  for (const auto& part : overlay.parts) {
    const size_t blocks = part->packed.ready() ? part->packed.blocks() : part->reader.blocks();
    for (size_t b = 0; b < blocks; ++b) {
      records.clear();
      if (part->packed.ready()) {
        part->packed.decode_block(b, &records);
      } else {
        SG_RETURN_IF_ERROR(part->reader.decode_block(b, &records));
      }
      block(records);
    }
  }
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
  auto pass = [&](const std::vector<DeltaArc>& records) {
    for (const DeltaArc& a : records) {
      const size_t b =
          static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), a.neighbour) - starts.begin()) - 1;
      SG_RETURN_IF_ERROR(writers[b].add(a));
      DeltaOverlay& part = *(*parts)[b];
      (a.removed ? part.removals : part.adds) += 1;
    }
    return Status::OK();
  };
  SG_RETURN_IF_ERROR(for_each_overlay_pass(whole, num_vertices, pass));
  for (size_t b = 0; b < starts.size(); ++b) {
    std::string run;
    SG_RETURN_IF_ERROR(writers[b].finish(&run));
    SG_RETURN_IF_ERROR((*parts)[b]->add_part(std::move(run), true, num_vertices));
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

namespace {

// The number of the `count` sorted values at `values` that are <= x.
// Branchless: a list's adds land at random places in it, so the branches
// of std::upper_bound mispredict about half the time.
uint32_t count_at_most(const uint32_t* values, uint32_t count, uint32_t x) {
  if (count == 0) return 0;
  const uint32_t* at = values;
  for (uint32_t n = count; n > 1;) {  // at[0] <= x or at == values; the answer is in [at, at + n]
    const uint32_t half = n / 2;
    at = at[half] <= x ? at + half : at;
    n -= half;
  }
  return static_cast<uint32_t>(at - values) + (*at <= x);
}

// merge_list for adds alone into an unweighted list that keeps duplicates:
// the base copied a stretch at a time between them (a stored neighbour
// before an add of the same).
uint32_t merge_adds(KeyRecords records, uint32_t lo, uint32_t hi, const uint32_t* base, uint32_t count, uint32_t* out) {
  uint32_t written = 0, i = 0;
  for (const DeltaArc* add = records.begin; add != records.end; ++add) {
    if (add->neighbour < lo || add->neighbour >= hi) continue;
    const uint32_t stretch = count_at_most(base + i, count - i, add->neighbour);
    if (stretch > 0) std::memcpy(out + written, base + i, sizeof(uint32_t) * stretch);
    written += stretch;
    i += stretch;
    out[written++] = add->neighbour;
  }
  if (i < count) std::memcpy(out + written, base + i, sizeof(uint32_t) * (count - i));
  return written + (count - i);
}

}  // namespace

uint32_t merge_list(const DeltaOverlay& overlay, KeyRecords records, uint32_t lo, uint32_t hi, const uint32_t* base,
                    const float* base_weights, uint32_t count, uint32_t* out, float* out_weights) {
  if (!overlay.weighted && (overlay.adds_alone() || (!overlay.dedup && !records.has_removals()))) {
    return merge_adds(records, lo, hi, base, count, out);
  }
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
