// Varint and adjacency codec: round trips, edge cases, and malformed input.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "compression/adjacency_codec.h"
#include "compression/bits.h"
#include "compression/chunk_lists.h"
#include "compression/varint.h"
#include "test_util.h"

using namespace sg;

TEST_CASE("varint round trip at every length boundary") {
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
  for (int shift = 0; shift < 64; ++shift) {
    values.push_back(uint64_t{1} << shift);
    values.push_back((uint64_t{1} << shift) - 1);
  }
  for (uint64_t v : values) {
    uint8_t buf[kMaxVarint64Bytes];
    uint8_t* end = put_varint64(buf, v);
    CHECK(end - buf == varint_length(v));
    uint64_t back = 0;
    CHECK(get_varint64(buf, end, &back) == end);
    CHECK(back == v);
    for (uint8_t* cut = buf; cut < end; ++cut) CHECK(get_varint64(buf, cut, &back) == nullptr);
  }
}

TEST_CASE("varint rejects overlong and non-minimal encodings") {
  uint64_t v = 0;
  const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  CHECK(get_varint64(eleven, eleven + 11, &v) == nullptr);
  const uint8_t too_big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  CHECK(get_varint64(too_big, too_big + 10, &v) == nullptr);
  const uint8_t padded[2] = {0x81, 0x00};
  CHECK(get_varint64(padded, padded + 2, &v) == nullptr);
  uint32_t v32 = 0;
  const uint8_t over32[5] = {0xff, 0xff, 0xff, 0xff, 0x10};
  CHECK(get_varint32(over32, over32 + 5, &v32) == nullptr);
  const uint8_t max32[5] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  CHECK(get_varint32(max32, max32 + 5, &v32) == max32 + 5);
  CHECK(v32 == UINT32_MAX);
}

TEST_CASE("zigzag maps signed values both ways") {
  for (int64_t v :
       {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-4294967295LL}, int64_t{4294967295LL}, INT64_MIN, INT64_MAX}) {
    CHECK(zigzag_decode(zigzag_encode(v)) == v);
  }
  CHECK(zigzag_encode(-1) == 1);
  CHECK(zigzag_encode(1) == 2);
}

namespace {

void check_round_trip(uint32_t vertex, const std::vector<uint32_t>& list, uint32_t num_vertices) {
  std::vector<uint8_t> bytes;
  encode_list(vertex, list, &bytes);
  const uint8_t* p = bytes.data();
  std::vector<uint32_t> back;
  Status s = decode_list(&p, bytes.data() + bytes.size(), vertex, num_vertices, UINT32_MAX, &back);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(p == bytes.data() + bytes.size());
  CHECK(back == list);
  // Every proper prefix is an error, never a read past the end.
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    const uint8_t* q = prefix.data();
    CHECK_FALSE(decode_list(&q, prefix.data() + prefix.size(), vertex, num_vertices, UINT32_MAX, &back).ok());
  }
}

}  // namespace

TEST_CASE("adjacency lists round trip: edge cases") {
  const uint32_t max_id = UINT32_MAX - 1;
  check_round_trip(0, {}, 10);
  check_round_trip(5, {5}, 10);
  check_round_trip(9, {0}, 10);
  check_round_trip(0, {9}, 10);
  check_round_trip(3, {1, 1, 1, 2, 2, 9}, 10);  // duplicates
  check_round_trip(0, {max_id}, UINT32_MAX);
  check_round_trip(max_id, {0, max_id}, UINT32_MAX);
  std::vector<uint32_t> powers;
  for (int b = 0; b < 32; ++b) {
    for (int64_t d : {-1, 0, 1}) {
      const int64_t v = (int64_t{1} << b) + d;
      if (v >= 0 && v <= max_id) powers.push_back(static_cast<uint32_t>(v));
    }
  }
  std::sort(powers.begin(), powers.end());
  check_round_trip(1u << 20, powers, UINT32_MAX);
}

TEST_CASE("adjacency lists round trip: random lists") {
  uint64_t state = 42;
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t n = 1 + static_cast<uint32_t>(sgtest::next_random(&state) % (trial % 3 == 0 ? 1000000 : 5000));
    const uint32_t length = static_cast<uint32_t>(sgtest::next_random(&state) % 200);
    std::vector<uint32_t> list(length);
    for (auto& x : list) x = static_cast<uint32_t>(sgtest::next_random(&state) % n);
    std::sort(list.begin(), list.end());
    check_round_trip(static_cast<uint32_t>(sgtest::next_random(&state) % n), list, n);
  }
}

