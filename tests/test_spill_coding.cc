// The spill's coded segments (bucket_router.cc): a router's records come back
// exactly, whole or in pieces of whole blocks, plain and weighted, segment by
// segment or a bucket at a time (runs of adjacent segments); a segment
// whose blocks would not decode in place falls back to the packed form; and
// an ingest whose bucket outgrows the sort batch reads coded segments in
// pieces and stores every arc; a bucket of segments larger than the read
// stage, or than the room it is read into, comes back whole; a bucket read
// whole and discarded frees its pages of the spill file; and lanes routing
// at once on threads of their own put every record in its bucket.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "apps/jobs/ingest_ordered.h"
#include "compression/bit_stream.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/bucket_router.h"
#include "test_util.h"

using namespace sg;

namespace {

template <typename Record>
std::vector<uint64_t> arcs_of(const std::vector<Record>& records) {
  std::vector<uint64_t> arcs;
  for (const Record& r : records) arcs.push_back(uint64_t{r.arc});  // a copy: WeightedArc packs arc at 4 bytes
  std::sort(arcs.begin(), arcs.end());
  return arcs;
}

// Every record of every bucket, read segment by segment in pieces of
// `piece_blocks` blocks (0: whole segments).
template <typename Record>
std::vector<Record> read_back(const BucketRouter<Record>& router, uint64_t piece_blocks, size_t* coded_segments) {
  std::vector<Record> all;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    for (const SpillSegment& segment : router.segments(b)) {
      if (segment.rice_bits != SpillSegment::kPacked) ++*coded_segments;
      const uint64_t piece = piece_blocks == 0 ? segment.records : piece_blocks * router.block_records();
      for (uint64_t done = 0; done < segment.records; done += piece) {
        const uint64_t take = std::min(piece, segment.records - done);
        std::vector<Record> out(take);
        const Status s = router.read(segment, done, take, out.data());
        REQUIRE_MESSAGE(s.ok(), s.ToString());
        all.insert(all.end(), out.begin(), out.end());
      }
    }
  }
  return all;
}

// `count` arcs of random keys below `keys` and random 31-bit neighbours.
std::vector<PlainArc> random_arcs(uint32_t count, uint32_t keys, uint64_t seed) {
  std::vector<PlainArc> arcs;
  for (uint32_t i = 0; i < count; ++i) {
    arcs.push_back(PlainArc::make(static_cast<uint32_t>(sgtest::next_random(&seed) % keys),
                                  static_cast<uint32_t>(sgtest::next_random(&seed)) >> 1, 0));
  }
  return arcs;
}

// Routes `input` into `buckets` buckets of 52-bit ranges, then finishes.
bool route_all(const std::vector<PlainArc>& input, const std::string& spill, uint32_t buckets, size_t buffer_records,
               SpillForm form, BucketRouter<PlainArc>* router) {
  return router->open(spill, buckets, buffer_records, 0, 52, false, form).ok() &&
         router->add_many(input.data(), input.size()).ok() && router->finish().ok();
}

// Every bucket read into a room of `capacity` records
// (read_bucket_in_pieces), each filling of it checked and kept.
template <typename Record>
std::vector<Record> read_in_rooms(const BucketRouter<Record>& router, uint64_t capacity) {
  std::vector<Record> pieces, room(capacity);
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    const Status s = router.read_bucket_in_pieces(b, room.data(), capacity, [&](uint64_t count) {
      CHECK(count > 0);
      CHECK(count <= capacity);
      pieces.insert(pieces.end(), room.begin(), room.begin() + static_cast<std::ptrdiff_t>(count));
      return Status::OK();
    });
    REQUIRE_MESSAGE(s.ok(), s.ToString());
  }
  return pieces;
}

