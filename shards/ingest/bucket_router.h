// The distribution step of ingest's sort: records are routed by
// their packed arc value into buckets of equal value ranges; each bucket has
// a small buffer, and a full buffer is appended to one spill file as a
// segment, so the disk sees large sequential writes. Later, each bucket (or a
// run of small ones) is read back and sorted in memory.
//
// The top-level router starts with one vertex per bucket and doubles the
// bucket width whenever a larger id arrives (pairs of buckets merge: their
// segment lists are joined), so it needs no vertex count up front. A router
// over one oversized bucket's range splits it further (sub-routing).
//
// A segment is written packed: each record's offset from its bucket's first
// value in as few whole bytes as the bucket's range needs (the key's offset
// and only the neighbour bits the segment's largest neighbour needs), then
// the weight. R-MAT 24's records take 5 bytes instead of 8: the sort phase,
// which reads the spill back from disk, reads 3/8 less.
//
// A top-level router sorts a full buffer by key before writing it and codes
// it in blocks (`coded` in open): per record the key's gap from the one
// before in a Rice code, then the neighbour in the segment's neighbour bits.
// A key gap takes about 2 bits where its offset took 16 to 18: R-MAT 24's
// records take about 3.2 bytes instead of 5. Blocks start afresh every
// block_records records, so a bucket too large for a sort batch is read back
// in pieces of whole blocks.
//
// A coded router flushes in the background: a full buffer is swapped for a
// spare one and sorted, coded and written by a task while routing goes on.
// When that task is still busy, the router flushes the next full buffer
// itself (evenly spread keys fill every buffer at about the same time), so
// a burst of flushes is shared by two threads; each has its own coding
// room. A single-space route (the out-only first pass of an ordered
// ingest, undirected graphs) had one core routing and the other mostly
// idle: sorting and coding took over half of that thread's time. Each
// bucket's first segment is cut shorter by its turn among the buckets
// (stagger_first_flushes), so that buffers fill one after another.
//
// A direct router (a disk faster than the coder: an NVMe drive, or one
// the page cache sits in front of) packs segments as above without sorting
// or coding them, and writes and reads them with O_DIRECT through aligned
// staging rooms: the spill then costs no page-cache copies and takes no
// page-cache memory (on the machine of docs/benchmarks.md, writing new
// page-cache pages took 2.6 s of system time a GB). Its segments start at
// 4 KiB-aligned offsets. It flushes in the background like a coded router,
// with two flushes in flight a lane (background_flushes): they mostly wait
// on the disk.
//
// A bucket's segments go into extents of the spill file that it takes 1
// MiB at a time, each filled by its flushes in turn: its segments then lie
// in a few long runs, and the sort phase reads a bucket a run at a time
// (read_bucket) through a staging room, not a request a segment. Segments
// were a few hundred KiB when the budget leaves buffers small and coded
// smaller still: R-MAT 24's relabelling pass in 176 MiB read its 1.74 GB
// spill from an emulated HDD at 300 requests a second, in 47.7 s.
//
// A router may have several lanes (open's `lanes`), each with its own
// buffers, spare and rooms over the same buckets and spill: one thread a
// lane routes its share of a batch (add_lane), so one space's routing is
// not one thread. A bucket's segments then come from every lane, not in
// input order: only for records that a sort leaves the same whatever the
// order of equal keys (PlainArc, whose records are whole arcs).
//
// When the distribution is known up front (a relabelling pass reads a stored
// graph whose degrees it knows), buckets of unequal ranges (open_ranges)
// are cut so that none outgrows a sort batch: a locality order puts the
// hubs first, and equal ranges would overflow the first buckets many times.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/file_util.h"
#include "base/status.h"
#include "shards/ingest/spill_segment.h"

namespace sg {

// How a router writes its segments (SpillSegment): packed (a sub-router's spill,
// read once, soon), coded (a disk slower than the coder), or direct.
enum class SpillForm { kPacked, kCoded, kDirect };

template <typename Record>
class BucketRouter {
 public:
  // The spill (unnamed: it has no path to stat), for tests of its pages.
  const File& spill_file() const { return spill_; }
  BucketRouter() = default;
  // A flush in flight holds `this`.
  BucketRouter(const BucketRouter&) = delete;
  BucketRouter& operator=(const BucketRouter&) = delete;

