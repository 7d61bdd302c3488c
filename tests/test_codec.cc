// Varint and adjacency codec: round trips, edge cases, and malformed input.
#include <doctest/doctest.h>
#include <streamvbyte.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "compression/adjacency_codec.h"
#include "compression/bits.h"
#include "compression/chunk_lists.h"
#include "compression/chunk_packing.h"
#include "compression/entropy_stream.h"
#include "compression/stream_vbyte.h"
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
    if (v <= UINT32_MAX) CHECK(end - buf == varint32_length(static_cast<uint32_t>(v)));
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

// A sorted list of `count` ids below `num_vertices`: spread, clustered
// low (as bfds makes them), or runs of consecutive ids (as web graphs have).
std::vector<uint32_t> random_list(uint64_t* state, uint32_t count, uint32_t num_vertices, int kind) {
  std::vector<uint32_t> list(count);
  if (kind == 2 && count <= num_vertices) {
    const bool spaced = uint64_t{count} * 2 <= num_vertices;  // room for a gap of 2 after every id
    uint32_t id = static_cast<uint32_t>(sgtest::next_random(state) % (num_vertices - (spaced ? 2 * count : count) + 1));
    for (uint32_t& v : list) {
      v = id;
      id += spaced && sgtest::next_random(state) % 8 == 0 ? 2 : 1;
    }
    return list;
  }
  for (uint32_t& id : list)
    id = static_cast<uint32_t>(sgtest::next_random(state) % (kind == 1 ? std::min(num_vertices, 64u) : num_vertices));
  std::sort(list.begin(), list.end());
  return list;
}

ChunkLists random_chunk_lists(uint64_t* state, uint32_t num_vertices) {
  ChunkLists c;
  c.first_vertex = static_cast<uint32_t>(sgtest::next_random(state) % num_vertices);
  const uint32_t vertices =
      1 + static_cast<uint32_t>(sgtest::next_random(state) % std::min<uint64_t>(300, num_vertices - c.first_vertex));
  const int kind = static_cast<int>(sgtest::next_random(state) % 3);
  for (uint32_t i = 0; i < vertices; ++i) {
    const uint64_t r = sgtest::next_random(state) % 40;
    const uint32_t count = r < 20   ? 0
                           : r < 36 ? static_cast<uint32_t>(1 + sgtest::next_random(state) % 8)
                           : r < 39 ? static_cast<uint32_t>(sgtest::next_random(state) % 400)
                                    : static_cast<uint32_t>(sgtest::next_random(state) % 3000);  // past a gap block
    const std::vector<uint32_t> list = random_list(state, count, num_vertices, kind);
    c.counts.push_back(count);
    c.ids.insert(c.ids.end(), list.begin(), list.end());
  }
  return c;
}