template <typename Record>
void check_round_trip(const std::vector<Record>& input, uint32_t buckets, size_t buffer_records, size_t* coded_segments,
                      SpillForm form = SpillForm::kCoded) {
  sgtest::TempDir dir;
  BucketRouter<Record> router;
  REQUIRE(router.open(dir / "spill", buckets, buffer_records, 0, 32, true, form).ok());
  REQUIRE(router.add_many(input.data(), input.size()).ok());
  REQUIRE(router.finish().ok());
  CHECK(router.total_records() == input.size());
  for (const uint64_t piece_blocks : {0, 1, 3}) {
    CAPTURE(piece_blocks);
    size_t coded = 0;
    const std::vector<Record> back = read_back(router, piece_blocks, &coded);
    CHECK(arcs_of(back) == arcs_of(input));
    if constexpr (sizeof(Record) > 8) {
      std::vector<std::pair<uint64_t, float>> a, b;
      for (const Record& r : input) a.emplace_back(uint64_t{r.arc}, float{r.weight});
      for (const Record& r : back) b.emplace_back(uint64_t{r.arc}, float{r.weight});
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      CHECK(a == b);
    }
    *coded_segments = coded;
  }
  // Whole buckets, a run of adjacent segments a read (read_bucket): the
  // same records, and a bucket's segments in fewer runs than segments
  // when it has several (they fill 1 MiB extents in turn).
  std::vector<Record> whole;
  size_t segments = 0, runs = 0;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    std::vector<Record> out(router.records(b));
    const Status s = router.read_bucket(b, out.data());
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    whole.insert(whole.end(), out.begin(), out.end());
    const std::vector<SpillSegment>& list = router.segments(b);
    for (size_t i = 0; i < list.size(); ++i) {
      ++segments;
      runs += i == 0 || list[i].offset != list[i - 1].offset + list[i - 1].bytes;
    }
  }
  CHECK(arcs_of(whole) == arcs_of(input));
  if (segments > 2 * router.bucket_count()) CHECK(runs < segments);
  // A bucket larger than the room it is read into (read_bucket_in_pieces):
  // runs of segments, and segments larger than the room in pieces of
  // blocks; each filling at most the room, every record once.
  for (const uint64_t capacity : {uint64_t{4096}, uint64_t{5000}, uint64_t{20000}}) {
    CAPTURE(capacity);
    CHECK(arcs_of(read_in_rooms(router, capacity)) == arcs_of(input));
  }
  router.remove();
}

}  // namespace

TEST_CASE("bit streams: fields and unary codes come back, and a read past the end fails") {
  std::vector<uint8_t> bytes(64);
  LsbBitWriter w(bytes.data(), bytes.size());
  w.put(5, 3);
  w.put_unary(0);
  w.put_unary(40);
  w.put(0xFFFFFFFFu, 32);
  w.put(1, 1);
  w.align();
  CHECK(!w.overflowed());
  LsbBitReader r(bytes.data(), w.bytes());
  CHECK(r.get(3) == 5);
  CHECK(r.get_unary(100) == 0);
  CHECK(r.get_unary(100) == 40);
  CHECK(r.get(32) == 0xFFFFFFFFu);
  CHECK(r.get(1) == 1);
  CHECK(!r.failed());
  r.get(32);
  CHECK(r.failed());
  // Fields taken from one window.
  std::vector<uint8_t> wide(32);
  LsbBitWriter ww(wide.data(), wide.size());
  ww.put(3, 2);
  ww.put((uint64_t{1} << 30) - 1, 30);
  ww.put((1u << 24) - 2, 24);
  ww.put(1, 1);
  ww.align();
  CHECK(!ww.overflowed());
  CHECK(ww.bytes() == 8);
  LsbBitReader wr(wide.data(), ww.bytes());
  const uint64_t window = wr.window();
  REQUIRE(wr.window_bits() >= 56);
  CHECK((window & 3) == 3);
  CHECK(((window >> 2) & ((uint64_t{1} << 30) - 1)) == (uint64_t{1} << 30) - 1);
  CHECK(((window >> 32) & ((1u << 24) - 1)) == (1u << 24) - 2);
  wr.consume(56);
  CHECK(wr.get(1) == 1);
  CHECK(!wr.failed());
  // Near the end, bytes are loaded one at a time; the window still holds
  // under 64 bits, so a decoder may consume all of it.
  std::vector<uint8_t> nine = {0xA5, 1, 2, 3, 4, 5, 6, 7, 0x80};
  LsbBitReader tail(nine.data(), nine.size());
  CHECK(tail.get(8) == 0xA5);
  tail.window();
  CHECK(tail.window_bits() >= 56);
  CHECK(tail.window_bits() < 64);
  const int held = tail.window_bits();
  tail.consume(held);
  uint64_t last = 0;
  for (int i = 0; i < 64 - held; ++i) last = tail.get(1);
  CHECK(last == 1);  // 0x80's top bit, the stream's last
  CHECK(!tail.failed());
  tail.get(1);
  CHECK(tail.failed());
  LsbBitReader limited(bytes.data(), w.bytes());
  limited.get(4);
  CHECK(!limited.failed());
  limited.get_unary(39);  // 40 zeros: beyond the limit
  CHECK(limited.failed());
  std::vector<uint8_t> small(2);
  LsbBitWriter tight(small.data(), small.size());
  tight.put(0, 16);
  CHECK(!tight.overflowed());
  tight.put(0, 1);
  tight.align();
  CHECK(tight.overflowed());
}