TEST_CASE("adjacency decoder rejects ids beyond |V| and random garbage safely") {
  std::vector<uint8_t> bytes;
  encode_list(0, std::vector<uint32_t>{3, 7}, &bytes);
  const uint8_t* p = bytes.data();
  std::vector<uint32_t> out;
  CHECK_FALSE(decode_list(&p, bytes.data() + bytes.size(), 0, 7, UINT32_MAX, &out).ok());  // 7 >= |V|
  p = bytes.data();
  CHECK_FALSE(decode_list(&p, bytes.data() + bytes.size(), 0, 100, 1, &out).ok());  // count above limit
  uint64_t state = 7;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> garbage(sgtest::next_random(&state) % 24);
    for (auto& b : garbage) b = static_cast<uint8_t>(sgtest::next_random(&state));
    const uint8_t* q = garbage.data();
    Status s = decode_list(&q, garbage.data() + garbage.size(), 5, 1000, UINT32_MAX, &out);
    if (s.ok()) {
      CHECK(q <= garbage.data() + garbage.size());
      for (uint32_t x : out) CHECK(x < 1000);
      CHECK(std::is_sorted(out.begin(), out.end()));
    }
  }
}

TEST_CASE("bit counts match std::popcount") {
  uint64_t state = 5;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t x = sgtest::next_random(&state) ^ (i % 2 ? 0 : sgtest::next_random(&state) << 7);
    CHECK(sg::count_bits(x) == static_cast<uint32_t>(std::popcount(x)));
    CHECK(sg::count_varint_ends(x) == static_cast<uint32_t>(std::popcount(~x & 0x8080808080808080ULL)));
  }
  CHECK(sg::count_bits(0) == 0);
  CHECK(sg::count_bits(~uint64_t{0}) == 64);
  CHECK(sg::count_varint_ends(0) == 8);
}

namespace {

// Random lists for consecutive vertices: many empty (runs of them), some
// long, ids clustered low (as bfds makes them) or spread.
struct ChunkLists {
  uint32_t first_vertex = 0;
  std::vector<uint32_t> counts;
  std::vector<uint32_t> ids;
};

ChunkLists random_chunk_lists(uint64_t* state, uint32_t num_vertices) {
  ChunkLists c;
  c.first_vertex = static_cast<uint32_t>(sgtest::next_random(state) % num_vertices);
  const uint32_t vertices =
      1 + static_cast<uint32_t>(sgtest::next_random(state) % std::min<uint64_t>(300, num_vertices - c.first_vertex));
  const bool low = sgtest::next_random(state) % 2 == 0;
  for (uint32_t i = 0; i < vertices; ++i) {
    const uint64_t r = sgtest::next_random(state) % 10;
    const uint32_t count = r < 5   ? 0
                           : r < 9 ? static_cast<uint32_t>(1 + sgtest::next_random(state) % 8)
                                   : static_cast<uint32_t>(sgtest::next_random(state) % 400);
    std::vector<uint32_t> list(count);
    for (uint32_t& id : list)
      id = static_cast<uint32_t>(sgtest::next_random(state) % (low ? std::min(num_vertices, 64u) : num_vertices));
    std::sort(list.begin(), list.end());
    c.counts.push_back(count);
    c.ids.insert(c.ids.end(), list.begin(), list.end());
  }
  return c;
}

// Reads every list back; fails the test on an error.
std::vector<uint32_t> read_back(const std::vector<uint8_t>& bytes, const ChunkLists& c, uint32_t num_vertices,
                                bool skip_odd) {
  ChunkListReader reader;
  REQUIRE(reader
              .open(ListCodec::kV2, bytes.data(), bytes.data() + bytes.size(), c.first_vertex,
                    static_cast<uint32_t>(c.counts.size()), num_vertices)
              .ok());
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < c.counts.size(); ++i) {
    uint32_t count = 0;
    REQUIRE(reader.next(UINT32_MAX, &count).ok());
    REQUIRE(count == c.counts[i]);
    REQUIRE(reader.vertex() == c.first_vertex + i);
    std::vector<uint32_t> list(count);
    if (skip_odd && i % 2 == 1) {
      REQUIRE(reader.skip(count).ok());
      list.assign(c.ids.begin() + static_cast<long>(ids.size()), c.ids.begin() + static_cast<long>(ids.size() + count));
    } else {
      Status s = reader.decode(count, list.data());
      REQUIRE_MESSAGE(s.ok(), s.ToString());
    }
    ids.insert(ids.end(), list.begin(), list.end());
  }
  REQUIRE(reader.finish().ok());
  return ids;
}

}  // namespace

