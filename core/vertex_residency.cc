#include "core/vertex_residency.h"

#include <algorithm>
#include <cassert>
#include <chrono>

namespace sg {
namespace {

// Lower first: edge sources and destinations before vertex_map-only arrays.
int default_priority(VertexUse use) { return use == VertexUse::kVertex ? 2 : 0; }

}  // namespace

const char* vertex_use_name(VertexUse use) {
  switch (use) {
    case VertexUse::kAny: return "any";
    case VertexUse::kSource: return "source";
    case VertexUse::kDestination: return "destination";
    case VertexUse::kVertex: return "vertex";
  }
  return "?";
}

VertexResidency::~VertexResidency() { reset(); }

void VertexResidency::reset() {
  for (Entry& e : entries_) e.array->owner_ = nullptr;
  entries_.clear();
  resident_bytes_ = 0;
  gone_loaded_ = gone_written_ = 0;
  io_seconds_ = 0;
  peak_loaded_bytes_ = 0;
}

void VertexResidency::add(RawVertexArray* array, VertexUse use, size_t value_bytes, const std::string& name,
                          bool placed, uint64_t resident_bytes, int priority, uint64_t whole_bytes) {
  assert(array->owner_ == nullptr);
  array->owner_ = this;
  Entry e;
  e.array = array;
  e.use = use;
  e.value_bytes = value_bytes;
  e.name = name;
  e.placed = placed;
  e.resident_bytes = resident_bytes;
  e.priority = priority >= 0 ? priority : default_priority(use);
  e.whole_bytes = whole_bytes > 0 ? whole_bytes : array->slab_count() * array->slab_bytes_;
  resident_bytes_ += resident_bytes;
  entries_.push_back(std::move(e));
}

bool VertexResidency::has_pending() const {
  return std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.placed; });
}

bool VertexResidency::any_ranged() const {
  return std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.ranged; });
}

bool VertexResidency::any_mapped() const {
  return std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.array->file_backed(); });
}

uint64_t VertexResidency::mapped_bytes_per_vertex(const VertexAccess& access) const {
  uint64_t bytes = 0;
  VertexAccess::Mode mode;
  for (const Entry& e : entries_) bytes += e.array->file_backed() && access.mode_of(e.array, &mode) ? e.value_bytes : 0;
  return bytes;
}

void VertexResidency::drop_mapped_pages(const VertexAccess& access) const {
  VertexAccess::Mode mode;
  for (const Entry& e : entries_) {
    if (e.array->file_backed() && access.mode_of(e.array, &mode)) e.array->drop_pages();
  }
}

Status VertexResidency::place(uint64_t room, uint64_t range_reserve, std::string* notes) {
  std::vector<Entry*> pending;
  uint64_t total = 0;
  for (Entry& e : entries_) {
    if (e.placed) continue;
    pending.push_back(&e);
    total += e.whole_bytes;
  }
  std::stable_sort(pending.begin(), pending.end(),
                   [](const Entry* a, const Entry* b) { return a->priority < b->priority; });
  if (total > room || any_ranged()) room -= std::min(room, range_reserve);
  for (Entry* e : pending) {
    RawVertexArray* a = e->array;
    e->placed = true;
    const uint64_t bytes = e->whole_bytes;
    if (bytes <= room) {
      SG_RETURN_IF_ERROR(a->make_resident());
      room -= bytes;
      e->resident_bytes = bytes;
      resident_bytes_ += bytes;
    } else {
      e->ranged = true;
      *notes += "vertex array '" + e->name + "' (" + std::to_string(a->bytes()) + " bytes, " + vertex_use_name(e->use) +
                ") exceeds the memory left; loaded by vertex range\n";
    }
  }
  return Status::OK();
}

uint64_t VertexResidency::ranged_bytes_per_vertex(VertexUse use) const {
  uint64_t bytes = 0;
  for (const Entry& e : entries_) bytes += selected(e, use) ? e.value_bytes : 0;
  return bytes;
}

Status VertexResidency::load(VertexUse use, uint64_t begin, uint64_t end, bool writable) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Entry*> arrays;
  for (Entry& e : entries_) {
    if (selected(e, use)) arrays.push_back(&e);
  }
  const Status status = load_all(arrays, begin, end, [&](const Entry& e) {
    const auto [first, last] = e.array->slabs_over(begin, end);
    return e.array->load(first, last, writable, true);
  });
  io_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  note_loaded();
  return status;
}