TEST_CASE("spill coding: records come back exactly, whole and in pieces of blocks, plain and weighted") {
  uint64_t state = 3;
  for (const uint32_t vertices : {1u, 300u, 70000u}) {
    CAPTURE(vertices);
    std::vector<PlainArc> plain;
    std::vector<WeightedArc> weighted;
    for (int i = 0; i < 30000; ++i) {
      // Skewed keys (a third on vertex 0) and neighbours of every width.
      const uint32_t key = i % 3 == 0 ? 0 : static_cast<uint32_t>(sgtest::next_random(&state) % vertices);
      const uint32_t neighbour =
          static_cast<uint32_t>(sgtest::next_random(&state)) >> (1 + sgtest::next_random(&state) % 31);
      plain.push_back(PlainArc::make(key, neighbour, 0));
      weighted.push_back(WeightedArc::make(key, neighbour, static_cast<float>(i) / 7));
    }
    size_t coded = 0;
    check_round_trip(plain, 16, 12000, &coded);
    CHECK(coded > 0);
    check_round_trip(weighted, 4, 9000, &coded);
    CHECK(coded > 0);
    // Direct: packed, through aligned staging, read in pieces of any size.
    check_round_trip(plain, 16, 12000, &coded, SpillForm::kDirect);
    CHECK(coded == 0);
    check_round_trip(weighted, 4, 9000, &coded, SpillForm::kDirect);
    CHECK(coded == 0);
  }
}

TEST_CASE("spill, direct: segments start at 4 KiB boundaries, and pieces longer than the read stage come back") {
  // 300,000 records in one bucket of one large buffer: one segment larger
  // than the 1 MiB read stage, then the rest after finish().
  const std::vector<PlainArc> input = random_arcs(300000, 100000, 5);
  sgtest::TempDir dir;
  BucketRouter<PlainArc> router;
  REQUIRE(route_all(input, dir / "spill", 2, 200000, SpillForm::kDirect, &router));
  size_t segments = 0;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    for (const SpillSegment& segment : router.segments(b)) {
      CHECK(segment.offset % 4096 == 0);
      ++segments;
    }
  }
  CHECK(segments >= 2);
  CHECK(router.spilled_bytes() % 4096 == 0);
  for (const uint64_t piece_blocks : {0, 1, 7}) {
    size_t coded = 0;
    CHECK(arcs_of(read_back(router, piece_blocks, &coded)) == arcs_of(input));
  }
  router.remove();
}

