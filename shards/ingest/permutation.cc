#include "shards/ingest/permutation.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "base/huge_pages.h"

namespace sg {

Status Permutation::open(const std::string& path, uint64_t vertices, uint64_t whole_limit_bytes, uint64_t source_window,
                         uint64_t neighbour_window, Permutation* out) {
  *out = Permutation();
  File file;
  SG_RETURN_IF_ERROR(File::open_read(path, &file));
  uint64_t bytes = 0;
  SG_RETURN_IF_ERROR(file.size(&bytes));
  if (bytes != vertices * sizeof(uint32_t)) {
    return Status::Corruption(path + ": " + std::to_string(bytes) + " bytes for a permutation of " +
                              std::to_string(vertices) + " vertices");
  }
  out->size_ = vertices;
  if (bytes <= whole_limit_bytes) {
    assign_touched(&out->whole_, static_cast<size_t>(vertices));  // in huge pages: looked up at random
    return file.pread_all(out->whole_.data(), static_cast<size_t>(bytes), 0);
  }
  out->file_ = std::move(file);
  out->source_half_ = std::clamp<uint64_t>(source_window / 2, 1, vertices);
  out->neighbour_capacity_ = std::clamp<uint64_t>(neighbour_window, 1, vertices);
  // Allocated up front: the windows never grow.
  out->sources_.ids.reserve(static_cast<size_t>(2 * out->source_half_));
  out->neighbours_.ids.reserve(static_cast<size_t>(out->neighbour_capacity_));
  return Status::OK();
}

Permutation& Permutation::operator=(Permutation&& other) noexcept {
  if (this == &other) return *this;
  release();                         // joins this one's read
  (void)other.join_upper_sources();  // a failed read leaves only the lower half ready
  whole_ = std::move(other.whole_);
  size_ = other.size_;
  file_ = std::move(other.file_);
  source_half_ = other.source_half_;
  neighbour_capacity_ = other.neighbour_capacity_;
  sources_ = std::move(other.sources_);
  neighbours_ = std::move(other.neighbours_);
  sources_ready_ = other.sources_ready_;
  slot_arcs_ = std::move(other.slot_arcs_);
  return *this;
}

uint64_t Permutation::held_bytes() const {
  const uint64_t slots = (slot_arcs_.out.capacity() + slot_arcs_.in.capacity()) * sizeof(uint64_t);
  if (!windowed()) return whole_.capacity() * sizeof(uint32_t) + slots;
  return (sources_.ids.capacity() + neighbours_.ids.capacity()) * sizeof(uint32_t) + slots;
}

Status Permutation::read(uint64_t first, size_t count, uint32_t* out) const {
  assert(first + count <= size_);
  if (!windowed()) {
    std::memcpy(out, whole_.data() + first, count * sizeof(uint32_t));
    return Status::OK();
  }
  return file_.pread_all(out, count * sizeof(uint32_t), first * sizeof(uint32_t));
}

Status Permutation::load(uint64_t first, uint64_t capacity, Window* window) const {
  const uint64_t count = std::min(capacity, size_ - first);
  window->first = first;
  window->ids.resize(static_cast<size_t>(count));
  return read(first, static_cast<size_t>(count), window->ids.data());
}

Status Permutation::cover(uint64_t source_lo, uint64_t source_hi, uint64_t neighbour_lo, uint64_t neighbour_hi,
                          uint64_t neighbour_start, bool* covered) {
  assert(windowed() && source_lo <= source_hi && neighbour_lo <= neighbour_hi && neighbour_hi < size_);
  *covered = source_hi - source_lo < source_half_ && neighbour_hi - neighbour_lo < neighbour_capacity_;
  if (!*covered) return Status::OK();
  SG_RETURN_IF_ERROR(cover_sources(source_lo, source_hi));
  if (!neighbours_.covers(neighbour_lo, neighbour_hi)) {
    const bool from_start = neighbour_start <= neighbour_lo && neighbour_hi - neighbour_start < neighbour_capacity_;
    SG_RETURN_IF_ERROR(load(from_start ? neighbour_start : neighbour_lo, neighbour_capacity_, &neighbours_));
  }
  return Status::OK();
}

// Within a block sources ascend, so once they pass into the upper half it
// becomes the lower one and the next upper half is read while it is in use:
// R-MAT 26 in 176 MiB slides its sources' window 64 times a block, each a
// wait of about 30 ms on an HDD when read on demand.
Status Permutation::cover_sources(uint64_t source_lo, uint64_t source_hi) {
  const auto ready = [&] { return source_lo >= sources_.first && source_hi < sources_.first + sources_ready_; };
  if (!ready()) {
    SG_RETURN_IF_ERROR(join_upper_sources());
    // A jump (the next block's first sources) starts the window afresh.
    if (!ready()) return load_sources(source_lo);
  }
  const uint64_t upper_first = sources_.first + source_half_;
  const bool upper_full = sources_.ids.size() == 2 * source_half_;
  if (!upper_sources_read_.valid() && upper_full && source_lo >= upper_first && upper_first + source_half_ < size_) {
    std::memmove(sources_.ids.data(), sources_.ids.data() + source_half_, source_half_ * sizeof(uint32_t));
    sources_.first = upper_first;
    sources_ready_ = source_half_;
    read_upper_sources();
  }
  return Status::OK();
}

Status Permutation::load_sources(uint64_t first) {
  sources_ready_ = 0;
  SG_RETURN_IF_ERROR(load(first, source_half_, &sources_));
  sources_ready_ = sources_.ids.size();
  if (sources_ready_ == source_half_ && first + source_half_ < size_) read_upper_sources();
  return Status::OK();
}

// The upper half lands past the lower in the buffer reserved up front (no
// reallocation), while the translation reads the lower.
void Permutation::read_upper_sources() {
  const uint64_t upper_first = sources_.first + source_half_;
  const size_t count = static_cast<size_t>(std::min(source_half_, size_ - upper_first));
  sources_.ids.resize(static_cast<size_t>(source_half_) + count);
  uint32_t* upper = sources_.ids.data() + source_half_;
  upper_sources_read_ =
      std::async(std::launch::async, [this, upper_first, count, upper] { return read(upper_first, count, upper); });
}

Status Permutation::join_upper_sources() {
  if (!upper_sources_read_.valid()) return Status::OK();
  SG_RETURN_IF_ERROR(upper_sources_read_.get());
  sources_ready_ = sources_.ids.size();
  return Status::OK();
}

void Permutation::release_windows() {
  (void)join_upper_sources();  // a read nobody will use: its error does not matter
  sources_ = Window();
  neighbours_ = Window();
  sources_ready_ = 0;
}

void Permutation::release() {
  release_windows();
  std::vector<uint32_t>().swap(whole_);
  file_ = File();
  slot_arcs_ = SlotArcs{};
}

}  // namespace sg