  // Flushes a lane of a coded or direct router has in flight at most. A
  // direct flush mostly waits on the disk, so two overlap; a coded one
  // sorts and codes, and a second beside routing only took cores from it
  // (R-MAT 24's relabelling route on one emulated HDD: 5.46-5.91 s with
  // one, 6.13-6.16 s with two).
  static constexpr size_t background_flushes(SpillForm form) { return form == SpillForm::kDirect ? 2 : 1; }
  // What a router of `form` takes besides its buckets' buffers: a spare
  // for each background flush and a coding (or staging) room for each and
  // for the caller, each the size of a buffer (a packed router takes none,
  // but is counted as a coded one).
  static constexpr size_t extra_buffers(SpillForm form) { return 2 * background_flushes(form) + 1; }
  // The staging room for reads (read_bucket, direct segments): four bucket
  // buffers' bytes, within these bounds (an HDD reads 1 MiB at full speed),
  // and two blocks.
  static constexpr size_t kMinReadStageBytes = 64 << 10, kMaxReadStageBytes = 1 << 20;
  static constexpr size_t read_stage_bytes(size_t buffer_records) {
    const size_t buffer_bytes = std::min<size_t>(buffer_records, kMaxReadStageBytes) * sizeof(Record);
    return std::clamp(4 * buffer_bytes, kMinReadStageBytes, kMaxReadStageBytes) + 2 * 4096;
  }

  // `bucket_count` buckets (a power of two) of 2^width_bits values each,
  // the first starting at `base`; `can_grow` lets the width double.
  // `lanes` sets of buffers (each bucket has one buffer a lane).
  Status open(const std::string& spill_path, uint32_t bucket_count, size_t buffer_records, uint64_t base,
              int width_bits, bool can_grow, SpillForm form = SpillForm::kPacked, size_t lanes = 1);
  // Buckets of unequal ranges: bucket b holds the slots [first_slot[b],
  // first_slot[b + 1]) of 2^slot_bits values each, from value 0; the last
  // runs to slot_count. first_slot starts at 0 and grows.
  Status open_ranges(const std::string& spill_path, const std::vector<uint32_t>& first_slot, uint32_t slot_count,
                     int slot_bits, size_t buffer_records, SpillForm form = SpillForm::kPacked, size_t lanes = 1);

  Status add(const Record& record) {
    const uint64_t offset = record.arc - base_;
    uint64_t bucket = offset >> width_bits_;
    if (!slot_bucket_.empty()) {
      if (bucket >= slot_bucket_.size()) return out_of_range();
      bucket = slot_bucket_[bucket];
    } else if (bucket >= bucket_count_) {
      SG_RETURN_IF_ERROR(grow(offset));
      bucket = offset >> width_bits_;
    }
    Lane& lane = lanes_[0];
    lane.buffer_of[bucket][lane.fill[bucket]++] = record;
    if (lane.fill[bucket] == buffer_records_) return flush_full(lane, static_cast<uint32_t>(bucket));
    return Status::OK();
  }
  // Routes records[0, count) in lane 0: add() in a loop with the router's
  // fields in registers (stores into the buffers could otherwise alias
  // them).
  Status add_many(const Record* records, size_t count);
  // Routes records[0, count) in lane `lane`; lanes may route at once, each
  // on its own thread. A bucket never grows here: *routed is where a record
  // past the range stopped it (count if none), to be routed by add_many
  // once the lanes are done.
  Status add_lane(size_t lane, const Record* records, size_t count, size_t* routed);
  size_t lanes() const { return lanes_.size(); }
  // Flushes every buffer and releases them and the coding rooms.
  Status finish();
  // Frees the spill (an unnamed file: closing it deletes it).
  void remove();