TEST_CASE("spill, direct: a bucket's records come back in input order through staggered, overlapping flushes") {
  // 16 buckets (keys >> 20) of 256-record buffers: each fills many times,
  // so the lane's background flushes overlap and fall back to the routing
  // thread, and each bucket's first segment is cut shorter by its turn.
  const std::vector<PlainArc> input = random_arcs(60000, 1u << 24, 11);
  sgtest::TempDir dir;
  BucketRouter<PlainArc> router;
  REQUIRE(route_all(input, dir / "spill", 16, 256, SpillForm::kDirect, &router));
  REQUIRE(router.bucket_count() == 16);
  std::vector<std::vector<uint64_t>> expected(16);
  for (const PlainArc& a : input) expected[uint64_t{a.arc} >> 52].push_back(uint64_t{a.arc});
  std::vector<uint64_t> first_segment_records;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    CAPTURE(b);
    std::vector<PlainArc> out(router.records(b));
    const Status s = router.read_bucket(b, out.data());
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    std::vector<uint64_t> arcs;
    for (const PlainArc& a : out) arcs.push_back(uint64_t{a.arc});
    CHECK(arcs == expected[b]);  // in input order, not only the same records
    REQUIRE(!router.segments(b).empty());
    first_segment_records.push_back(router.segments(b)[0].records);
  }
  // Staggered: the buckets' first segments are not all a full buffer.
  std::sort(first_segment_records.begin(), first_segment_records.end());
  CHECK(first_segment_records.front() < first_segment_records.back());
  CHECK(first_segment_records.front() < 256);
  router.remove();
}

TEST_CASE("spill: a bucket of segments larger than the read stage comes back, whole and in pieces") {
  // 700,000 records of random 52-bit values in one bucket of 300,000-record
  // buffers: segments of about 1.3 MB coded and 2.1 MB packed, more than the
  // 1 MiB read stage, so each is read in place; read_bucket must not write
  // one over another.
  const std::vector<PlainArc> input = random_arcs(700000, 1000000, 11);
  for (const SpillForm form : {SpillForm::kPacked, SpillForm::kCoded}) {
    CAPTURE(static_cast<int>(form));
    sgtest::TempDir dir;
    BucketRouter<PlainArc> router;
    REQUIRE(route_all(input, dir / "spill", 1, 300000, form, &router));
    size_t large = 0;
    for (const SpillSegment& segment : router.segments(0)) {
      large += segment.bytes > BucketRouter<PlainArc>::read_stage_bytes(300000);
    }
    CHECK(large >= 2);
    std::vector<PlainArc> whole(router.records(0));
    REQUIRE(router.read_bucket(0, whole.data()).ok());
    CHECK(arcs_of(whole) == arcs_of(input));
    // Rooms smaller than a segment (pieces of one), and of two segments.
    for (const uint64_t capacity : {uint64_t{150000}, uint64_t{650000}}) {
      CAPTURE(capacity);
      CHECK(arcs_of(read_in_rooms(router, capacity)) == arcs_of(input));
    }
    router.remove();
  }
}

namespace {

// Routes `input` in batches, each cut into one slice a lane, the lanes on
// threads of their own at once (add_lane); what a lane left for its
// buckets to grow goes through add_many after them.
void route_in_lanes(const std::vector<PlainArc>& input, size_t lanes, BucketRouter<PlainArc>* router) {
  constexpr size_t kBatch = 10000;
  for (size_t first = 0; first < input.size(); first += kBatch) {
    const size_t count = std::min(kBatch, input.size() - first);
    const size_t step = (count + lanes - 1) / lanes;
    std::vector<Status> status(lanes);
    std::vector<size_t> routed(lanes, 0), begin(lanes), size(lanes);
    std::vector<std::thread> threads;
    for (size_t lane = 0; lane < lanes; ++lane) {
      begin[lane] = first + std::min(count, lane * step);
      size[lane] = first + std::min(count, (lane + 1) * step) - begin[lane];
      threads.emplace_back(
          [&, lane] { status[lane] = router->add_lane(lane, input.data() + begin[lane], size[lane], &routed[lane]); });
    }
    for (std::thread& t : threads) t.join();
    for (size_t lane = 0; lane < lanes; ++lane) {
      REQUIRE_MESSAGE(status[lane].ok(), status[lane].ToString());
      REQUIRE(routed[lane] <= size[lane]);
      const Status rest = router->add_many(input.data() + begin[lane] + routed[lane], size[lane] - routed[lane]);
      REQUIRE_MESSAGE(rest.ok(), rest.ToString());
    }
  }
  REQUIRE(router->finish().ok());
}

// Each bucket read whole holds exactly the input's records in its range.
void check_buckets(const BucketRouter<PlainArc>& router, const std::vector<PlainArc>& input) {
  CHECK(router.total_records() == input.size());
  uint64_t total = 0;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    std::vector<PlainArc> out(router.records(b)), expected;
    const Status s = router.read_bucket(b, out.data());
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    for (const PlainArc& r : input) {
      if (r.arc >= router.first_value(b) && r.arc <= router.last_value(b)) expected.push_back(r);
    }
    CHECK(arcs_of(out) == arcs_of(expected));
    total += out.size();
  }
  CHECK(total == input.size());
}

}  // namespace