// Reads every list back; fails the test on an error.
std::vector<uint32_t> read_back(ListCodec codec, const std::vector<uint8_t>& bytes, const ChunkLists& c,
                                uint32_t num_vertices, bool skip_odd) {
  ChunkListReader reader;
  REQUIRE(reader
              .open(codec, bytes.data(), bytes.data() + bytes.size(), c.first_vertex,
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

// decode_all (StreamVByte layouts): every list at once, with its starts.
Status read_all_at_once(const std::vector<uint8_t>& bytes, const ChunkLists& c, uint32_t num_vertices,
                        std::vector<uint32_t>* ids) {
  ChunkListReader reader;
  const uint32_t vertices = static_cast<uint32_t>(c.counts.size());
  SG_RETURN_IF_ERROR(
      reader.open(ListCodec::kV3, bytes.data(), bytes.data() + bytes.size(), c.first_vertex, vertices, num_vertices));
  ids->assign(c.ids.size(), 0);
  std::vector<uint32_t> starts(vertices, 0);
  SG_RETURN_IF_ERROR(reader.decode_all(static_cast<uint32_t>(c.ids.size()), ids->data(), starts.data(), 7));
  uint32_t start = 7;
  for (uint32_t i = 0; i < vertices; ++i) {
    if (i > 0 && starts[i] != start) return Status::Corruption("wrong start");
    start += c.counts[i];
  }
  return Status::OK();
}

ChunkListSizer size_lists(const ChunkLists& c, GapChoice choice) {
  ChunkListSizer sizer;
  sizer.reset(c.first_vertex, choice);
  const uint32_t* ids = c.ids.data();
  for (uint32_t count : c.counts) {
    if (count == 0) {
      sizer.add_empty();
    } else {
      std::vector<uint32_t> gaps(count);
      sizer.add_list(ids[0], count, encode_gaps(ids, count, gaps.data()));
    }
    ids += count;
  }
  return sizer;
}

bool has_repeats(const ChunkLists& c) {
  const uint32_t* ids = c.ids.data();
  for (uint32_t count : c.counts) {
    for (uint32_t i = 1; i < count; ++i) {
      if (ids[i] == ids[i - 1]) return true;
    }
    ids += count;
  }
  return false;
}

}  // namespace

TEST_CASE("chunk lists round trip in every codec and layout, and the sizer predicts each coded size") {
  uint64_t state = 4242;
  for (int round = 0; round < 300; ++round) {
    // Up to 4e9 vertices: gaps past 2^28 go through the scalar paths of
    // the entropy layout's group decoders.
    const uint64_t id_space = round % 3 == 0 ? 100 : round % 3 == 1 ? 5000000 : 4000000000;
    const uint32_t num_vertices = 1 + static_cast<uint32_t>(sgtest::next_random(&state) % id_space);
    const ChunkLists c = random_chunk_lists(&state, num_vertices);
    const ChunkListSizer sizer = size_lists(c, GapChoice::kSmallest);
    size_t smallest = SIZE_MAX, smallest_varint = SIZE_MAX;
    for (const ListCodec codec : {ListCodec::kV2, ListCodec::kV3}) {
      for (const AnchorMode anchor : {AnchorMode::kVertex, AnchorMode::kPreviousFirst}) {
        for (int g = 0; g < (codec == ListCodec::kV2 ? 1 : kGapCodings); ++g) {
          const ChunkLayout layout{anchor, static_cast<GapCoding>(g)};
          if (layout.gaps == GapCoding::kStreamVByteRuns && has_repeats(c)) continue;
          CAPTURE(g);
          std::vector<uint8_t> bytes;
          encode_chunk_lists(codec, layout, c.first_vertex, c.counts, c.ids.data(), &bytes);
          CHECK(bytes.size() == sizer.bytes(layout));
          smallest = std::min(smallest, bytes.size());
          if (g == 0) smallest_varint = std::min(smallest_varint, bytes.size());
          CHECK(read_back(codec, bytes, c, num_vertices, false) == c.ids);
          CHECK(read_back(codec, bytes, c, num_vertices, true) == c.ids);  // skipping keeps the anchors
          if (g > 0) {
            std::vector<uint32_t> ids;
            const Status s = read_all_at_once(bytes, c, num_vertices, &ids);
            CHECK_MESSAGE(s.ok(), s.ToString());
            CHECK(ids == c.ids);
          }
        }
        if (codec == ListCodec::kV3) {  // the entropy layout, sized only once coded
          std::vector<uint8_t> bytes;
          encode_chunk_lists(codec, ChunkLayout{anchor, GapCoding::kEntropy}, c.first_vertex, c.counts, c.ids.data(),
                             &bytes);
          CHECK(bytes[0] == ChunkLayout{anchor, GapCoding::kEntropy}.byte());
          CHECK(read_back(codec, bytes, c, num_vertices, false) == c.ids);
          CHECK(read_back(codec, bytes, c, num_vertices, true) == c.ids);
          std::vector<uint32_t> ids;
          const Status s = read_all_at_once(bytes, c, num_vertices, &ids);
          CHECK_MESSAGE(s.ok(), s.ToString());
          CHECK(ids == c.ids);
        }
      }
    }
    CHECK(sizer.bytes() == smallest);
    CHECK(size_lists(c, GapChoice::kVarintOnly).bytes() == smallest_varint);
    const ChunkListSizer fast = size_lists(c, GapChoice::kFast);
    if (fast.best_layout().gaps == GapCoding::kVarint) CHECK(fast.bytes() == smallest_varint);
    CHECK(static_cast<double>(fast.bytes()) <= static_cast<double>(smallest_varint) / (1 - kFastSlack) + 1e-9);
  }
}

TEST_CASE("chunk lists (codec 2): runs of empty lists take one token, and malformed streams are refused") {
  // 1000 empty lists, one list, 1000 empty lists: 1 mode byte + 2 run
  // tokens of 2 bytes + a 1-byte length + the neighbour.
  std::vector<uint32_t> counts(2001, 0);
  counts[1000] = 1;
  const std::vector<uint32_t> ids = {1003};
  std::vector<uint8_t> bytes;
  encode_chunk_lists(ListCodec::kV2, ChunkLayout{}, 5, counts, ids.data(), &bytes);
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

TEST_CASE("StreamVByte: our encoder writes libstreamvbyte's bytes, in both length sets, every length") {
  uint64_t state = 91;
  for (int round = 0; round < 600; ++round) {
    const uint32_t count = static_cast<uint32_t>(round < 80 ? round : sgtest::next_random(&state) % 3000);
    std::vector<uint32_t> values(count);
    for (uint32_t& v : values) {  // every byte length, zeros included
      const uint64_t r = sgtest::next_random(&state);
      v = static_cast<uint32_t>((r >> 32) >> (8 * (r % 5)));
    }
    for (const SvbLengths lengths : {SvbLengths::k1234, SvbLengths::k0124}) {
      std::vector<uint8_t> ours(svb_max_bytes(count)), theirs(svb_max_bytes(count) + 16);
      const size_t written = svb_encode(lengths, values.data(), count, ours.data());
      const size_t expected = svb_encode_reference(lengths, values.data(), count, theirs.data());
      REQUIRE(written == expected);
      CHECK(std::equal(ours.begin(), ours.begin() + static_cast<long>(written), theirs.begin()));
    }
  }
}

TEST_CASE("StreamVByte: our decoder reads what libstreamvbyte writes, in both length sets") {
  uint64_t state = 77;
  for (int round = 0; round < 400; ++round) {
    const uint32_t count = static_cast<uint32_t>(sgtest::next_random(&state) % (round % 2 == 0 ? 9 : 2000));
    const int bits = 1 + static_cast<int>(sgtest::next_random(&state) % 32);
    std::vector<uint32_t> values(count);
    for (uint32_t& v : values) {
      const uint64_t r = sgtest::next_random(&state);
      v = static_cast<uint32_t>(r % 4 == 0 ? 0 : (r >> 8) & ((uint64_t{1} << bits) - 1));
    }
    for (const SvbLengths lengths : {SvbLengths::k1234, SvbLengths::k0124}) {
      std::vector<uint8_t> bytes(svb_max_bytes(count));
      const size_t written = svb_encode(lengths, values.data(), count, bytes.data());
      bytes.resize(written);
      uint64_t data_bytes = 0;
      for (uint32_t v : values) data_bytes += svb_value_bytes(lengths, v);
      CHECK(written == svb_control_bytes(count) + data_bytes);
      CHECK(svb_data_bytes(lengths, bytes.data(), count) == data_bytes);
      std::vector<uint32_t> back(count + 1, 12345);
      const uint8_t* data = bytes.data() + svb_control_bytes(count);
      CHECK(svb_decode(lengths, bytes.data(), data, bytes.data() + bytes.size(), count, back.data()) ==
            bytes.data() + bytes.size());
      back.pop_back();
      CHECK(back == values);
      if (lengths == SvbLengths::k1234 && count > 0) {  // the library's own decoder agrees
        std::vector<uint32_t> theirs(count);
        CHECK(streamvbyte_decode(bytes.data(), theirs.data(), count) == written);
        CHECK(theirs == values);
      }
    }
  }
}

TEST_CASE("chunk lists (codec 3): malformed gap streams are refused, and never read past the end") {
  // Lists with runs, long enough for two gap blocks.
  ChunkLists c;
  c.first_vertex = 10;
  uint64_t state = 5;
  for (uint32_t i = 0; i < 40; ++i) {
    const uint32_t count = i % 3 == 0 ? 0 : i == 7 ? 700 : static_cast<uint32_t>(1 + i % 11);
    const std::vector<uint32_t> list = random_list(&state, count, 5000, static_cast<int>(i % 3));
    c.counts.push_back(count);
    c.ids.insert(c.ids.end(), list.begin(), list.end());
  }
  auto read_all = [&](const std::vector<uint8_t>& b, uint32_t num_vertices) {
    ChunkListReader reader;
    SG_RETURN_IF_ERROR(reader.open(ListCodec::kV3, b.data(), b.data() + b.size(), 10,
                                   static_cast<uint32_t>(c.counts.size()), num_vertices));
    std::vector<uint32_t> out(1000);
    for (size_t i = 0; i < c.counts.size(); ++i) {
      uint32_t count = 0;
      SG_RETURN_IF_ERROR(reader.next(1000, &count));
      SG_RETURN_IF_ERROR(i % 4 == 1 ? reader.skip(count) : reader.decode(count, out.data()));
    }
    return reader.finish();
  };
  for (const GapCoding gaps : {GapCoding::kStreamVByte, GapCoding::kStreamVByteRuns, GapCoding::kEntropy}) {
    if (gaps == GapCoding::kStreamVByteRuns && has_repeats(c)) continue;
    CAPTURE(static_cast<int>(gaps));
    std::vector<uint8_t> bytes;
    encode_chunk_lists(ListCodec::kV3, ChunkLayout{AnchorMode::kPreviousFirst, gaps}, c.first_vertex, c.counts,
                       c.ids.data(), &bytes);
    REQUIRE(read_all(bytes, 5000).ok());
    std::vector<uint32_t> ids;
    CHECK(read_all_at_once(bytes, c, 5000, &ids).ok());
    CHECK_FALSE(read_all(bytes, c.ids.empty() ? 0 : *std::max_element(c.ids.begin(), c.ids.end())).ok());
    for (size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 16) {
      // Copied, so a sanitizer sees any read past the cut.
      const std::vector<uint8_t> cut_bytes(bytes.begin(), bytes.begin() + static_cast<long>(cut));
      CHECK_FALSE(read_all(cut_bytes, 5000).ok());
      CHECK_FALSE(read_all_at_once(cut_bytes, c, 5000, &ids).ok());
    }
    std::vector<uint8_t> bad = bytes;
    bad.push_back(0);
    CHECK_FALSE(read_all(bad, 5000).ok());
    bad = bytes;
    bad[0] = 16;  // no such layout
    CHECK_FALSE(read_all(bad, 5000).ok());
    for (size_t at = 1; at < bytes.size(); at += 7) {
      bad = bytes;
      bad[at] ^= 0x5a;
      (void)read_all(bad, 5000);  // refused or read as other lists, within the bytes
      (void)read_all_at_once(bad, c, 5000, &ids);
    }
  }
  std::vector<uint8_t> v2_bytes;
  encode_chunk_lists(ListCodec::kV2, ChunkLayout{}, c.first_vertex, c.counts, c.ids.data(), &v2_bytes);
  v2_bytes[0] = 2;  // a codec-3 layout in a codec-2 chunk
  ChunkListReader reader;
  CHECK_FALSE(reader.open(ListCodec::kV2, v2_bytes.data(), v2_bytes.data() + v2_bytes.size(), 10, 40, 5000).ok());
}

TEST_CASE("chunk lists (codec 3): packed chunks read back in every layout, and malformed packing is refused") {
  uint64_t state = 777;
  int packed = 0;
  for (int round = 0; round < 120; ++round) {
    const uint32_t num_vertices = 1 + static_cast<uint32_t>(sgtest::next_random(&state) % 200000);
    const ChunkLists c = random_chunk_lists(&state, num_vertices);
    for (const AnchorMode anchor : {AnchorMode::kVertex, AnchorMode::kPreviousFirst}) {
      for (int g = 0; g < kGapCodings; ++g) {
        const ChunkLayout layout{anchor, static_cast<GapCoding>(g)};
        if (layout.gaps == GapCoding::kStreamVByteRuns && has_repeats(c)) continue;
        CAPTURE(g);
        std::vector<uint8_t> bytes = {0xab};  // a byte before the chunk's, as weights would be
        encode_chunk_lists(ListCodec::kV3, layout, c.first_vertex, c.counts, c.ids.data(), &bytes);
        const size_t unpacked_bytes = bytes.size();
        if (!pack_chunk_lists(&bytes, 1)) {
          CHECK(bytes.size() == unpacked_bytes);  // left as it was
          continue;
        }
        ++packed;
        CHECK(bytes.size() < unpacked_bytes);
        CHECK(bytes[0] == 0xab);
        CHECK(bytes[1] == (layout.byte() | kPackedLayoutBit));
        const std::vector<uint8_t> chunk(bytes.begin() + 1, bytes.end());
        CHECK(read_back(ListCodec::kV3, chunk, c, num_vertices, false) == c.ids);
        CHECK(read_back(ListCodec::kV3, chunk, c, num_vertices, true) == c.ids);
        if (g > 0) {
          std::vector<uint32_t> ids;
          CHECK(read_all_at_once(chunk, c, num_vertices, &ids).ok());
          CHECK(ids == c.ids);
        }
        ChunkListReader reader;
        const uint32_t vertices = static_cast<uint32_t>(c.counts.size());
        for (size_t cut = 1; cut < chunk.size(); cut += 1 + cut / 8) {
          const std::vector<uint8_t> cut_bytes(chunk.begin(), chunk.begin() + static_cast<long>(cut));
          CHECK_FALSE(reader
                          .open(ListCodec::kV3, cut_bytes.data(), cut_bytes.data() + cut, c.first_vertex, vertices,
                                num_vertices)
                          .ok());
        }
        std::vector<uint8_t> bad = chunk;
        bad[1] ^= 0x01;  // the unpacked length, off by one
        CHECK_FALSE(
            reader.open(ListCodec::kV3, bad.data(), bad.data() + bad.size(), c.first_vertex, vertices, num_vertices)
                .ok());
        bad = chunk;
        bad.insert(bad.begin() + 1, {0xff, 0xff, 0xff, 0xff, 0x7f});  // far past kMaxUnpackedChunkBytes
        CHECK_FALSE(
            reader.open(ListCodec::kV3, bad.data(), bad.data() + bad.size(), c.first_vertex, vertices, num_vertices)
                .ok());
      }
    }
  }
  CHECK(packed > 100);
  // Packing is a codec-3 layout: a codec-2 chunk with the bit is refused.
  std::vector<uint8_t> v2 = {kPackedLayoutBit, 2};
  ChunkListReader reader;
  CHECK_FALSE(reader.open(ListCodec::kV2, v2.data(), v2.data() + v2.size(), 0, 1, 10).ok());
}

TEST_CASE("entropy stream: values of several kinds round trip, and truncated or trailing bytes are refused") {
  uint64_t state = 99;
  for (int round = 0; round < 200; ++round) {
    EntropyWriter writer;
    std::vector<std::pair<uint8_t, uint64_t>> values;
    const uint64_t n = sgtest::next_random(&state) % (round % 5 == 0 ? 20000 : 300);
    for (uint64_t i = 0; i < n; ++i) {
      const uint8_t base = static_cast<uint8_t>((sgtest::next_random(&state) % 3) * kEntropyKindSpan);
      // Small values mostly (buckets 0 and 1 have no raw bits), some up to 2^40 - 1.
      const int bits = static_cast<int>(sgtest::next_random(&state) % (i % 7 == 0 ? 41 : 12));
      const uint64_t value = bits == 0 ? 0 : sgtest::next_random(&state) & ((uint64_t{1} << bits) - 1);
      writer.put(base, value);
      values.emplace_back(base, value);
    }
    std::vector<uint8_t> bytes = {0xee};  // what comes before the stream is not its business
    REQUIRE(writer.finish(&bytes));
    EntropyReader reader;
    REQUIRE(reader.open(bytes.data() + 1, bytes.data() + bytes.size()).ok());
    CHECK(reader.values_left() == n);
    for (const auto& [base, value] : values) {
      uint64_t got = 0;
      REQUIRE(reader.get(base, &got).ok());
      CHECK(got == value);
    }
    CHECK(reader.finish().ok());
    uint64_t got = 0;
    CHECK_FALSE(reader.get(0, &got).ok());  // none left
    if (n > 0) {
      REQUIRE(reader.open(bytes.data() + 1, bytes.data() + bytes.size()).ok());
      const auto other_kind = static_cast<uint8_t>((values[0].first + kEntropyKindSpan) % (3 * kEntropyKindSpan));
      CHECK_FALSE(reader.get(other_kind, &got).ok());  // a value read as another kind
    }
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0x01);
    REQUIRE(reader.open(longer.data() + 1, longer.data() + longer.size()).ok());
    for (const auto& [base, value] : values) REQUIRE(reader.get(base, &got).ok());
    CHECK_FALSE(reader.finish().ok());  // a trailing byte
    for (size_t cut = 1; cut + 1 < bytes.size(); cut += 1 + cut / 8) {
      const std::vector<uint8_t> cut_bytes(bytes.begin() + 1, bytes.end() - static_cast<long>(cut));
      Status s = reader.open(cut_bytes.data(), cut_bytes.data() + cut_bytes.size());
      for (size_t i = 0; s.ok() && i < values.size(); ++i) s = reader.get(values[i].first, &got);
      if (s.ok()) s = reader.finish();
      CHECK_FALSE(s.ok());
    }
  }
}

TEST_CASE("entropy stream: sum() turns gaps into ids as get() does, and refuses a gap of 2^32 or more") {
  uint64_t state = 5;
  EntropyWriter writer;
  std::vector<uint32_t> ids;
  uint64_t id = 0;
  for (int i = 0; i < 5000; ++i) {
    const uint64_t gap = sgtest::next_random(&state) % (i % 100 == 0 ? 1u << 20 : 40);
    id += gap;
    ids.push_back(static_cast<uint32_t>(id));
    writer.put(kEntropyGapBase, gap);
  }
  writer.put(kEntropyGapBase, uint64_t{1} << 32);
  std::vector<uint8_t> bytes;
  REQUIRE(writer.finish(&bytes));
  EntropyReader reader;
  REQUIRE(reader.open(bytes.data(), bytes.data() + bytes.size()).ok());
  std::vector<uint32_t> out(ids.size());
  uint64_t sum = 0;
  REQUIRE(reader.sum(kEntropyGapBase, static_cast<uint32_t>(ids.size()), &sum, out.data()));
  CHECK(out == ids);
  CHECK(sum == id);
  uint32_t one = 0;
  CHECK_FALSE(reader.sum(kEntropyGapBase, 1, &sum, &one));
  CHECK_FALSE(reader.sum(kEntropyGapBase, 2, &sum, out.data()));  // more than are left
}

namespace {

// An entropy-layout chunk written value by value: the layout byte, then the
// stream of (kind, value) pairs.
std::vector<uint8_t> entropy_chunk(AnchorMode anchor, const std::vector<std::pair<uint8_t, uint64_t>>& values) {
  std::vector<uint8_t> bytes = {ChunkLayout{anchor, GapCoding::kEntropy}.byte()};
  EntropyWriter writer;
  for (const auto& [base, value] : values) writer.put(base, value);
  REQUIRE(writer.finish(&bytes));
  return bytes;
}

}  // namespace

TEST_CASE("chunk lists (entropy): decode_all takes values wider than 32 bits and refuses values of the wrong kind") {
  // Vertex 0's list {2^31 + 5, 2^31 + 9, 3e9} in a graph of 4e9 vertices:
  // its first neighbour codes as zigzag(2^31 + 5) = 2^32 + 10, a bucket of
  // 33, which decode_all takes outside its 32-bit blocks.
  const uint32_t first = (uint32_t{1} << 31) + 5;
  const std::vector<uint32_t> list = {first, first + 4, 3000000000u};
  ChunkLists c;
  c.first_vertex = 0;
  c.counts = {3, 0, 1};
  c.ids = list;
  c.ids.push_back(7);
  const uint32_t num_vertices = 4000000000u;
  std::vector<uint8_t> bytes;
  encode_chunk_lists(ListCodec::kV3, ChunkLayout{AnchorMode::kVertex, GapCoding::kEntropy}, 0, c.counts, c.ids.data(),
                     &bytes);
  std::vector<uint32_t> ids;
  Status s = read_all_at_once(bytes, c, num_vertices, &ids);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(ids == c.ids);
  CHECK(read_back(ListCodec::kV3, bytes, c, num_vertices, false) == c.ids);

  // A list of two: token 3, the first neighbour, one gap. Each value of the
  // wrong kind is refused by both readers.
  const std::vector<std::pair<uint8_t, uint64_t>> good = {
      {kEntropyTokenBase, 3}, {kEntropyFirstBase, 4}, {kEntropyGapBase, 6}};
  c.first_vertex = 0;
  c.counts = {2};
  c.ids = {2, 8};
  REQUIRE(read_all_at_once(entropy_chunk(AnchorMode::kVertex, good), c, 100, &ids).ok());
  CHECK(ids == c.ids);
  for (size_t at = 0; at < good.size(); ++at) {
    for (const uint8_t base : {kEntropyGapBase, kEntropyTokenBase, kEntropyFirstBase}) {
      if (base == good[at].first) continue;
      auto bad = good;
      bad[at].first = base;
      CAPTURE(at);
      CAPTURE(static_cast<int>(base));
      CHECK_FALSE(read_all_at_once(entropy_chunk(AnchorMode::kVertex, bad), c, 100, &ids).ok());
    }
  }
  auto wide_gap = good;  // a gap of 2^32 or more
  wide_gap[2].second = uint64_t{1} << 32;
  CHECK_FALSE(read_all_at_once(entropy_chunk(AnchorMode::kVertex, wide_gap), c, 100, &ids).ok());
  auto extra = good;  // a value after the last list
  extra.push_back({kEntropyGapBase, 1});
  CHECK_FALSE(read_all_at_once(entropy_chunk(AnchorMode::kVertex, extra), c, 100, &ids).ok());
  auto short_list = good;  // the gap missing
  short_list.pop_back();
  CHECK_FALSE(read_all_at_once(entropy_chunk(AnchorMode::kVertex, short_list), c, 100, &ids).ok());
}