  uint32_t bucket_count() const { return bucket_count_; }
  uint64_t records(uint32_t bucket) const { return records_[bucket]; }
  uint64_t total_records() const { return total_records_; }
  // First and last packed value of a bucket's range.
  uint64_t first_value(uint32_t bucket) const {
    return base_ + (uint64_t{first_slot_.empty() ? bucket : first_slot_[bucket]} << width_bits_);
  }
  uint64_t last_value(uint32_t bucket) const {
    if (!first_slot_.empty()) return base_ + (uint64_t{first_slot_[bucket + 1]} << width_bits_) - 1;
    return first_value(bucket) + (width_bits_ == 64 ? UINT64_MAX : (uint64_t{1} << width_bits_) - 1);
  }
  const std::vector<SpillSegment>& segments(uint32_t bucket) const { return segments_[bucket]; }
  // Reads `count` records of a segment, starting at record `first`, into
  // `out` (room for `count` records). A piece of a segment starts at a
  // multiple of block_records() and ends at one or at the segment's end.
  Status read(const SpillSegment& segment, uint64_t first, uint64_t count, Record* out) const;
  // Reads all of a bucket's records into `out` (room for records(bucket)),
  // a run of adjacent segments a request.
  Status read_bucket(uint32_t bucket, Record* out) const;
  // Reads a bucket larger than `out` (room for `capacity` records), a run of
  // adjacent segments a request as read_bucket does, and calls sink(count)
  // each time `out` holds as many records as it takes; a segment larger
  // than `capacity` goes in pieces. A bucket read a segment a request had
  // the sort phase of R-MAT 26 and 27 in 256 MiB at 300 requests a second.
  Status read_bucket_in_pieces(uint32_t bucket, Record* out, uint64_t capacity,
                               const std::function<Status(uint64_t)>& sink) const;
  // Has the kernel read a bucket's segments ahead into the page cache, so
  // that read_bucket later finds them there (not for a direct router,
  // whose reads bypass the page cache). It costs no memory of the budget's
  // own, only page cache: two spaces sorted at once had each waited on its
  // reads in turn (R-MAT 24's relabelling sort on an emulated HDD: 23.4 s
  // for 11.7 s of reads and about as much CPU).
  void prefetch_bucket(uint32_t bucket) const;
  // Frees the spill file's pages of a bucket whose records were all read
  // (they are not read again), so that the spill and the output are never
  // both held whole, on disk or in the page cache. Best effort; changes no
  // state of the router, only the file's.
  void discard(uint32_t bucket) const;
  static constexpr uint64_t block_records() { return kBlockRecords; }
  // Bytes written to the spill (the extents' unused tails are holes).
  uint64_t spilled_bytes() const { return written_bytes_; }

 private:
  static constexpr uint64_t kBlockRecords = 4096;
  static constexpr uint64_t kExtentBytes = 1 << 20;
  // The spill file's room a bucket's flushes fill in turn.
  struct Extent {
    uint64_t offset = 0, used = 0, capacity = 0;
  };
  static constexpr int kMaxDigitBits = 16;  // sort_by_key's radix digits

  // What one flush sorts and codes in (coded routers), or packs a segment
  // into for an aligned write (direct routers).
  struct CodingRoom {
    std::vector<Record> scratch;       // a buffer's records sorted or coded
    std::vector<uint32_t> key_counts;  // sort_by_key's digit counts
    std::vector<uint32_t> block_ends;  // the segment's blocks, until written
    AlignedBuffer stage;               // direct: the packed segment
  };
  // What one routing thread fills: a buffer a bucket, the spares of a
  // coded or direct router, the rooms, and its flushes in flight.
  struct Background {         // a flush in flight, or none
    Record* spare = nullptr;  // the buffer no bucket fills, free once the flush is done
    CodingRoom room;
    uint32_t bucket = 0;
    // Last, so destroyed first: it waits for the flush, which uses the rest.
    std::future<Status> pending;
  };
  struct Lane {
    std::vector<Record*> buffer_of;  // each bucket's buffer in buffers_
    std::vector<uint32_t> fill;      // a bucket's buffer holds records [start, fill)
    std::vector<uint32_t> start;     // 0 once the bucket's first segment is out
    CodingRoom room;                 // the routing thread's, for a flush of its own
    // Last, so destroyed first: their flushes use the rest.
    std::vector<Background> background;  // coded or direct: background_flushes(form_)
  };