TEST_CASE(
    "spill: lanes route their shares at once, over growing buckets and unequal ranges, and every record comes back") {
  for (const SpillForm form : {SpillForm::kPacked, SpillForm::kCoded, SpillForm::kDirect}) {
    for (const size_t lanes : {size_t{2}, size_t{3}}) {
      CAPTURE(static_cast<int>(form));
      CAPTURE(lanes);
      // Keys that keep growing: buckets double while the lanes route
      // (a lane stops at a key past them; add_many grows them).
      std::vector<PlainArc> growing;
      uint64_t seed = 17 + lanes;
      for (uint32_t i = 0; i < 60000; ++i) {
        const uint32_t key = static_cast<uint32_t>(sgtest::next_random(&seed) % (i / 8 + 1));
        growing.push_back(PlainArc::make(key, static_cast<uint32_t>(sgtest::next_random(&seed)) >> 1, 0));
      }
      sgtest::TempDir dir;
      BucketRouter<PlainArc> router;
      REQUIRE(router.open(dir / "grow", 4, 700, 0, 32, true, form, lanes).ok());
      CHECK(router.lanes() == lanes);
      route_in_lanes(growing, lanes, &router);
      CHECK(router.bucket_count() == 4);
      CHECK(router.last_value(3) >= growing.back().arc);
      check_buckets(router, growing);
      router.remove();
      // Buckets of unequal ranges (open_ranges): slots of one key each.
      const std::vector<PlainArc> ranged = random_arcs(50000, 64, 29 + lanes);
      BucketRouter<PlainArc> by_slot;
      REQUIRE(by_slot.open_ranges(dir / "ranges", {0, 1, 5, 20}, 64, 32, 900, form, lanes).ok());
      route_in_lanes(ranged, lanes, &by_slot);
      check_buckets(by_slot, ranged);
      by_slot.remove();
    }
  }
}

TEST_CASE("spill coding: a record's fields in one word or field by field (long gaps, 31-bit neighbours)") {
  // One bucket of 2^20 keys and 8192 records: Rice parameter 6. Keys step
  // by 2500 every 20 records (a quotient of 39), neighbours alternate
  // between small and 31 bits (32 would leave the
  // segment packed), so records are coded both in one word
  // (gap and neighbour within 32 bits) and field by field.
  std::vector<PlainArc> input;
  uint64_t state = 17;
  for (uint32_t i = 0; i < 8192; ++i) {
    const uint32_t neighbour = i % 2 == 0 ? i % 7 : static_cast<uint32_t>(sgtest::next_random(&state)) >> 1 | 1u << 30;
    input.push_back(PlainArc::make(i / 20 * 2500, neighbour, 0));
  }
  sgtest::TempDir dir;
  BucketRouter<PlainArc> router;
  REQUIRE(route_all(input, dir / "spill", 1, 8192, SpillForm::kCoded, &router));
  for (const uint64_t piece_blocks : {0, 1}) {
    size_t coded = 0;
    CHECK(arcs_of(read_back(router, piece_blocks, &coded)) == arcs_of(input));
    CHECK(coded == 1);
  }
}