void VertexResidency::note_loaded() {
  uint64_t bytes = 0;
  for (const Entry& e : entries_) bytes += e.ranged ? e.array->loaded_slabs_ * e.array->slab_bytes_ : 0;
  peak_loaded_bytes_ = std::max(peak_loaded_bytes_, bytes);
}

// Every array's range or none: an array whose load fails (a signal, an I/O
// error) cancels those loaded before it, so the caller unloads nothing.
Status VertexResidency::load_all(const std::vector<Entry*>& arrays, uint64_t begin, uint64_t end,
                                 const std::function<Status(const Entry&)>& load_one) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Status status = load_one(*arrays[i]);
    if (status.ok()) continue;
    for (size_t j = 0; j < i; ++j) {
      const auto [first, last] = arrays[j]->array->slabs_over(begin, end);
      arrays[j]->array->cancel_load(first, last);
    }
    return status;
  }
  return Status::OK();
}

Status VertexResidency::unload(VertexUse use, uint64_t begin, uint64_t end) {
  const auto start = std::chrono::steady_clock::now();
  Status status;
  for (Entry& e : entries_) {
    if (!selected(e, use)) continue;
    const auto [first, last] = e.array->slabs_over(begin, end);
    const Status s = e.array->unload(first, last);
    if (status.ok()) status = s;  // unload the others all the same: their pages must go
  }
  io_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return status;
}

uint64_t VertexResidency::ranged_bytes_per_vertex(const VertexAccess& access) const {
  uint64_t bytes = 0;
  VertexAccess::Mode mode;
  for (const Entry& e : entries_) bytes += e.ranged && access.mode_of(e.array, &mode) ? e.value_bytes : 0;
  return bytes;
}

Status VertexResidency::load(const VertexAccess& access, uint64_t begin, uint64_t end, bool every_vertex) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Entry*> arrays;
  VertexAccess::Mode mode;
  for (Entry& e : entries_) {
    if (e.ranged && access.mode_of(e.array, &mode)) arrays.push_back(&e);
  }
  const Status status = load_all(arrays, begin, end, [&](const Entry& e) {
    access.mode_of(e.array, &mode);
    if (mode == VertexAccess::Mode::kOverwrite && every_vertex) return e.array->load_to_overwrite(begin, end);
    const auto [first, last] = e.array->slabs_over(begin, end);
    return e.array->load(first, last, mode != VertexAccess::Mode::kRead, true);
  });
  io_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  note_loaded();
  return status;
}

Status VertexResidency::unload(const VertexAccess& access, uint64_t begin, uint64_t end) {
  const auto start = std::chrono::steady_clock::now();
  Status status;
  VertexAccess::Mode mode;
  for (Entry& e : entries_) {
    if (!e.ranged || !access.mode_of(e.array, &mode)) continue;
    const auto [first, last] = e.array->slabs_over(begin, end);
    const Status s = e.array->unload(first, last);
    if (status.ok()) status = s;
  }
  io_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return status;
}

Status VertexResidency::set_use(RawVertexArray* array, VertexUse use) {
  const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.array == array; });
  if (it == entries_.end() || !it->placed || array->loaded_slabs_ != 0) {
    return Status::InvalidArgument("a vertex array changes its use only when placed and not loaded");
  }
  it->use = use;
  return Status::OK();
}

uint64_t VertexResidency::bytes_loaded() const {
  uint64_t bytes = gone_loaded_;
  for (const Entry& e : entries_) bytes += e.ranged ? e.array->bytes_loaded() : 0;
  return bytes;
}

uint64_t VertexResidency::bytes_written_back() const {
  uint64_t bytes = gone_written_;
  for (const Entry& e : entries_) bytes += e.ranged ? e.array->bytes_written_back() : 0;
  return bytes;
}

void VertexResidency::forget(RawVertexArray* array) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.array == array; });
  if (it == entries_.end()) return;
  resident_bytes_ -= it->resident_bytes;
  if (it->ranged) {
    gone_loaded_ += array->bytes_loaded();
    gone_written_ += array->bytes_written_back();
  }
  entries_.erase(it);
}

void VertexResidency::moved(RawVertexArray* from, RawVertexArray* to) {
  for (Entry& e : entries_) {
    if (e.array == from) e.array = to;
  }
}

}  // namespace sg