  // Sets each bucket's buffer, and the spares of a coded or direct router.
  void point_buffers();
  void stagger_first_flushes();
  bool coded() const { return form_ == SpillForm::kCoded; }
  bool direct() const { return form_ == SpillForm::kDirect; }
  // Packs records[0, count) into the room's stage from `base`; returns the
  // packed bytes.
  size_t pack_to_stage(const Record* records, uint32_t count, uint64_t base, bool compact, int neighbour_bits,
                       size_t value_bytes, CodingRoom& room) const;
  Status read_direct(const SpillSegment& segment, uint64_t first, uint64_t count, Record* out) const;
  // Decodes a coded segment's blocks [block, end_block) from `coded` (its
  // bytes from the first of them) into out[0, count).
  Status decode_coded(const SpillSegment& segment, size_t block, size_t end_block, uint64_t count, const uint8_t* coded,
                      Record* out) const;
  // Decodes a whole segment from its bytes at `bytes`.
  Status decode_segment(const SpillSegment& segment, const uint8_t* bytes, Record* out) const;
  Status read_segment_in_pieces(const SpillSegment& segment, Record* out, uint64_t capacity,
                                const std::function<Status(uint64_t)>& sink) const;
  uint8_t* read_stage() const;
  // Writes a lane's buffered records of a bucket now (after its flushes in
  // flight).
  Status flush(Lane& lane, uint32_t bucket);
  // The same, in the caller's room, beside a flush in flight.
  Status flush_here(Lane& lane, uint32_t bucket);
  // A lane's buffer of a bucket is full: flushed in the background when
  // that is free, else here.
  Status flush_full(Lane& lane, uint32_t bucket);
  // The result of a lane's flushes in flight, if any, once they are done.
  static Status wait_pending(Lane& lane);
  static Status wait(Background& flush) { return flush.pending.valid() ? flush.pending.get() : Status::OK(); }
  static bool busy(const Background& flush) {
    return flush.pending.valid() && flush.pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  }
  // Every lane's buffers flushed, and their flushes done.
  Status flush_all();
  Status flush_records(uint32_t bucket, Record* records, uint32_t count, CodingRoom& room);
  // Takes the segment's place in the spill (and the room's block ends)
  // under write_mutex_, then writes it.
  Status write_segment(uint32_t bucket, const void* bytes, size_t size, SpillSegment segment, CodingRoom* room);
  Record* sort_by_key(Record* records, uint32_t count, uint64_t base, int key_bits, CodingRoom& room);
  bool code_segment(const Record* records, uint32_t count, uint64_t base, int key_bits, int neighbour_bits,
                    uint8_t* out, size_t capacity, size_t* size, SpillSegment* segment, CodingRoom& room);
  Status read_coded(const SpillSegment& segment, uint64_t first, uint64_t count, Record* out) const;
  Status grow(uint64_t offset);
  Status add_many_by_slot(Lane& lane, const Record* records, size_t count);
  static Status out_of_range() { return Status::Corruption("record outside its bucket router's range"); }

  File spill_;  // unnamed (File::create_unnamed)
  SpillForm form_ = SpillForm::kPacked;
  mutable AlignedBuffer read_stage_;  // allocated at the first read
  uint32_t bucket_count_ = 0;
  size_t buffer_records_ = 0;
  uint64_t base_ = 0;
  int width_bits_ = 0;
  bool can_grow_ = false;
  std::vector<uint32_t> slot_bucket_;  // open_ranges: the bucket of each slot
  std::vector<uint32_t> first_slot_;   // open_ranges: each bucket's first slot, then slot_count
  std::vector<Record> buffers_;        // every lane's
  std::mutex write_mutex_;             // the spill's end, segments, counts and block ends
  std::vector<uint32_t> block_ends_;   // coded segments' blocks: byte ends from the segment's offset
  std::vector<uint64_t> records_;
  std::vector<std::vector<SpillSegment>> segments_;
  std::vector<Extent> extents_;  // each bucket's current one
  uint64_t spill_end_ = 0;
  uint64_t written_bytes_ = 0;
  uint64_t total_records_ = 0;
  // Declared last, so destroyed first: their flushes use the members above.
  std::vector<Lane> lanes_;
};

}  // namespace sg