TEST_CASE("spill coding: a block that would not decode in place is packed instead, and still comes back") {
  // One bucket: arcs on key 0, then two on the bucket's last keys, far
  // away: the first one's gap takes a unary code of 2 KB, more than the
  // records after those before it.
  std::vector<PlainArc> input;
  for (int i = 0; i < 8190; ++i) input.push_back(PlainArc::make(0, static_cast<uint32_t>(i), 0));
  input.push_back(PlainArc::make((1u << 20) - 2, 5, 0));
  input.push_back(PlainArc::make((1u << 20) - 1, 6, 0));
  sgtest::TempDir dir;
  BucketRouter<PlainArc> router;
  REQUIRE(route_all(input, dir / "spill", 1, 8192, SpillForm::kCoded, &router));
  size_t coded = 0;
  CHECK(arcs_of(read_back(router, 0, &coded)) == arcs_of(input));
  CHECK(coded == 0);
}

TEST_CASE("spill coding: a discarded bucket's pages are freed, and the other buckets still come back") {
  std::vector<PlainArc> input;
  uint64_t state = 29;
  for (uint32_t i = 0; i < 400000; ++i) {
    const uint32_t key = static_cast<uint32_t>(sgtest::next_random(&state) % 2048);
    input.push_back(PlainArc::make(key, static_cast<uint32_t>(sgtest::next_random(&state)) >> 4, 0));
  }
  sgtest::TempDir dir;
  BucketRouter<PlainArc> router;
  REQUIRE(router.open(dir / "spill", 2, 50000, 0, 42, false, SpillForm::kCoded).ok());  // keys 0-1023, then 1024-2047
  REQUIRE(router.add_many(input.data(), input.size()).ok());
  REQUIRE(router.finish().ok());
  const auto allocated_bytes = [&] {
    struct stat st {};
    REQUIRE(::fstat(router.spill_file().fd(), &st) == 0);
    return uint64_t(st.st_blocks) * 512;
  };
  const uint64_t before = allocated_bytes();
  router.discard(0);
  const uint64_t after = allocated_bytes();
  File probe;
  REQUIRE(File::create(dir / "probe", &probe).ok());
  REQUIRE(probe.pwrite_all(std::vector<char>(1 << 16, 1).data(), 1 << 16, 0).ok());
  if (!probe.punch_hole(0, 1 << 16)) {
    MESSAGE("this file system does not punch holes: pages not freed");
    CHECK(after == before);
  } else {
    // Bucket 0 held about half the records (segments of about 150 KB);
    // only its segments' partial first and last pages stay.
    CHECK(after < before * 11 / 20);
    CHECK(after > before * 9 / 20);
  }
  std::vector<PlainArc> kept;
  for (const PlainArc& a : input)
    if (arc_key(a.arc) >= 1024) kept.push_back(a);
  std::vector<PlainArc> back;
  for (const SpillSegment& segment : router.segments(1)) {
    std::vector<PlainArc> out(segment.records);
    REQUIRE(router.read(segment, 0, segment.records, out.data()).ok());
    back.insert(back.end(), out.begin(), out.end());
  }
  CHECK(arcs_of(back) == arcs_of(kept));
  router.remove();
}

TEST_CASE("ingest: a bucket larger than the sort batch is read back from coded segments in pieces, every arc kept") {
  std::vector<sgtest::Arc> input;
  uint64_t state = 41;
  for (int i = 0; i < 40000; ++i)
    input.push_back(sgtest::Arc{5, static_cast<uint32_t>(sgtest::next_random(&state) % 50000), 1.0f});
  for (int i = 0; i < 20000; ++i) {
    input.push_back(sgtest::Arc{static_cast<uint32_t>(sgtest::next_random(&state) % 50000),
                                static_cast<uint32_t>(sgtest::next_random(&state) % 50000), 1.0f});
  }
  sgtest::TempDir dir;
  sgtest::write_snap(dir / "e.txt", input, false);
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.sort_buffer_edges = 16384;  // 8 Ki a space: coded segments; the hub's bucket is several batches
  o.route_buckets = 4;
  IngestSummary summary;
  const Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  std::vector<sgtest::Arc> expected = input, in_expected;
  std::sort(expected.begin(), expected.end());
  for (const sgtest::Arc& a : input) in_expected.push_back(sgtest::Arc{a.dst, a.src, 1.0f});
  std::sort(in_expected.begin(), in_expected.end());
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == expected);
  CHECK(sgtest::read_space(g, SpaceKind::kIn) == in_expected);
}