TEST_CASE("chunk lists (codec 2) round trip in both anchor modes, and the sizer predicts the coded size") {
  uint64_t state = 4242;
  for (int round = 0; round < 300; ++round) {
    const uint32_t num_vertices =
        1 + static_cast<uint32_t>(sgtest::next_random(&state) % (round % 3 == 0 ? 100 : 5000000));
    const ChunkLists c = random_chunk_lists(&state, num_vertices);
    ChunkListSizer sizer;
    sizer.reset(c.first_vertex);
    const uint32_t* ids = c.ids.data();
    for (uint32_t count : c.counts) {
      if (count == 0) {
        sizer.add_empty();
      } else {
        std::vector<uint8_t> gaps(uint64_t{count} * kMaxVarint32Bytes);
        sizer.add_list(ids[0], count, encode_gaps(ids, count, gaps.data()));
      }
      ids += count;
    }
    size_t smallest = SIZE_MAX;
    for (const AnchorMode mode : {AnchorMode::kVertex, AnchorMode::kPreviousFirst}) {
      std::vector<uint8_t> bytes;
      encode_chunk_lists(c.first_vertex, c.counts, c.ids.data(), mode, &bytes);
      smallest = std::min(smallest, bytes.size());
      CHECK(read_back(bytes, c, num_vertices, false) == c.ids);
      CHECK(read_back(bytes, c, num_vertices, true) == c.ids);  // skipping keeps the anchors
    }
    CHECK(sizer.bytes() == smallest);
    std::vector<uint8_t> best;
    encode_chunk_lists(c.first_vertex, c.counts, c.ids.data(), sizer.best_mode(), &best);
    CHECK(best.size() == smallest);
  }
}

TEST_CASE("chunk lists (codec 2): runs of empty lists take one token, and malformed streams are refused") {
  // 1000 empty lists, one list, 1000 empty lists: 1 mode byte + 2 run
  // tokens of 2 bytes + a 1-byte length + the neighbour.
  std::vector<uint32_t> counts(2001, 0);
  counts[1000] = 1;
  const std::vector<uint32_t> ids = {1003};
  std::vector<uint8_t> bytes;
  encode_chunk_lists(5, counts, ids.data(), AnchorMode::kVertex, &bytes);
  CHECK(bytes.size() == 1 + 2 + 1 + 1 + 2);
  auto read_all = [&](const std::vector<uint8_t>& b, uint32_t vertex_count) {
    ChunkListReader reader;
    SG_RETURN_IF_ERROR(reader.open(ListCodec::kV2, b.data(), b.data() + b.size(), 5, vertex_count, 10000));
    uint32_t out[8];
    for (uint32_t i = 0; i < vertex_count; ++i) {
      uint32_t count = 0;
      SG_RETURN_IF_ERROR(reader.next(8, &count));
      SG_RETURN_IF_ERROR(reader.decode(count, out));
    }
    return reader.finish();
  };
  CHECK(read_all(bytes, 2001).ok());
  CHECK_FALSE(read_all(bytes, 2000).ok());  // the last run reaches past the chunk
  CHECK_FALSE(read_all(bytes, 2002).ok());  // a list missing
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    CHECK_FALSE(read_all(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(cut)), 2001).ok());
  }
  std::vector<uint8_t> bad = bytes;
  bad[0] = 2;  // no such anchor mode
  CHECK_FALSE(read_all(bad, 2001).ok());
  bad = bytes;
  bad.push_back(0);  // trailing byte
  CHECK_FALSE(read_all(bad, 2001).ok());
  const std::vector<uint8_t> zero_run = {0, 0};  // a run of 0 empty lists
  CHECK_FALSE(read_all(zero_run, 1).ok());
  uint64_t state = 99;
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> garbage(1 + sgtest::next_random(&state) % 40);
    for (uint8_t& byte : garbage) byte = static_cast<uint8_t>(sgtest::next_random(&state));
    (void)read_all(garbage,
                   1 + static_cast<uint32_t>(sgtest::next_random(&state) % 50));  // must not crash or read past the end
  }
}
