// The permutation a relabelling pass applies (new_id[old_id]): whole in
// memory, or a file read through two windows when 4 bytes a vertex do not
// fit the budget (R-MAT 26 in 176 MiB needs 268 MB).
//
// The windowed form relies on the order a stored graph is read in
// (graph_edge_reader.h): one 2-D block of the out-space after another,
// sources ascending within a block and neighbours inside the block's
// range. So the neighbours' window holds one block's range, and the
// sources' window slides forward: two adjacent halves, the upper one read
// in the background while the lower is in use. A batch whose ids span more
// than a window (the sources': a half) holds is translated in parts
// (IngestJob::translate_batch).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/status.h"

namespace sg {

// Each space's arcs per range of 2^shift new ids (out, then in; an
// undirected graph's one space in out), as an order that read the degree
// files while numbering could count them: a relabelling pass then cuts its
// buckets by them without reading the degree files and the permutation
// again (known_bucket_ranges: about 7 s of R-MAT 26's on one HDD).
struct SlotArcs {
  int shift = 0;
  std::vector<uint64_t> out, in;

  // The slots of n > 0 vertices: at most 64 Ki, of 2^shift ids each.
  static int shift_for(uint64_t n) { return std::max(0, static_cast<int>(std::bit_width(n - 1)) - 16); }
  static uint32_t slot_count(uint64_t n) { return static_cast<uint32_t>(((n - 1) >> shift_for(n)) + 1); }
  // Zero counts for n vertices (the in-space's only when `directed`).
  static SlotArcs zeros(uint64_t n, bool directed) {
    return SlotArcs{shift_for(n), std::vector<uint64_t>(slot_count(n), 0),
                    std::vector<uint64_t>(directed ? slot_count(n) : 0, 0)};
  }
};

class Permutation {
 public:
  // A slice of new ids: ids[v - first] for v in [first, first + ids.size()).
  struct Window {
    uint64_t first = 0;
    std::vector<uint32_t> ids;
    bool covers(uint64_t lo, uint64_t hi) const { return lo >= first && hi < first + ids.size(); }
  };

  Permutation() = default;
  explicit Permutation(std::vector<uint32_t> new_id) : whole_(std::move(new_id)), size_(whole_.size()) {}
  // A read in flight writes through the object's own address: both join it
  // before anything moves.
  Permutation(Permutation&& other) noexcept { *this = std::move(other); }
  Permutation& operator=(Permutation&& other) noexcept;
  // A permutation file of `vertices` uint32 new ids, read whole when that
  // takes at most `whole_limit_bytes`, else through windows of at most
  // `source_window` (both halves) and `neighbour_window` ids.
  static Status open(const std::string& path, uint64_t vertices, uint64_t whole_limit_bytes, uint64_t source_window,
                     uint64_t neighbour_window, Permutation* out);

  uint64_t size() const { return size_; }
  bool windowed() const { return file_.is_open(); }
  // The whole permutation (not windowed).
  const uint32_t* data() const { return whole_.data(); }
  // Memory held: the whole permutation or both windows.
  uint64_t held_bytes() const;
  // Copies new ids [first, first + count) to `out`.
  Status read(uint64_t first, size_t count, uint32_t* out) const;
  // Loads the windows so that sources [source_lo, source_hi] and
  // neighbours [neighbour_lo, neighbour_hi] translate; false (nothing
  // loaded) when a span is wider than its window. The neighbours' window
  // starts at `neighbour_start` when that covers the span (a block's first
  // vertex: the block's later batches then reuse it).
  Status cover(uint64_t source_lo, uint64_t source_hi, uint64_t neighbour_lo, uint64_t neighbour_hi,
               uint64_t neighbour_start, bool* covered);
  // Only the ids cover() was asked for may be read: past them the sources'
  // upper half may still be being read.
  const Window& sources() const { return sources_; }
  const Window& neighbours() const { return neighbours_; }
  // Frees the windows; read() still works (the id map gets their room).
  void release_windows();
  // Frees the memory (the sort phase gets it).
  void release();
  // The slot arcs of the order that made this permutation, if it counted
  // them (empty vectors otherwise).
  void set_slot_arcs(SlotArcs arcs) { slot_arcs_ = std::move(arcs); }
  const SlotArcs& slot_arcs() const { return slot_arcs_; }

 private:
  Status load(uint64_t first, uint64_t capacity, Window* window) const;
  Status cover_sources(uint64_t source_lo, uint64_t source_hi);
  // The sources' lower half from `first` now, the upper in the background.
  Status load_sources(uint64_t first);
  void read_upper_sources();
  // Waits for the upper half; its read's status.
  Status join_upper_sources();

  std::vector<uint32_t> whole_;
  uint64_t size_ = 0;
  File file_;
  uint64_t source_half_ = 0, neighbour_capacity_ = 0;
  Window sources_, neighbours_;
  uint64_t sources_ready_ = 0;  // ids of sources_ from its first that may be read now
  SlotArcs slot_arcs_;
  // Last: destroyed (joined) before the window and the file it uses.
  std::future<Status> upper_sources_read_;
};

}  // namespace sg
